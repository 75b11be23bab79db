package measure

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// CompareMany times a against every session of bs in one interleaved run
// and returns the comparison of each (latency(bs[i])/latency(a), one
// session of each model, as Compare): a's runs serve every comparison,
// so that k candidates cost k+1 models' runs where k comparisons of their
// own cost 2k. ViT-B/16's measured passes timed two or three candidates
// against the model chosen so far, 5-7 s each, most of it at 85 ms a run.
//
// A unit runs a twice, then each candidate twice, then the candidates in
// the reverse order and a again (AABBCC then CCBBAA for two; see
// bootstrapUnit), so that every model's runs sit, on average, at the middle
// of the unit and a slow drift of the machine weighs on all alike; each
// candidate's runs pair with a's run by run, as in Compare's units. The
// warm-up, the settling and the block size are those of Compare, from
// opts[0]. The looks are shared: at each, every
// candidate still timed gets its figures and opts[i]'s stopping rule
// (Compare's), and a candidate that stops leaves the rotation, its
// comparison as that look left it. Each candidate's time, for its
// MaxTime, MinTime and ResolutionTime, is that of its own runs and a's
// since timing began: what a comparison of its own would have spent. Its
// Futility is checked as Compare checks it, before the first look; with
// StopDominated, a candidate whose interval lies wholly above that of one
// shown faster stops at that look (Comparison.Dominated). The
// run ends when no candidate is left or at the last look of the shared
// schedule, whose cap is the largest of the candidates'.
//
// Each interval has the error rate of Compare's; together the k intervals
// hold their true ratios with probability at least 1-k/100.
func CompareMany(a Session, bs []Session, in map[string]*graph.Tensor, opts []MeasureOptions) ([]Comparison, error) {
	defer onOneThread()()
	if len(bs) == 0 || len(opts) != len(bs) {
		return nil, fmt.Errorf("comparing against %d sessions with %d options: want one or more, one option set each", len(bs), len(opts))
	}
	for i := range opts {
		capSet := opts[i].MaxRuns > 0 && opts[i].MaxRuns >= opts[i].Runs
		opts[i] = opts[i].withDefaults()
		if !capSet {
			opts[i].MaxRuns = max(opts[i].MaxRuns, compareMaxBlocks*opts[i].BlockRuns)
		}
	}
	base := opts[0]
	active := make([]int, len(bs))
	for i := range active {
		active[i] = i
	}
	// unit runs each model r times in a row over the candidates still
	// timed: a, then each (j = 0); or each in reverse, then a (j = 1).
	unit := func(j, r int, ra *timedRuns, rb func(i int) *timedRuns) error {
		order := make([]int, 0, len(active)+1)
		order = append(append(order, -1), active...)
		if j == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			if i < 0 {
				if err := ra.runs(a, in, r); err != nil {
					return err
				}
				continue
			}
			if err := rb(i).runs(bs[i], in, r); err != nil {
				return err
			}
		}
		return nil
	}
	var scratch timedRuns
	toScratch := func(int) *timedRuns { return &scratch }
	k, _, err := warmUp(base, 1, len(bs)+1, &scratch,
		func(int) error { return unit(0, 1, &scratch, toScratch) },
		func(i, _ int) error { return unit(i%2, 1, &scratch, toScratch) })
	if err != nil {
		return nil, err
	}
	lay := layout{unit: bootstrapUnit, pairs: 1, turn: 1}
	maxRuns, maxTime := 0, time.Duration(0)
	for _, o := range opts {
		maxRuns, maxTime = max(maxRuns, o.MaxRuns), max(maxTime, o.MaxTime)
	}
	// shared caps the run as a whole: the largest of the candidates' caps.
	shared := MeasureOptions{MaxTime: maxTime, MaxRuns: maxRuns, MinTime: base.MinTime}
	sched := lookSchedule{capBlocks: max(minCompareBlocks, (maxRuns+k-1)/k)}
	var ra timedRuns
	rb := make([]timedRuns, len(bs))
	out := make([]Comparison, len(bs))
	// cur holds the figures of the candidates looked at and still timed,
	// looked their indices, at the current look.
	cur := make([]Comparison, len(bs))
	var looked []int
	inflation := make([]float64, len(bs))
	looks := make([]int, len(bs))
	for i := range inflation {
		inflation[i] = 1
	}
	// spent is the time of a's runs and candidate i's: candidate i's
	// time in a comparison of its own.
	spent := func(i int) time.Duration { return sum(ra.wall) + sum(rb[i].wall) }
	// finish records candidate i's comparison and takes it out of the
	// rotation.
	finish := func(i int, c Comparison) {
		out[i] = c
		active = slices.DeleteFunc(active, func(j int) bool { return j == i })
	}
	for blk := 0; ; blk++ {
		for j := 0; j < k; j += bootstrapUnit {
			if err := unit(j/bootstrapUnit%2, bootstrapUnit, &ra, func(i int) *timedRuns { return &rb[i] }); err != nil {
				return nil, err
			}
		}
		n := len(ra.wall)
		blocks := n / k
		// The shared schedule goes by the slowest-spending candidate
		// still timed (whose own comparison would be furthest along).
		var elapsed time.Duration
		for _, i := range slices.Clone(active) {
			o, e := opts[i], spent(i)
			elapsed = max(elapsed, e)
			if o.Futility > 0 && blocks%futilityBlocks == 0 && sched.taken == 0 && looks[i] == 0 && futile(ra.wall, rb[i].wall, k, o.Futility) {
				c := summarizeComparison(&ra, &rb[i], k, lay, looks[i], o.Precision, inflation[i])
				c.Verdict, c.Futile, c.Elapsed = Undecided, true, e
				finish(i, c)
			}
		}
		if len(active) == 0 {
			return out, nil
		}
		enough := enoughBlocks(blocks, minCompareBlocks, elapsed)
		ready := enough && n >= base.Runs && elapsed >= base.MinTime
		final := shared.atCap(enough, n, elapsed)
		if ready && sched.taken == 0 {
			sched.capBlocks = timeCap(sched.capBlocks, blocks, elapsed, maxTime)
		}
		look, last := sched.due(blocks, ready, final)
		looked = looked[:0]
		for _, i := range slices.Clone(active) {
			// A candidate at its own cap is looked at, and finished, at
			// once: one look more of its own, within compareLooks (the
			// shared schedule's last look finishes them all).
			o, e := opts[i], spent(i)
			atCap := o.atCap(enough, n, e)
			if !look && !atCap {
				continue
			}
			looks[i]++
			c := summarizeComparison(&ra, &rb[i], k, lay, looks[i], o.Precision, inflation[i])
			c.Elapsed = e
			inflation[i] = c.Inflation
			if o.judge(&c) || last || atCap {
				finish(i, c)
				continue
			}
			cur[i] = c
			looked = append(looked, i)
		}
		// Candidates still timed whose interval lies wholly above that of
		// one shown faster, at this look or before, stop (StopDominated).
		if len(looked) > 0 {
			bound := fastestHi(out, cur, looked)
			for _, i := range looked {
				if c := cur[i]; opts[i].StopDominated && c.RatioLo > bound {
					c.Dominated = true
					finish(i, c)
				}
			}
		}
		if len(active) == 0 {
			return out, nil
		}
	}
}

// fastestHi returns the lowest RatioHi of the comparisons shown faster
// (verdict Faster): the finished ones in out and cur[i] for i in looked;
// +Inf when there is none.
func fastestHi(out, cur []Comparison, looked []int) float64 {
	hi := math.Inf(1)
	for _, c := range out {
		if c.Verdict == Faster {
			hi = min(hi, c.RatioHi)
		}
	}
	for _, i := range looked {
		if cur[i].Verdict == Faster {
			hi = min(hi, cur[i].RatioHi)
		}
	}
	return hi
}

// sum returns the total of ds.
func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}
