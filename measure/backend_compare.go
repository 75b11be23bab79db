package measure

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// Comparison is the result of an interleaved A/B latency measurement: a
// sequential test of latency(B)/latency(A) (see the statistic described
// in sequential.go).
//
// BlockRuns runs of one model run in a row, then as many of the other,
// the first model alternating from block to block (see inRowFirstLook);
// Compare looks at the data only at whole blocks. The figures a user
// sees are the medians of all timed runs of each model (A.Median,
// B.Median); Ratio is
// their ratio, so that a before/after pair printed beside the speedup
// always agrees with it.
type Comparison struct {
	A, B Stats
	// Ratio is B.Median / A.Median: below 1 means B is faster. Speedup
	// returns its inverse.
	Ratio float64
	// RatioLo and RatioHi bound the 99% confidence interval of Ratio from
	// the sequential test: the interval of its last look, at the level
	// that keeps every look's interval right with 99% probability.
	RatioLo, RatioHi float64
	// Verdict is what the test concluded; Looks is how many times it
	// looked at the data.
	Verdict Verdict
	Looks   int
	// Elapsed is the time spent timing, after warm-up and settling (what
	// MeasureOptions.MaxTime bounds).
	Elapsed time.Duration
	// Futile reports a comparison stopped before its first look because
	// B was clearly slower (MeasureOptions.Futility): its verdict is
	// undecided, its interval that of a first look, for information.
	Futile bool
	// SmallGain reports a comparison stopped, undecided, at a look whose
	// interval at smallGainLevel (SmallGainLo) showed B faster by less
	// than MeasureOptions.MinGain at most.
	SmallGain bool
	// Dominated reports a CompareMany candidate stopped, undecided, at a
	// look whose interval lay wholly above that of another candidate
	// shown faster (MeasureOptions.StopDominated).
	Dominated bool
	// SmallGainLo is the low end of the last look's interval of
	// latency(B)/latency(A) at the looser level smallGainLevel (95%), the
	// figure the MinGain stop reads; 0, as RatioLo, when no interval could
	// be computed.
	SmallGainLo float64
	// Inflation is the factor by which the interval's variance was
	// raised for slow drifts of one model against the other (1: none
	// found; see longRunInflation).
	Inflation float64
	// RatioP50 is the median of the pair ratios (each run of B over the
	// run of A timed next to it); RatioP10 and RatioP90 bound their middle
	// 80%, and RatioMAD is their median absolute deviation from RatioP50,
	// relative to it: the run-to-run spread. On an idle machine RatioP50
	// is close to Ratio; when other processes come and go it is steadier
	// (each pair shares the load of its moment), but no one observes it
	// as a latency, and no decision uses it.
	RatioP50, RatioP10, RatioP90, RatioMAD float64
	// MinRatio is the median over blocks of the ratio of each block's
	// fastest B run to its fastest A run: the ratio on a machine that
	// nothing else disturbs. It is reported beside Ratio, labelled as
	// block minima; no decision uses it.
	MinRatio float64
	// CPURatio is the ratio of the median process CPU times of B's and
	// A's runs (0 when the sessions use no measurable CPU time): a
	// cross-check that is insensitive to being descheduled.
	CPURatio float64
	// Pairs is the number of timed runs of each model; Blocks the number
	// of blocks they form; Sessions the number of sessions of each model
	// they rotated through.
	Pairs, Blocks, Sessions int
}

// Speedup returns A.Median / B.Median, the factor by which B is faster
// (the inverse of Ratio).
func (c Comparison) Speedup() float64 { return Speedup(c.A.Median, c.B.Median) }

// SpeedupCI returns the 99% confidence interval of Speedup.
func (c Comparison) SpeedupCI() (lo, hi float64) { return inverse(c.RatioHi), inverse(c.RatioLo) }

func inverse(r float64) float64 {
	if r <= 0 {
		return math.Inf(1)
	}
	return 1 / r
}

// Significant reports whether 1.0 lies outside [RatioLo, RatioHi], that is,
// whether the test showed B faster or slower.
func (c Comparison) Significant() bool { return c.RatioLo > 1 || c.RatioHi < 1 }

