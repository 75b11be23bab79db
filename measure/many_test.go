package measure

import (
	"math"
	"testing"
	"time"
)

// manyOnHost compares a session of 1 ms against sessions of factors[i]
// ms on one host (seed, run-to-run spread 3%), each with seqOpts changed
// by set(i, ...).
func manyOnHost(t *testing.T, seed uint64, factors []float64, set func(int, *MeasureOptions)) ([]Comparison, *hostSession, []Session) {
	t.Helper()
	h := newHost(t, seed, 0.03)
	a := &hostSession{h: h, d: time.Millisecond}
	var bs []Session
	opts := make([]MeasureOptions, len(factors))
	for i, f := range factors {
		bs = append(bs, &hostSession{h: h, d: time.Duration(f * float64(time.Millisecond)), other: a})
		opts[i] = seqOpts
		set(i, &opts[i])
	}
	a.other = bs[0].(*hostSession)
	cs, err := CompareMany(a, bs, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return cs, a, bs
}

// TestCompareManyVerdicts: one candidate 10% faster, one as fast, one
// 10% slower, timed against A in one run. Each gets the verdict Compare
// gives it, its interval holding its true ratio; the clear ones stop at
// the first look and leave the rotation, the equal one goes on; the
// speedup agrees with the medians.
func TestCompareManyVerdicts(t *testing.T) {
	factors := []float64{0.9, 1, 1.1}
	want := []Verdict{Faster, Equivalent, Slower}
	cs, a, bs := manyOnHost(t, 7, factors, func(int, *MeasureOptions) {})
	for i, c := range cs {
		if c.Verdict != want[i] || c.RatioLo > factors[i] || c.RatioHi < factors[i] {
			t.Errorf("candidate %d (%.1fx the latency): want %v, its interval holding %.2f; got %v", i, factors[i], want[i], factors[i], c)
		}
		if got := float64(c.A.Median) / float64(c.B.Median); math.Abs(got-c.Speedup()) > 1e-12 {
			t.Errorf("candidate %d: speedup %.6f is not before/after %.6f", i, c.Speedup(), got)
		}
		if runs := bs[i].(*hostSession).runs; runs < c.Pairs {
			t.Errorf("candidate %d: %d runs, %d timed", i, runs, c.Pairs)
		}
	}
	if cs[0].Looks != 1 || cs[2].Looks != 1 || cs[1].Looks <= 1 {
		t.Errorf("want the clear candidates decided at the first look, the equal one later; looks %d, %d, %d", cs[0].Looks, cs[1].Looks, cs[2].Looks)
	}
	// A ran once for every run of the longest-timed candidate (plus the
	// warm-up): two comparisons of their own would have run it for each.
	if a.runs >= cs[0].Pairs+cs[1].Pairs+cs[2].Pairs {
		t.Errorf("A ran %d times for comparisons of %d, %d and %d pairs: its runs are not shared", a.runs, cs[0].Pairs, cs[1].Pairs, cs[2].Pairs)
	}
}

// TestCompareManyRunOrder: the timed runs go A, then each candidate, two
// runs of each, then back (AABBCC CCBBAA), after one warm-up half-unit of
// single runs; a candidate that stops leaves the order to the others.
func TestCompareManyRunOrder(t *testing.T) {
	clock := useFakeClock(t)
	var log []byte
	a := &orderSession{clock: clock, name: 'A', log: &log, vary: 300 * time.Microsecond}
	b := &orderSession{clock: clock, name: 'B', log: &log}
	c := &orderSession{clock: clock, name: 'C', log: &log, vary: 300 * time.Microsecond}
	opts := seqOpts
	opts.BlockRuns, opts.Runs = 4, 8
	fast := opts
	fast.MaxRuns = 4 * minCompareBlocks
	slow := opts
	slow.MaxRuns, slow.Precision = 8*minCompareBlocks, 1e-4
	cs, err := CompareMany(a, []Session{b, c}, nil, []MeasureOptions{fast, slow})
	if err != nil {
		t.Fatal(err)
	}
	skip := 3 * opts.Warmup
	if want, got := "AABBCCCCBBAA", string(log[skip:skip+12]); got != want {
		t.Errorf("timed runs start %s, want %s", got, want)
	}
	if cs[0].Pairs >= cs[1].Pairs {
		t.Fatalf("B (cap %d runs) timed %d pairs, C (cap %d) %d: want B stopped first", fast.MaxRuns, cs[0].Pairs, slow.MaxRuns, cs[1].Pairs)
	}
	if want, got := "AACCCCAA", string(log[len(log)-8:]); got != want {
		t.Errorf("after B stopped the runs end %s, want %s", got, want)
	}
}

// TestCompareManyOwnTime: each candidate's MaxTime counts its own runs
// and A's, the time a comparison of its own would take: a candidate
// capped at 1 s stops there, undecided (equal models on a noisy host),
// while one capped at 3 s goes on, and every candidate's Elapsed is within
// a block of its cap.
func TestCompareManyOwnTime(t *testing.T) {
	caps := []time.Duration{time.Second, 3 * time.Second}
	cs, _, _ := manyOnHost(t, 11, []float64{1, 1}, func(i int, o *MeasureOptions) {
		o.MaxTime, o.Precision = caps[i], 0.001
	})
	for i, c := range cs {
		if c.Elapsed < caps[i] || c.Elapsed > caps[i]+50*time.Millisecond || c.Verdict != Undecided {
			t.Errorf("candidate %d, cap %v: want undecided at the cap; got %v after %v", i, caps[i], c, c.Elapsed)
		}
	}
	if cs[0].Pairs >= cs[1].Pairs || cs[0].Looks > cs[1].Looks || cs[1].Looks > compareLooks {
		t.Errorf("want the 1 s candidate stopped first, no more than %d looks each; got %d pairs, %d looks and %d pairs, %d looks",
			compareLooks, cs[0].Pairs, cs[0].Looks, cs[1].Pairs, cs[1].Looks)
	}
}

// TestCompareManyFutility: a candidate 20% slower stops before the first
// look (Futility 5%), as in Compare; the one 10% faster goes on to its
// verdict.
func TestCompareManyFutility(t *testing.T) {
	cs, _, _ := manyOnHost(t, 3, []float64{1.2, 0.9}, func(_ int, o *MeasureOptions) { o.Futility = 0.05 })
	if !cs[0].Futile || cs[0].Verdict != Undecided || cs[0].Blocks != futilityBlocks {
		t.Errorf("want the slow candidate stopped for futility after %d blocks; got %v (futile %v, %d blocks)", futilityBlocks, cs[0], cs[0].Futile, cs[0].Blocks)
	}
	if cs[1].Futile || cs[1].Verdict != Faster {
		t.Errorf("want the fast candidate shown faster; got %v", cs[1])
	}
}

// TestCompareManyStopDominated: with StopDominated, a candidate 1% faster
// and one as fast as A stop, undecided and dominated, at the look that
// shows the one 20% faster faster, their intervals wholly above its;
// without it they are timed on, for more blocks. The fast candidate's
// comparison is the same either way.
func TestCompareManyStopDominated(t *testing.T) {
	factors := []float64{0.8, 0.99, 1}
	for seed := uint64(20); seed < 24; seed++ {
		on, _, _ := manyOnHost(t, seed, factors, func(_ int, o *MeasureOptions) { o.StopDominated = true })
		off, _, _ := manyOnHost(t, seed, factors, func(int, *MeasureOptions) {})
		if on[0].Verdict != Faster || on[0].Dominated || on[0].Blocks != off[0].Blocks {
			t.Errorf("seed %d: the fast candidate: %v (dominated %v), without the stop %v", seed, on[0], on[0].Dominated, off[0])
		}
		for i := 1; i < len(factors); i++ {
			c := on[i]
			if !c.Dominated || c.Verdict != Undecided || c.RatioLo <= on[0].RatioHi || c.Looks != on[0].Looks {
				t.Errorf("seed %d, candidate %d: want dominated at look %d, its interval above %.4f; got %v (dominated %v, look %d)", seed, i, on[0].Looks, on[0].RatioHi, c, c.Dominated, c.Looks)
			}
			if off[i].Dominated || off[i].Blocks <= c.Blocks {
				t.Errorf("seed %d, candidate %d: without the stop %d blocks (dominated %v), with it %d", seed, i, off[i].Blocks, off[i].Dominated, c.Blocks)
			}
		}
	}
}

// TestCompareManyFalseVerdicts: two candidates identical to A on a noisy
// host, many times. Each candidate's test keeps Compare's error rate: it
// says "faster" in at most half of 1% of the runs (with an allowance for
// the count's noise), and its interval leaves 1 out in at most 1%.
func TestCompareManyFalseVerdicts(t *testing.T) {
	trials := 60
	if raceEnabled {
		trials = 10
	}
	var faster, misses int
	for i := range trials {
		cs, _, _ := manyOnHost(t, uint64(3000+i), []float64{1, 1}, func(_ int, o *MeasureOptions) {
			o.Runs, o.MaxRuns = 96, 48*8
		})
		for _, c := range cs {
			if c.Verdict == Faster {
				faster++
			}
			if c.Significant() {
				misses++
			}
		}
	}
	t.Logf("%d trials of 2 candidates: %d said faster, %d intervals without 1", trials, faster, misses)
	if !raceEnabled && (faster > 3 || misses > 6) {
		t.Errorf("identical models: %d of %d comparisons said faster, %d left 1 out; allowed 3 (2.5%%) and 6 (5%%)", faster, 2*trials, misses)
	}
}

// TestCompareManyArguments: no candidate, or options not one per
// candidate, is an error.
func TestCompareManyArguments(t *testing.T) {
	clock := useFakeClock(t)
	var log []byte
	a := &orderSession{clock: clock, name: 'A', log: &log}
	if _, err := CompareMany(a, nil, nil, nil); err == nil {
		t.Error("no candidates: want an error")
	}
	if _, err := CompareMany(a, []Session{a}, nil, []MeasureOptions{seqOpts, seqOpts}); err == nil {
		t.Error("two option sets for one candidate: want an error")
	}
}
