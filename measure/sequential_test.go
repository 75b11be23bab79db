package measure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// host is a fake machine shared by the sessions of one test. Each run
// takes its session's latency times the host's slowness, which drifts
// from run to run (other tenants coming and going), times a log-normal
// run-to-run factor; with probability spike a run is also descheduled for
// up to half its time more. With probability spell per run, a slow spell
// of up to 2*spellRuns runs begins in which one session (either, at
// random) runs 20% slower: a busy machine that slows one model's threads
// more than the other's for a while.
type host struct {
	clock     *fakeClock
	r         *rand.Rand
	slow      float64
	drift     float64
	spread    float64
	spike     float64
	spell     float64
	spellRuns int
	left      int
	slowed    *hostSession
}

func (h *host) run(s *hostSession) {
	h.slow = 1 + 0.98*(h.slow-1) + h.drift*h.r.NormFloat64()
	v := float64(s.d) * h.slow * math.Exp(h.spread*h.r.NormFloat64())
	if h.r.Float64() < h.spike {
		v += 0.5 * float64(s.d) * h.r.Float64()
	}
	if h.left == 0 && h.r.Float64() < h.spell {
		h.left, h.slowed = 1+h.r.IntN(2*h.spellRuns), s
		if h.r.IntN(2) == 0 {
			h.slowed = s.other
		}
	}
	if h.left > 0 {
		h.left--
		if h.slowed == s {
			v *= 1.2
		}
	}
	h.clock.t = h.clock.t.Add(time.Duration(v))
}

// hostSession runs for d on its host; other is the session it is
// compared with.
type hostSession struct {
	h *host
	d time.Duration
	// later, when set, is the latency after switchAfter runs (a session
	// that changes mode); runs counts the runs so far.
	later       time.Duration
	switchAfter int
	// burst, when set, is the latency of three runs in four of the first
	// burstRuns (a burst of load on this session's runs).
	burst     time.Duration
	burstRuns int
	runs      int
	other     *hostSession
}

func (s *hostSession) Run(map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	s.runs++
	if s.later > 0 && s.runs > s.switchAfter {
		s.d = s.later
	}
	d := s.d
	if s.runs <= s.burstRuns && s.runs%4 != 0 {
		s.d = s.burst
	}
	s.h.run(s)
	s.d = d
	return nil, nil
}

// hostPair returns sessions of latency d and factor*d on h.
func hostPair(h *host, d time.Duration, factor float64) (a, b *hostSession) {
	a = &hostSession{h: h, d: d}
	b = &hostSession{h: h, d: time.Duration(factor * float64(d)), other: a}
	a.other = b
	return a, b
}

func (s *hostSession) Close() error { return nil }

func newHost(t *testing.T, seed uint64, spread float64) *host {
	return &host{clock: useFakeClock(t), r: rand.New(rand.NewPCG(seed, 17)), slow: 1, drift: 0.005, spread: spread, spike: 0.1}
}