// Summary formats the medians and the speedup they make, with its
// interval, the verdict and the block-minima figure: "10.650ms -> 8.645ms:
// speedup 1.232x (99% CI 1.220-1.243), faster after 3 looks (48 blocks of
// 8 runs); block minima 1.300x".
func (c Comparison) Summary() string {
	lo, hi := c.SpeedupCI()
	k := 0
	if c.Blocks > 0 {
		k = c.Pairs / c.Blocks
	}
	verdict := fmt.Sprintf("%v after %d looks", c.Verdict, c.Looks)
	if c.Futile {
		verdict = "not going to be faster: stopped before the first look"
	}
	if c.SmallGain {
		verdict = fmt.Sprintf("faster by too little if at all: stopped after %d looks", c.Looks)
	}
	s := fmt.Sprintf("%v -> %v: speedup %.3fx (99%% CI %.3f-%.3f), %s (%d blocks of %d runs); block minima %.3fx",
		c.A.Median.Round(time.Microsecond), c.B.Median.Round(time.Microsecond), c.Speedup(), lo, hi,
		verdict, c.Blocks, k, inverse(c.MinRatio))
	s += c.notes()
	return s
}

// notes formats what sets the interval apart, if anything: several
// sessions of each model, a widening for drift.
func (c Comparison) notes() string {
	s := ""
	if c.Sessions > 1 {
		s += fmt.Sprintf("; %d sessions of each model", c.Sessions)
	}
	if c.Inflation > 1 {
		s += fmt.Sprintf("; interval widened %.2fx for drift between the models", math.Sqrt(c.Inflation))
	}
	return s
}

// String formats the ratio, its interval and its spread.
func (c Comparison) String() string {
	s := fmt.Sprintf("B/A latency ratio %.3f (99%% CI %.3f-%.3f; ratio of median latencies, speedup %.3fx; %v after %d looks; pair ratios median %.3f, p10 %.3f, p90 %.3f, MAD %.1f%%; block-minima ratio %.3f; %d blocks, %d runs each)",
		c.Ratio, c.RatioLo, c.RatioHi, c.Speedup(), c.Verdict, c.Looks, c.RatioP50, c.RatioP10, c.RatioP90, 100*c.RatioMAD, c.MinRatio, c.Blocks, c.Pairs)
	s += c.notes()
	if c.CPURatio > 0 {
		s += fmt.Sprintf("; CPU-time ratio %.3f", c.CPURatio)
	}
	return s
}

// minCompareBlocks is the least number of blocks before Compare looks at
// the data, so that one look sees at least 12 blocks' worth of the
// machine's moods.
const minCompareBlocks = 12

// compareMaxBlocks is Compare's block cap when MaxRuns is not set. Equal
// models whose runs spread by 3% took 120-150 blocks of 8 on a simulated
// host to show an interval within ±1% of equality, and a sub-millisecond
// model needed about a thousand to resolve its speedup to ±2%; for models
// of milliseconds, MaxTime is the working limit.
const compareMaxBlocks = 1000

// Compare times sessions a and b alternately, a block of runs of one
// then of the other, A first then B first (so that a slow drift of the
// machine affects both equally; see inRowFirstLook), and runs the
// sequential test described in sequential.go on the ratio of their median latencies.
// After the warm-up (settling both sessions when opts.Settle is set; a
// model whose runs take longer than a block's span warms up one unit,
// then settles, and times in shorter blocks, see blockRunsFor), it
// first looks at the data once opts.Runs runs of each, 24 blocks (12 of
// short blocks or several session pairs, fewer for a slow model; see
// firstLookBlocks and enoughBlocks) and MinTime are behind it,
// and stops at the first look whose 99% interval lies below 1, above 1
// or within ±opts.Precision of 1 (below 1 and, with opts.Resolution,
// within ±Resolution of the ratio, or after ResolutionTime of timing);
// the last look is at MaxRuns (default 1000 blocks) or MaxTime, whatever
// its interval.
func Compare(a, b Session, inA, inB map[string]*graph.Tensor, opts MeasureOptions) (Comparison, error) {
	return ComparePairs([]Session{a}, []Session{b}, inA, inB, opts)
}

