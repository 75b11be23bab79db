package measure

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// ms converts milliseconds to durations.
func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestSummarize(t *testing.T) {
	cases := []struct {
		in               []time.Duration
		median, p10, p90 time.Duration
		mad              time.Duration
	}{
		{ms(5), 5 * time.Millisecond, 5 * time.Millisecond, 5 * time.Millisecond, 0},
		{ms(3, 1, 2), 2 * time.Millisecond, 1200 * time.Microsecond, 2800 * time.Microsecond, time.Millisecond},
		{ms(10, 10, 10, 10, 100), 10 * time.Millisecond, 10 * time.Millisecond, 64 * time.Millisecond, 0},
	}
	for i, c := range cases {
		s := Summarize(c.in)
		if s.Median != c.median || s.P10 != c.p10 || s.P90 != c.p90 || s.MAD != c.mad || s.N != len(c.in) {
			t.Errorf("case %d: got %+v", i, s)
		}
	}
}

// fakeClock replaces the package clock for one test; sessions advance it.
type fakeClock struct{ t time.Time }

func useFakeClock(t *testing.T) *fakeClock {
	c := &fakeClock{t: time.Unix(1e9, 0)}
	old := now
	now = func() time.Time { return c.t }
	t.Cleanup(func() { now = old })
	return c
}

// sleepSession pretends to run for a fixed time plus jitter on a fake clock.
type sleepSession struct {
	clock  *fakeClock
	d      time.Duration
	jitter float64
	r      *rand.Rand
}

func (s *sleepSession) Run(map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	d := s.d
	if s.jitter > 0 {
		d = time.Duration(float64(d) * (1 + s.jitter*s.r.Float64()))
	}
	s.clock.t = s.clock.t.Add(d)
	return nil, nil
}

func (s *sleepSession) Close() error { return nil }