// compareOnHost compares sessions of 1 ms and factor ms a run on a host
// of seed and run-to-run spread, with seqOpts changed by set.
func compareOnHost(t *testing.T, seed uint64, spread, factor float64, set func(*MeasureOptions)) Comparison {
	t.Helper()
	a, b := hostPair(newHost(t, seed, spread), time.Millisecond, factor)
	opts := seqOpts
	set(&opts)
	c, err := Compare(a, b, nil, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// seqOpts are the options of the synthetic comparisons: no settling (the
// fake sessions need none) and no least time.
var seqOpts = MeasureOptions{Warmup: 1, BlockRuns: 8, MaxTime: time.Hour}

// TestFutilityAfterAModeChange: B runs as fast as A for its first four
// blocks, then 20% slower (the machine's latency changing mode). The
// look after a third of the first look's blocks sees it equal; the one
// after two thirds stops it, undecided.
func TestFutilityAfterAModeChange(t *testing.T) {
	a, b := hostPair(newHost(t, 3, 0.03), time.Millisecond, 1)
	b.later, b.switchAfter = 1200*time.Microsecond, 1+futilityBlocks*seqOpts.BlockRuns
	opts := seqOpts
	opts.Futility = 0.05
	cmp, err := Compare(a, b, nil, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Futile || cmp.Verdict != Undecided || cmp.Blocks != 2*futilityBlocks {
		t.Errorf("want a futile stop after %d blocks; got %v (futile %v, %d blocks)", 2*futilityBlocks, cmp, cmp.Futile, cmp.Blocks)
	}
}

// TestNoFutilityInABurst: B is 7% faster, but three of every four of its
// runs in the first blocks are 25% slower than A (load that comes and
// goes). Its medians read slower there, its block minima faster: the
// comparison goes on and shows it faster.
func TestNoFutilityInABurst(t *testing.T) {
	a, b := hostPair(newHost(t, 5, 0.03), time.Millisecond, 0.93)
	b.burst, b.burstRuns = 1250*time.Microsecond, 2*futilityBlocks*seqOpts.BlockRuns+8
	opts := seqOpts
	opts.Futility = 0.05
	cmp, err := Compare(a, b, nil, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Futile || cmp.Verdict != Faster {
		t.Errorf("want B shown faster, no futile stop; got %v (futile %v, %d blocks)", cmp, cmp.Futile, cmp.Blocks)
	}
}

func TestSequentialVerdicts(t *testing.T) {
	type verdictCase struct {
		name       string
		factor     float64 // latency(B)/latency(A)
		resolution float64
		want       Verdict
		maxLooks   int
		futility   float64
		futile     bool
	}
	for i, c := range []verdictCase{
		{"identical", 1, 0, Equivalent, compareLooks, 0, false},
		{"10% faster", 0.9, 0, Faster, 1, 0, false},
		{"10% slower", 1.1, 0, Slower, 1, 0, false},
		{"3% faster", 0.97, 0, Faster, compareLooks, 0, false},
		{"10% faster, resolved to 1%", 0.9, 0.01, Faster, compareLooks, 0, false},
		// Futility: B clearly slower stops before the first look,
		// undecided; a little slower, or faster, goes on as before.
		{"20% slower, futility 5%", 1.2, 0, Undecided, 0, 0.05, true},
		{"3% slower, futility 5%", 1.03, 0, Slower, compareLooks, 0.05, false},
		{"10% faster, futility 5%", 0.9, 0, Faster, 1, 0.05, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := hostPair(newHost(t, uint64(i), 0.03), time.Millisecond, c.factor)
			opts := seqOpts
			opts.Resolution, opts.Futility = c.resolution, c.futility
			cmp, err := Compare(a, b, nil, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Verdict != c.want || cmp.Looks > c.maxLooks || cmp.Futile != c.futile {
				t.Errorf("want %v within %d looks, futile %v; got %v (futile %v)", c.want, c.maxLooks, c.futile, cmp, cmp.Futile)
			}
			if c.futile && cmp.Blocks != futilityBlocks {
				t.Errorf("stopped for futility after %d blocks, want %d", cmp.Blocks, futilityBlocks)
			}
			if testing.Verbose() {
				t.Log(cmp)
			}
			if !cmp.resolved(c.resolution) || c.resolution > 0 && cmp.Looks == 1 {
				t.Errorf("want the interval within ±%.0f%% of the ratio, reached after the first look: %v", 100*c.resolution, cmp)
			}
			if cmp.RatioLo > c.factor || cmp.RatioHi < c.factor {
				t.Errorf("the 99%% interval misses the true ratio %.3f: %v", c.factor, cmp)
			}
			if got := float64(cmp.A.Median) / float64(cmp.B.Median); math.Abs(got-cmp.Speedup()) > 1e-12 {
				t.Errorf("speedup %.6f is not before/after %.6f", cmp.Speedup(), got)
			}
		})
	}
}

// TestSequentialSmallGain: with MinGain 1%, a model 0.5% slower stops,
// undecided, as soon as the interval at smallGainLevel shows it faster by
// less than 1% at most, sooner than without (which goes on until the
// interval lies within ±1% or above 1); a model 3% faster is still shown
// faster, one 5% slower still slower.
func TestSequentialSmallGain(t *testing.T) {
	for i, c := range []struct {
		name      string
		factor    float64
		want      Verdict
		smallGain bool
	}{
		{"0.5% slower", 1.005, Undecided, true},
		{"3% faster", 0.97, Faster, false},
		{"5% slower", 1.05, Slower, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(minGain float64) Comparison {
				return compareOnHost(t, uint64(40+i), 0.03, c.factor, func(o *MeasureOptions) { o.MinGain = minGain })
			}
			cmp, without := run(0.01), run(0)
			if cmp.Verdict != c.want || cmp.SmallGain != c.smallGain {
				t.Errorf("want %v, small gain %v; got %v (small gain %v)", c.want, c.smallGain, cmp, cmp.SmallGain)
			}
			if c.smallGain {
				// The stop reads the interval at smallGainLevel.
				if hi := 1 / cmp.SmallGainLo; cmp.SmallGainLo <= 0 || hi >= 1.01 {
					t.Errorf("stopped with the speedup's interval at smallGainLevel reaching %.4f", hi)
				}
				if cmp.Blocks >= without.Blocks {
					t.Errorf("stopped after %d blocks, without MinGain %d: want sooner", cmp.Blocks, without.Blocks)
				}
			}
		})
	}
}

// TestSmallGainLooseLevel: a model that gains nothing (0.3% faster),
// timed with never-slower's least gain (2%), stops for a small gain after
// fewer blocks when that stop reads the 95% interval than when it reads
// the 99% one, over every seed; a model 4% faster is still shown faster
// at either level, and the loose low end lies between the strict one and
// the ratio.
func TestSmallGainLooseLevel(t *testing.T) {
	run := func(seed uint64, factor, level float64) Comparison {
		saved := smallGainLevel
		smallGainLevel = level
		defer func() { smallGainLevel = saved }()
		return compareOnHost(t, seed, 0.03, factor, func(o *MeasureOptions) { o.MinGain = 0.02 })
	}
	looseBlocks, strictBlocks := 0, 0
	for seed := uint64(60); seed < 66; seed++ {
		loose, strict := run(seed, 0.997, 0.05), run(seed, 0.997, lookLevel)
		if !loose.SmallGain || !strict.SmallGain {
			t.Errorf("seed %d: want small-gain stops at both levels; got %v (small gain %v) and %v (small gain %v)", seed, loose, loose.SmallGain, strict, strict.SmallGain)
		}
		if loose.SmallGainLo < loose.RatioLo || loose.SmallGainLo > loose.Ratio {
			t.Errorf("seed %d: loose low end %.4f outside [%.4f, %.4f]", seed, loose.SmallGainLo, loose.RatioLo, loose.Ratio)
		}
		if loose.Blocks > strict.Blocks {
			t.Errorf("seed %d: loose stop after %d blocks, strict after %d", seed, loose.Blocks, strict.Blocks)
		}
		looseBlocks += loose.Blocks
		strictBlocks += strict.Blocks
		if c := run(seed, 0.96, 0.05); c.Verdict != Faster || c.SmallGain {
			t.Errorf("seed %d: 4%% faster: want faster; got %v (small gain %v)", seed, c, c.SmallGain)
		}
	}
	if looseBlocks >= strictBlocks {
		t.Errorf("loose level: %d blocks over the seeds, strict %d: want fewer", looseBlocks, strictBlocks)
	}
	t.Logf("blocks to a small-gain stop: %d at 95%%, %d at 99.875%%", looseBlocks, strictBlocks)
}

// TestSequentialFalseVerdicts compares identical models on a noisy host
// many times, with a cap low enough that most comparisons take all their
// looks. On a steady host the sequential test may say "faster" in at most
// half its 1% error rate (the other half is "slower"), however many looks
// it takes. On a host with slow spells that favour one model or the other
// for up to 100 runs, which the bootstrap alone takes for a difference,
// the widened intervals do not hold the 1% level: a spell that covers
// most of a first look (192 runs) is a step no batch within it shows.
// Over 1,000 other seeds (50,000 on), 2.4% of such tests said faster and
// 5.4% of their last intervals left 1 out, in AABB units; 3.0% and 5.2%
// in the ABBA units timed before (measure.bootstrapUnit). The bootstrap
// alone was wrong in 6.5% of such tests. The limits here are those
// rates, rounded up: the test fails when the widening stops working.
func TestSequentialFalseVerdicts(t *testing.T) {
	trials := 200
	if raceEnabled {
		trials = 20 // the race detector slows the bootstrap tenfold
	}
	opts := seqOpts
	opts.Runs, opts.MaxRuns = 96, 48*8
	for _, c := range []struct {
		spell             float64
		maxFaster, maxOut float64 // fractions of the trials
	}{
		{0, 0.005, 0.01},
		{0.01, 0.03, 0.06},
	} {
		var faster, misses, looks int
		for i := range trials {
			h := newHost(t, uint64(1000+i), 0.04)
			h.spell, h.spellRuns = c.spell, 50
			a, b := hostPair(h, time.Millisecond, 1)
			cmp, err := Compare(a, b, nil, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Verdict == Faster {
				faster++
			}
			if cmp.Significant() {
				misses++
			}
			looks += cmp.Looks
		}
		t.Logf("spells %.2f, %d trials: %d faster, %d intervals without 1, %.1f looks on average", c.spell, trials, faster, misses, float64(looks)/float64(trials))
		if raceEnabled {
			// 20 trials cannot measure a rate of 1.5%: under the race
			// detector the comparisons run for their data races only;
			// the rates are checked by the plain run of the suite.
			continue
		}
		if float64(faster) > c.maxFaster*float64(trials) || float64(misses) > c.maxOut*float64(trials) {
			t.Errorf("identical models, spells %.2f: %d of %d said faster, %d of %d intervals left 1 out; allowed %.1f%% and %.1f%%",
				c.spell, faster, trials, misses, trials, 100*c.maxFaster, 100*c.maxOut)
		}
	}
}

func TestLookSchedule(t *testing.T) {
	s := lookSchedule{capBlocks: 300}
	var at []int
	for blocks := 1; blocks <= 400; blocks++ {
		look, last := s.due(blocks, blocks >= 12, blocks >= 300)
		if look {
			at = append(at, blocks)
		}
		if last {
			break
		}
	}
	if len(at) != compareLooks || at[0] != 12 || at[len(at)-1] != 300 {
		t.Errorf("looks at %v: want %d, from 12 to the cap 300", at, compareLooks)
	}
	s = lookSchedule{capBlocks: 300}
	s.due(12, true, false)
	if look, last := s.due(13, true, true); !look || !last {
		t.Error("a time cap forces a last look")
	}
}

// BenchmarkRatioInterval times one look's bootstrap at the first look's
// size, a middle one and the default cap's.
func BenchmarkRatioInterval(b *testing.B) {
	for _, n := range []int{96, 384, 2400} {
		r := rand.New(rand.NewPCG(1, 2))
		x := make([]time.Duration, n)
		y := make([]time.Duration, n)
		for i := range x {
			x[i] = time.Duration(1e6 * (1 + 0.05*r.NormFloat64()))
			y[i] = time.Duration(1e6 * (1 + 0.05*r.NormFloat64()))
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				ratioInterval(x, y, layout{unit: 8, pairs: 1, turn: 1}, lookLevel, 1)
			}
		})
	}
}

// TestComparePairsCoversSessionModes compares identical models whose
// sessions each run at their own pace for their whole life: a quarter of
// them twice as slow, as sessions of a sub-millisecond model can be. With
// one pair of sessions the test takes a difference of sessions for one of
// models; over shortPairs pairs, resampled as pairs, its interval must
// hold 1 as often as its level says.
func TestComparePairsCoversSessionModes(t *testing.T) {
	trials := 200
	if raceEnabled {
		trials = 10
	}
	opts := seqOpts
	opts.Runs, opts.MaxRuns = 96, 24*8
	for _, c := range []struct {
		pairs, trials int
		// The share of intervals leaving 1 out must lie in [least, most];
		// with one pair it must be large: the problem is real.
		least, most float64
	}{{1, trials / 4, 0.2, 1}, {shortPairs, trials, 0, 0.01}} {
		misses, widths := 0, []float64(nil)
		for i := range c.trials {
			clock := useFakeClock(t)
			r := rand.New(rand.NewPCG(uint64(i), 23))
			session := func() Session {
				d := time.Millisecond
				if r.IntN(4) == 0 {
					d *= 2
				}
				return &sleepSession{clock: clock, d: d, jitter: 0.05, r: r}
			}
			var as, bs []Session
			for range c.pairs {
				as, bs = append(as, session()), append(bs, session())
			}
			cmp, err := ComparePairs(as, bs, nil, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Significant() {
				misses++
			}
			if math.IsInf(cmp.RatioHi, 1) {
				t.Fatalf("%d pairs: no interval after %d blocks (%v)", c.pairs, cmp.Blocks, cmp)
			}
			widths = append(widths, cmp.RatioHi/cmp.RatioLo)
		}
		slices.Sort(widths)
		t.Logf("%d pairs: %d of %d intervals without 1, median hi/lo %.3f", c.pairs, misses, c.trials, widths[len(widths)/2])
		if raceEnabled {
			// 2 and 10 trials cannot measure these shares: under the race
			// detector the comparisons run for their data races only; the
			// shares are checked by the plain run of the suite.
			continue
		}
		if share := float64(misses) / float64(c.trials); share < c.least || share > c.most {
			t.Errorf("%d pairs: %d of %d intervals left 1 out, want a share in [%.2f, %.2f]", c.pairs, misses, c.trials, c.least, c.most)
		}
	}
}

// TestResolutionTime asks for a resolution the host's noise cannot reach:
// the comparison stops at the first look after ResolutionTime, faster,
// not at the cap.
func TestResolutionTime(t *testing.T) {
	a, b := hostPair(newHost(t, 11, 0.03), time.Millisecond, 0.9)
	opts := seqOpts
	opts.Resolution, opts.ResolutionTime = 0.0001, 400*time.Millisecond
	cmp, err := Compare(a, b, nil, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	timed := time.Duration(2*cmp.Pairs) * time.Millisecond
	if cmp.Verdict != Faster || cmp.Looks < 2 || cmp.Looks >= compareLooks || timed < opts.ResolutionTime {
		t.Errorf("want faster after the first look past %v of timing, before the last look; got %v (about %v timed)", opts.ResolutionTime, cmp, timed)
	}
}

// TestStopNotSlower: B 0.5% faster on a noisy host; the comparison asked
// to stop once B is shown not slower does so at an earlier look than the
// one waiting for an interval wholly below 1, and never says slower.
func TestStopNotSlower(t *testing.T) {
	run := func(stop bool) Comparison {
		return compareOnHost(t, 21, 0.03, 0.995, func(o *MeasureOptions) { o.StopNotSlower = stop })
	}
	plain, stop := run(false), run(true)
	if stop.Verdict != NotSlower || stop.Looks >= plain.Looks || stop.RatioHi > 1.01 {
		t.Errorf("want not slower (interval below 1.01) before the plain test's %d looks (%v); got %v", plain.Looks, plain.Verdict, stop)
	}
}

// TestMinGainOverSessions: over several session pairs the least gain a
// comparison goes on for is at least ShortGainMargin, as DecideNotSlower
// writes nothing that gains less there; 0 stays 0 (no such stop).
func TestMinGainOverSessions(t *testing.T) {
	for _, c := range []struct {
		least    float64
		sessions int
		want     float64
	}{
		{0, 1, 0}, {0, 8, 0}, {0.01, 1, 0.01}, {0.01, 8, ShortGainMargin}, {0.05, 8, 0.05},
	} {
		if got := minGain(c.least, c.sessions); got != c.want {
			t.Errorf("minGain(%v, %d) = %v, want %v", c.least, c.sessions, got, c.want)
		}
	}
}

// turnLog records the session pair of every run of a comparison, in order.
type turnLog struct {
	clock *fakeClock
	pairs []int
}

// turnSession is one model's session of pair p: it runs for d, or for
// 3*d in its first three runs after another pair's (its caches cold).
type turnSession struct {
	log  *turnLog
	p    int
	d    time.Duration
	cold int
	peer *turnSession
}

func (s *turnSession) Run(map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	if n := len(s.log.pairs); n > 0 && s.log.pairs[n-1] != s.p {
		s.cold, s.peer.cold = 3, 3
	}
	d := s.d
	if s.cold > 0 {
		d *= 3
		s.cold--
	}
	s.log.pairs = append(s.log.pairs, s.p)
	s.log.clock.t = s.log.clock.t.Add(d)
	return nil, nil
}

func (s *turnSession) Close() error { return nil }

// TestPairsTakeTurns compares three session pairs of models 500 µs and
// 400 µs a run whose first three runs after another pair's are three
// times as slow, in blocks of 4 runs. After the warm-up (one unit a
// pair), the pairs take turns in order, each of the same whole number of
// blocks (those of pairTurnSpan: several here) after an untimed block,
// so that no timed run is cold: the figures are exact, up to the 90th
// percentile. The first look comes only once every pair has had its
// turn.
func TestPairsTakeTurns(t *testing.T) {
	log := &turnLog{clock: useFakeClock(t)}
	const pairs = 3
	var as, bs []Session
	for p := range pairs {
		a := &turnSession{log: log, p: p, d: 500 * time.Microsecond}
		b := &turnSession{log: log, p: p, d: 400 * time.Microsecond, peer: a}
		a.peer = b
		as, bs = append(as, a), append(bs, b)
	}
	opts := seqOpts
	opts.BlockRuns, opts.Runs, opts.MaxRuns = 4, 8, 4*minCompareBlocks
	cmp, err := ComparePairs(as, bs, nil, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.A.P90 != 500*time.Microsecond || cmp.B.P90 != 400*time.Microsecond || cmp.Ratio != 0.8 {
		t.Errorf("cold runs were timed: 90th percentiles %v and %v, ratio %v; want 500µs, 400µs, 0.8", cmp.A.P90, cmp.B.P90, cmp.Ratio)
	}
	timed := log.pairs[opts.Warmup*pairs*2:]
	turn := 0 // runs of a turn, untimed ones included: those of the first
	for turn < len(timed) && timed[turn] == timed[0] {
		turn++
	}
	warm, block := 2*opts.BlockRuns, 2*opts.BlockRuns
	if blocks := (turn - warm) / block; turn == len(timed) || blocks < 2 || warm+blocks*block != turn {
		t.Fatalf("a turn of %d runs: want %d untimed and two or more blocks of %d", turn, warm, block)
	}
	for i, start := 0, 0; start < len(timed); i, start = i+1, start+turn {
		seg := timed[start:min(start+turn, len(timed))]
		for _, p := range seg {
			if p != i%pairs {
				t.Fatalf("turn %d (runs %d-%d after the warm-up) ran pairs %v, want only pair %d", i, start, start+len(seg)-1, seg, i%pairs)
			}
		}
	}
	if want := len(timed)/turn*(turn-warm) + max(0, len(timed)%turn-warm); want != 2*cmp.Pairs {
		t.Errorf("%d runs after the warm-up, %d timed; want %d timed", len(timed), 2*cmp.Pairs, want)
	}
	if cmp.Looks < 1 || 2*cmp.Pairs < pairs*(turn-warm) {
		t.Errorf("looked after %d pairs of runs, before each of %d session pairs had a turn of %d", cmp.Pairs, pairs, turn-warm)
	}
}

// orderSession appends its name to a shared log at every run, of 1 ms
// or d, plus vary times the log's length modulo 5 (runs that differ).
type orderSession struct {
	clock *fakeClock
	name  byte
	log   *[]byte
	d     time.Duration
	vary  time.Duration
}

func (s *orderSession) Run(map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	*s.log = append(*s.log, s.name)
	s.clock.t = s.clock.t.Add(max(s.d, time.Millisecond) + time.Duration(len(*s.log)%5)*s.vary)
	return nil, nil
}

func (s *orderSession) Close() error { return nil }

// TestRunOrder: every comparison times blocks of each model's runs in a
// row, the first model alternating from block to block; several session
// pairs take turns. The timed runs start after the warm-up (one unit a
// pair) and, over several pairs, the turn's untimed block, in the other
// order than the first timed one.
func TestRunOrder(t *testing.T) {
	for _, c := range []struct {
		pairs int
		want  string
	}{
		{1, "AAAABBBB" + "BBBBAAAA"},
		{2, "BBBBAAAA" + "AAAABBBB" + "BBBBAAAA"},
	} {
		clock := useFakeClock(t)
		var log []byte
		var as, bs []Session
		for range c.pairs {
			as = append(as, &orderSession{clock: clock, name: 'A', log: &log})
			bs = append(bs, &orderSession{clock: clock, name: 'B', log: &log})
		}
		opts := seqOpts
		opts.BlockRuns, opts.Runs, opts.MaxRuns = 4, 8, 4*minCompareBlocks
		if _, err := ComparePairs(as, bs, nil, nil, opts); err != nil {
			t.Fatal(err)
		}
		skip := 2 * c.pairs * opts.Warmup
		if got := string(log[skip : skip+len(c.want)]); got != c.want {
			t.Errorf("%d pairs: timed runs start %s, want %s", c.pairs, got, c.want)
		}
	}
}

// TestSlowWarmUp: a settling comparison warms sessions whose runs take
// slowWarmRun or more up with one half unit (A B), faster ones with
// Warmup of them; settling follows, on these steady fake sessions two
// blocks for the fast ones and one for the slow, whose first block is
// measured against the warm-up's unit (slowPrior).
func TestSlowWarmUp(t *testing.T) {
	untimed := func(d time.Duration) int {
		clock := useFakeClock(t)
		var log []byte
		a := &orderSession{clock: clock, name: 'A', log: &log, d: d}
		b := &orderSession{clock: clock, name: 'B', log: &log, d: d}
		opts := MeasureOptions{Warmup: 3, Settle: true, BlockRuns: 2, Runs: 8, MaxRuns: 2 * minCompareBlocks, MaxTime: time.Hour}
		cmp, err := Compare(a, b, nil, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		return len(log) - 2*cmp.Pairs
	}
	block := 2 * 2 // a settling block: BlockRuns half units of two runs
	if fast, slow := untimed(slowWarmRun/2), untimed(2*slowWarmRun); fast != 3*2+2*block || slow != 2+block {
		t.Errorf("untimed runs: %d at %v a run, %d at %v; want %d and %d",
			fast, slowWarmRun/2, slow, 2*slowWarmRun, 3*2+2*block, 2+block)
	}
}

func TestTimeCap(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		capBlocks, blocks int
		elapsed, maxTime  time.Duration
		want              int
	}{
		{1000, 9, 6 * s, 10 * s, 15},          // 0.67 s a block: 15 fit in 10 s
		{1000, 12, 1 * s, 10 * s, 120},        // fast blocks: 120
		{100, 12, 1 * s, 10 * s, 100},         // the runs' cap is lower
		{1000, 12, 12 * s, 10 * s, 12},        // past the time already: this look's blocks
		{1000, 12, 0, 10 * s, 1000},           // no time measured
		{1000, 12, time.Millisecond, 0, 1000}, // no time cap
	} {
		if got := timeCap(c.capBlocks, c.blocks, c.elapsed, c.maxTime); got != c.want {
			t.Errorf("timeCap(%d, %d, %v, %v) = %d, want %d", c.capBlocks, c.blocks, c.elapsed, c.maxTime, got, c.want)
		}
	}
}

// TestLooksWithinMaxTime: equal models of 175 ms a run whose runs spread
// too much for a verdict, blocks of 2 runs; the first look comes after 9
// blocks (6 s), and the looks after it are spread over what fits in the
// 10 s cap, not towards the 1,000-block cap (which gave two looks).
func TestLooksWithinMaxTime(t *testing.T) {
	clock := useFakeClock(t)
	r := rand.New(rand.NewPCG(3, 4))
	a := &sleepSession{clock: clock, d: 175 * time.Millisecond, jitter: 0.5, r: r}
	b := &sleepSession{clock: clock, d: 175 * time.Millisecond, jitter: 0.5, r: r}
	cmp, err := Compare(a, b, nil, nil, MeasureOptions{Warmup: 1, BlockRuns: 2, Runs: 1, MaxTime: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Verdict != Undecided || cmp.Looks < 4 || cmp.Elapsed > 11*time.Second {
		t.Errorf("want undecided after 4 looks or more within about 10 s; got %v after %v", cmp, cmp.Elapsed)
	}
}

func TestTurnBlocks(t *testing.T) {
	us := time.Microsecond
	for _, c := range []struct {
		pairs, k int
		run      time.Duration
		want     int
	}{
		{1, 8, 500 * us, 1},   // one pair: its turn never ends
		{8, 8, 500 * us, 4},   // deit_timm: blocks of 8 ms, four in 32 ms
		{8, 8, 80 * us, 25},   // vit_tiny: blocks of 1.3 ms
		{8, 8, 18000 * us, 1}, // a batch-8 shape of a sweep: one block
		{8, 8, 0, 1},          // run time unknown
	} {
		if got := turnBlocks(c.pairs, c.k, c.run); got != c.want {
			t.Errorf("turnBlocks(%d, %d, %v) = %d, want %d", c.pairs, c.k, c.run, got, c.want)
		}
	}
}

// TestGainMarginTimesOn: B 2.5% faster on a noisy host. The plain test
// stops at the first look showing it faster, its interval then starting
// under 1% above 1; asked for a 1% gain (GainMargin), it times on until
// the interval shows that gain.
func TestGainMarginTimesOn(t *testing.T) {
	run := func(margin float64) Comparison {
		return compareOnHost(t, 32, 0.06, 1/1.025, func(o *MeasureOptions) { o.GainMargin = margin })
	}
	plain, margin := run(0), run(0.01)
	if plain.Verdict != Faster || plain.showsGain(0.01) {
		t.Fatalf("the plain test should stop faster with its interval starting under 1.01: %v", plain)
	}
	if margin.Verdict != Faster || !margin.showsGain(0.01) || margin.Looks <= plain.Looks {
		t.Errorf("want faster by 1%% at least, after more than %d looks; got %v", plain.Looks, margin)
	}
}