// ComparePairs is Compare over several sessions of each model: the pairs
// (as[i], bs[i]) take turns of blocks (pairTurnSpan), each turn starting
// with an untimed block, and the interval's bootstrap
// resamples the pairs before the blocks of each, so that it covers how far
// one session of a model can stray from another (see SessionPairs). The
// first look waits until every pair has had its turn. as and bs must be
// of one length, at least 1.
func ComparePairs(as, bs []Session, inA, inB map[string]*graph.Tensor, opts MeasureOptions) (Comparison, error) {
	defer onOneThread()()
	if len(as) == 0 || len(as) != len(bs) {
		return Comparison{}, fmt.Errorf("comparing %d sessions of A with %d of B: want one or more of each, as many", len(as), len(bs))
	}
	capSet := opts.MaxRuns > 0 && opts.MaxRuns >= opts.Runs
	opts = opts.withDefaults()
	if !capSet {
		opts.MaxRuns = max(opts.MaxRuns, compareMaxBlocks*opts.BlockRuns)
	}
	// unit runs on session pair p, for j = 0, r runs of A then r of B,
	// for j = 1 the other way round: the warm-up's half ABBA units (r =
	// 1).
	unit := func(p, j, r int, ra, rb *timedRuns) error {
		a, b := as[p], bs[p]
		first, second := func() error { return ra.runs(a, inA, r) }, func() error { return rb.runs(b, inB, r) }
		if j == 1 {
			first, second = second, first
		}
		if err := first(); err != nil {
			return err
		}
		return second()
	}
	// block times a block on session pair p: one model's BlockRuns runs
	// in a row, then the other's (A first for order 0, B first for 1; see
	// inRowFirstLook), run k of each paired; the bootstrap resamples
	// blocks.
	block := func(p, order int, ra, rb *timedRuns) error {
		first, second := func() error { return ra.runs(as[p], inA, opts.BlockRuns) }, func() error { return rb.runs(bs[p], inB, opts.BlockRuns) }
		if order == 1 {
			first, second = second, first
		}
		if err := first(); err != nil {
			return err
		}
		return second()
	}
	var scratch timedRuns
	k, warmRun, err := warmUp(opts, len(as), 2, &scratch,
		func(i int) error { return unit(i%len(as), 0, 1, &scratch, &scratch) },
		func(i, k int) error { return unit(pairOf(i, k/bootstrapUnit, len(as)), i%2, 1, &scratch, &scratch) })
	if err != nil {
		return Comparison{}, err
	}
	opts.BlockRuns = k
	turn := turnBlocks(len(as), k, warmRun)
	lay := layout{unit: k, pairs: len(as), turn: turn}
	// Every pair has its turn before the cap.
	opts.MaxRuns = max(opts.MaxRuns, len(as)*turn*k)
	sched := lookSchedule{capBlocks: max(minCompareBlocks, (opts.MaxRuns+k-1)/k)}
	inflation := 1.0
	var ra, rb timedRuns
	start := now()
	for blk := 0; ; blk++ {
		p := pairOf(blk, turn, len(as))
		if len(as) > 1 && blk%turn == 0 {
			// A pair's turn starts with an untimed block, in the other
			// order than the first timed one, which then goes on with
			// the model that ran last (see pairTurnSpan).
			if err := block(p, 1-blk%2, &scratch, &scratch); err != nil {
				return Comparison{}, err
			}
		}
		if err := block(p, blk%2, &ra, &rb); err != nil {
			return Comparison{}, err
		}
		n := len(ra.wall)
		blocks, elapsed := n/k, now().Sub(start)
		if opts.Futility > 0 && len(as) == 1 && blocks%futilityBlocks == 0 && sched.taken == 0 && futile(ra.wall, rb.wall, k, opts.Futility) {
			c := summarizeComparison(&ra, &rb, k, lay, 0, opts.Precision, inflation)
			c.Verdict, c.Futile, c.Elapsed = Undecided, true, elapsed
			return c, nil
		}
		enough := enoughBlocks(blocks, firstLookBlocks(len(as), k), elapsed)
		ready := enough && n >= opts.Runs && elapsed >= opts.MinTime && blocks >= len(as)*turn
		final := opts.atCap(enough, n, elapsed)
		if ready && sched.taken == 0 {
			sched.capBlocks = timeCap(sched.capBlocks, blocks, elapsed, opts.MaxTime)
		}
		look, last := sched.due(blocks, ready, final)
		if !look {
			continue
		}
		c := summarizeComparison(&ra, &rb, k, lay, sched.taken, opts.Precision, inflation)
		c.Elapsed = elapsed
		inflation = c.Inflation
		if opts.judge(&c) || last {
			return c, nil
		}
	}
}