func TestMeasureStopsWhenStable(t *testing.T) {
	s := &sleepSession{clock: useFakeClock(t), d: 200 * time.Microsecond}
	st, err := Measure(s, nil, MeasureOptions{Runs: 5, BlockRuns: 5, MaxTime: 5 * time.Second, MaxSpread: 0.5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.N != 5 || st.Median != 200*time.Microsecond || st.Steady != st.Median || !st.Stable {
		t.Errorf("got %+v", st)
	}
}

func TestMeasureKeepGarbage(t *testing.T) {
	was := collectGarbage
	t.Cleanup(func() { collectGarbage = was })
	for _, keep := range []bool{false, true} {
		collections := 0
		collectGarbage = func() { collections++ }
		s := &sleepSession{clock: useFakeClock(t), d: 200 * time.Microsecond}
		if _, err := Measure(s, nil, MeasureOptions{Runs: 5, BlockRuns: 5, MaxSpread: 0.5, KeepGarbage: keep}, nil); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 1, true: 0}[keep]; collections != want {
			t.Errorf("KeepGarbage %v: %d collections, want %d", keep, collections, want)
		}
	}
}

func TestMeasureHonoursCaps(t *testing.T) {
	s := &sleepSession{clock: useFakeClock(t), d: 100 * time.Microsecond, jitter: 3, r: rand.New(rand.NewPCG(1, 1))}
	st, err := Measure(s, nil, MeasureOptions{Runs: 5, MaxRuns: 12, BlockRuns: 4, MaxSpread: 1e-9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.N != 12 || st.Stable {
		t.Errorf("want 12 unstable runs, got %+v", st)
	}
}

func TestCompareDetectsDifference(t *testing.T) {
	clock := useFakeClock(t)
	r := rand.New(rand.NewPCG(3, 4))
	a := &sleepSession{clock: clock, d: 300 * time.Microsecond, jitter: 0.1, r: r}
	b := &sleepSession{clock: clock, d: 600 * time.Microsecond, jitter: 0.1, r: r}
	c, err := Compare(a, b, nil, nil, MeasureOptions{Warmup: 1, Runs: 15, MaxRuns: 15})
	if err != nil {
		t.Fatal(err)
	}
	if c.Ratio < 1.8 || c.Ratio > 2.2 || !c.Significant() {
		t.Errorf("B takes twice as long; got %v", c)
	}
	same, err := Compare(a, a, nil, nil, MeasureOptions{Warmup: 1, Runs: 15, MaxRuns: 15})
	if err != nil {
		t.Fatal(err)
	}
	if same.Ratio < 0.9 || same.Ratio > 1.1 || same.Significant() {
		t.Errorf("identical sessions: got %v", same)
	}
}

// spikySession runs for d (times factor) and, with probability p, is
// descheduled for up to 3 more multiples of d, as on a machine that other
// processes share.
type spikySession struct {
	clock  *fakeClock
	d      time.Duration
	factor float64
	p      float64
	r      *rand.Rand
}

func (s *spikySession) Run(map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	d := float64(s.d) * s.factor * (1 + 0.002*s.r.Float64())
	if s.r.Float64() < s.p {
		d += 3 * float64(s.d) * s.r.Float64()
	}
	s.clock.t = s.clock.t.Add(time.Duration(d))
	return nil, nil
}

func (s *spikySession) Close() error { return nil }

// TestCompareResistsSpikes checks that the ratio of medians stays exact
// when 30% of all runs are slowed by other tenants (each median still
// falls among the undisturbed runs, and both models lose the same share),
// that a 3% slowdown is detected while equal sessions are not told apart,
// and that the block minima read the undisturbed latency.
func TestCompareResistsSpikes(t *testing.T) {
	clock := useFakeClock(t)
	cases := []struct {
		name        string
		factor      float64
		lo, hi      float64
		significant bool
	}{
		{"same", 1, 0.995, 1.005, false},
		{"3% slower", 1.03, 1.02, 1.04, true},
		{"3% faster", 1 / 1.03, 0.96, 0.98, true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			a := &spikySession{clock: clock, d: time.Millisecond, factor: 1, p: 0.3, r: r}
			b := &spikySession{clock: clock, d: time.Millisecond, factor: c.factor, p: 0.3, r: r}
			cmp, err := Compare(a, b, nil, nil, MeasureOptions{Warmup: 1, Runs: 200, BlockRuns: 4})
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Ratio < c.lo || cmp.Ratio > c.hi || cmp.Significant() != c.significant {
				t.Errorf("want ratio in [%.3f, %.3f], significant %v; got %v", c.lo, c.hi, c.significant, cmp)
			}
			if cmp.RatioHi-cmp.RatioLo > 0.02*cmp.Ratio {
				t.Errorf("99%% CI wider than 2%%: %v", cmp)
			}
			if cmp.Blocks < minCompareBlocks || cmp.Pairs != cmp.Blocks*4 {
				t.Errorf("want at least %d whole blocks of 4 runs: %v", minCompareBlocks, cmp)
			}
			if got := float64(cmp.A.Steady) / float64(time.Millisecond); got < 0.999 || got > 1.003 {
				t.Errorf("steady latency of A %v, want 1ms", cmp.A.Steady)
			}
		})
	}
}

func TestBlockStatistics(t *testing.T) {
	a := ms(5, 9, 4, 4, 8, 6, 6, 7, 1)
	b := ms(10, 8, 12, 20, 9, 9, 30, 9, 1)
	got := blockRatios(a, b, 4)
	want := []float64{2, 1.5}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("block ratios: got %v, want %v (the last, incomplete block left out)", got, want)
	}
	st := summarizeRuns(a, 4)
	if st.Steady != 5*time.Millisecond || st.SteadyMAD != time.Millisecond || st.N != 9 || st.Min != time.Millisecond {
		t.Errorf("got %+v", st)
	}
	if a[0] != 5*time.Millisecond || a[8] != time.Millisecond {
		t.Error("summarizeRuns reordered its input")
	}
	if s := summarizeRuns(a[:3], 4); s.Steady != 0 || s.SteadySpread() != 0 {
		t.Errorf("no complete block: got %+v", s)
	}
}

// timedSession is a sleepSession whose runs also cost overhead outside
// the engine's call, which its RunTimed leaves out.
type timedSession struct {
	sleepSession
	overhead time.Duration
}

func (s *timedSession) Run(in map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	s.clock.t = s.clock.t.Add(s.overhead)
	return s.sleepSession.Run(in)
}

func (s *timedSession) RunTimed(in map[string]*graph.Tensor) (time.Duration, error) {
	t0 := s.clock.t
	_, err := s.Run(in)
	return s.clock.t.Sub(t0) - s.overhead, err
}

// TestTimedRunnerFigures: Measure and Compare take a TimedRunner's own
// timing of its runs, the overhead around the engine's call left out, so
// that a fixed cost in every run does not pull a ratio towards 1.
func TestTimedRunnerFigures(t *testing.T) {
	clock := useFakeClock(t)
	a := &timedSession{sleepSession{clock: clock, d: 100 * time.Microsecond}, 5 * time.Microsecond}
	b := &timedSession{sleepSession{clock: clock, d: 60 * time.Microsecond}, 5 * time.Microsecond}
	st, err := Measure(a, nil, MeasureOptions{Runs: 5, BlockRuns: 5, MaxSpread: 0.5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Median != 100*time.Microsecond {
		t.Errorf("Measure median %v, want the engine's 100µs", st.Median)
	}
	c, err := Compare(a, b, nil, nil, MeasureOptions{Warmup: 1, Runs: 16, MaxRuns: 16, BlockRuns: 8})
	if err != nil {
		t.Fatal(err)
	}
	if c.Ratio != 0.6 {
		t.Errorf("Compare ratio %v, want 0.6 (60µs/100µs, not 65/105)", c.Ratio)
	}
}