// atCap reports whether a comparison whose models ran n runs each in
// elapsed of timing (enough: blocks enough for a look) is at its cap:
// MaxTime, or MaxRuns once MinTime has passed.
func (opts MeasureOptions) atCap(enough bool, n int, elapsed time.Duration) bool {
	return elapsed >= opts.MaxTime || enough && n >= opts.MaxRuns && elapsed >= opts.MinTime
}

// judge applies the stopping rule to c, a look's figures (its Elapsed
// and Sessions set), and reports whether the comparison stops there: at
// a verdict (NotSlower, with StopNotSlower, set here), a Faster one once
// it shows the gain asked for (GainMargin) and its interval is resolved
// (Resolution, or ResolutionTime reached), or, with MinGain, undecided
// once the interval at smallGainLevel shows B faster by less than that at
// most (SmallGain, set here).
func (opts MeasureOptions) judge(c *Comparison) bool {
	if opts.StopNotSlower && c.Verdict == Undecided && c.RatioHi <= 1+opts.Precision {
		c.Verdict = NotSlower
	}
	// A faster B that does not yet show the gain asked for is, for the
	// caller, not decided.
	short := c.Verdict == Faster && !c.showsGain(minGain(opts.GainMargin, c.Sessions))
	if gain := minGain(opts.MinGain, c.Sessions); gain > 0 && (c.Verdict == Undecided || short) && c.SmallGainLo*(1+gain) > 1 {
		c.SmallGain = true
		return true
	}
	return c.Verdict != Undecided && !short && (c.Verdict != Faster || c.resolved(opts.Resolution) || c.Elapsed >= opts.ResolutionTime)
}

// futilityBlocks is when a comparison with MeasureOptions.Futility set
// checks whether B is clearly slower: every third of minCompareBlocks
// before the first look. Only a
// comparison of one session pair checks: over several, a block is one
// pair's, and a few blocks see a few of the pairs, whose sessions can run
// a sub-millisecond model at paces 2x apart (see SessionPairs).
const futilityBlocks = minCompareBlocks / 3

// medianRatio returns median(b)/median(a) (1 when either is zero).
func medianRatio(a, b []time.Duration) float64 {
	ma, mb := Summarize(slices.Clone(a)).Median, Summarize(slices.Clone(b)).Median
	if ma <= 0 || mb <= 0 {
		return 1
	}
	return float64(mb) / float64(ma)
}

// showsGain reports whether the low end of the speedup's interval is at
// least 1+m (always, for m = 0).
func (c Comparison) showsGain(m float64) bool {
	return m <= 0 || c.RatioHi*(1+m) <= 1
}

// resolved reports whether the interval lies within ±r of the ratio,
// log-symmetrically (always, for r = 0).
func (c Comparison) resolved(r float64) bool {
	return r <= 0 || c.RatioHi <= c.Ratio*(1+r) && c.RatioLo >= c.Ratio/(1+r)
}

// timedRuns records the wall and CPU time of each run of one session.
type timedRuns struct {
	wall, cpu []time.Duration
}

// run times one run of s.
func (t *timedRuns) run(s Session, in map[string]*graph.Tensor) error {
	return t.runs(s, in, 1)
}

// runs times k runs of s in a row and records the CPU time once for all
// of them, as k runs of its mean: between the runs of a block nothing
// but the run itself happens, as in a user's loop (see cpuTime's cost).
func (t *timedRuns) runs(s Session, in map[string]*graph.Tensor, k int) error {
	c0 := cpuTime()
	for range k {
		d, err := timedRun(s, in)
		if err != nil {
			return err
		}
		t.wall = append(t.wall, d)
	}
	per := (cpuTime() - c0) / time.Duration(k)
	for range k {
		t.cpu = append(t.cpu, per)
	}
	return nil
}

// summarizeComparison computes the figures of one look at the runs (in
// blocks of k, resampled as lay says) and reads its interval with the equivalence margin;
// inflation is the largest long-run inflation an earlier look found.
func summarizeComparison(ra, rb *timedRuns, k int, lay layout, looks int, margin, inflation float64) Comparison {
	pairs := lay.pairs
	c := Comparison{
		A: summarizeRuns(ra.wall, k), B: summarizeRuns(rb.wall, k),
		Pairs: len(ra.wall), Blocks: len(ra.wall) / k, Sessions: pairs, Looks: looks,
	}
	c.Ratio, c.RatioLo, c.RatioHi, c.Inflation = 1, 0, math.Inf(1), inflation
	if c.A.Median > 0 && c.B.Median > 0 {
		c.Ratio = float64(c.B.Median) / float64(c.A.Median)
		c.RatioLo, c.RatioHi, c.SmallGainLo, c.Inflation = ratioInterval(ra.wall, rb.wall, lay, lookLevel, inflation)
	}
	c.Verdict = verdictOf(c.RatioLo, c.RatioHi, margin)
	if pr := pairRatios(ra.wall, rb.wall); len(pr) > 0 {
		c.RatioP50, c.RatioP10, c.RatioP90 = quantile(pr, 0.5), quantile(pr, 0.1), quantile(pr, 0.9)
		c.RatioMAD = relMAD(pr, c.RatioP50)
	}
	if br := blockRatios(ra.wall, rb.wall, k); len(br) > 0 {
		sort.Float64s(br)
		c.MinRatio = quantile(br, 0.5)
	}
	if ca, cb := Summarize(append([]time.Duration(nil), ra.cpu...)), Summarize(append([]time.Duration(nil), rb.cpu...)); ca.Median > 0 && cb.Median > 0 {
		c.CPURatio = float64(cb.Median) / float64(ca.Median)
	}
	return c
}

// futile reports whether b reads more than f slower than a both by the
// ratio of their medians and by the median over blocks of the ratio of
// each block's fastest runs: a burst of load on b's runs raises the first
// and not the second. On the LLaMA-style decoder, 7% faster by block
// minima, the medians of its first 4 blocks read 11% slower, and
// never-slower stopped there and wrote the original.
func futile(a, b []time.Duration, k int, f float64) bool {
	if medianRatio(a, b) <= 1+f {
		return false
	}
	br := blockRatios(a, b, k)
	if len(br) == 0 {
		return true
	}
	sort.Float64s(br)
	return quantile(br, 0.5) > 1+f
}

// pairRatios returns b[i]/a[i] for every pair whose a run took time,
// sorted.
func pairRatios(a, b []time.Duration) []float64 {
	var out []float64
	for i := range min(len(a), len(b)) {
		if a[i] > 0 {
			out = append(out, float64(b[i])/float64(a[i]))
		}
	}
	sort.Float64s(out)
	return out
}

// blockRatios returns, for each complete block of k runs, the fastest run
// of b over the fastest run of a. Blocks in which a's fastest run took no
// time (a clock too coarse) are left out.
func blockRatios(a, b []time.Duration, k int) []float64 {
	var out []float64
	for s := 0; s+k <= len(a) && s+k <= len(b); s += k {
		ma, mb := minOf(a[s:s+k]), minOf(b[s:s+k])
		if ma > 0 {
			out = append(out, float64(mb)/float64(ma))
		}
	}
	return out
}

func minOf(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds[1:] {
		m = min(m, d)
	}
	return m
}

// relMAD returns the median absolute deviation of sorted from med,
// relative to med.
func relMAD(sorted []float64, med float64) float64 {
	if med == 0 {
		return 0
	}
	dev := make([]float64, len(sorted))
	for i, v := range sorted {
		dev[i] = math.Abs(v - med)
	}
	sort.Float64s(dev)
	return quantile(dev, 0.5) / med
}

// minGain returns the least gain a comparison over sessions pairs acts
// on, given the least asked (MeasureOptions.MinGain or GainMargin): at
// least ShortGainMargin over several pairs, where DecideNotSlower writes
// nothing gaining less; 0 (none) when least is 0.
func minGain(least float64, sessions int) float64 {
	if least > 0 && sessions > 1 {
		return max(least, ShortGainMargin)
	}
	return least
}
