package measure

import (
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// warmingSession runs slow at first: its i-th run takes d*(1+slow/(1+i/20))
// until run cold, then d.
type warmingSession struct {
	clock *fakeClock
	d     time.Duration
	slow  float64
	cold  int
	runs  int
}

func (s *warmingSession) Run(map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	f := 1.0
	if s.runs < s.cold {
		f += s.slow / (1 + float64(s.runs)/20)
	}
	s.runs++
	s.clock.t = s.clock.t.Add(time.Duration(f * float64(s.d)))
	return nil, nil
}

func (s *warmingSession) Close() error { return nil }

func TestMeasureSettlesAndTimesLongEnough(t *testing.T) {
	cases := []struct {
		name    string
		opts    MeasureOptions
		settled bool
		minRuns int
	}{
		{"3 warm-ups", MeasureOptions{Warmup: 3, Runs: 16, BlockRuns: 8, MaxSpread: 0.5}, false, 16},
		{"settle", MeasureOptions{Warmup: 3, Runs: 16, BlockRuns: 8, MaxSpread: 0.5, Settle: true}, true, 16},
		{"min time", MeasureOptions{Warmup: 3, Runs: 16, BlockRuns: 8, MaxSpread: 0.5, MinTime: 50 * time.Millisecond}, false, 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &warmingSession{clock: useFakeClock(t), d: 100 * time.Microsecond, slow: 1, cold: 60}
			st, err := Measure(s, nil, c.opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.N < c.minRuns {
				t.Errorf("timed %d runs, want at least %d", st.N, c.minRuns)
			}
			near := relErr(st.Steady, s.d) < 0.03
			if c.settled && !near {
				t.Errorf("settled: steady %v, want about %v", st.Steady, s.d)
			}
			if !c.settled && c.opts.MinTime == 0 && near {
				t.Errorf("3 warm-ups only: steady %v should still show the cold session", st.Steady)
			}
		})
	}
}

func TestSettleStopsOnFlatLatency(t *testing.T) {
	// A flat latency settles after two blocks: TestSettleFromPrior, no
	// prior. One still falling stops at a quarter of MaxTime.
	clock := useFakeClock(t)
	ws := &warmingSession{clock: clock, d: time.Millisecond, slow: 1, cold: 1 << 30}
	runs := 0
	start := now()
	settle(MeasureOptions{BlockRuns: 4, MaxTime: 40 * time.Millisecond}, func() (time.Duration, error) {
		runs++
		t0 := now()
		ws.Run(nil)
		return now().Sub(t0), nil
	}, 0)
	if el := now().Sub(start); el > 20*time.Millisecond {
		t.Errorf("settling ran %v, beyond a quarter of MaxTime (plus one block)", el)
	}
}

func TestVerdictOf(t *testing.T) {
	cases := []struct {
		lo, hi float64
		want   Verdict
	}{
		{0.995, 1.008, Equivalent},
		{0.998, 1.015, Undecided},
		{0.98, 1.001, Undecided},
		{0.992, 0.998, Faster}, // below 1 and within the margin: faster
		{0.90, 0.97, Faster},
		{1.001, 1.004, Slower},
		{0.99, 1.01, Equivalent},
	}
	for _, c := range cases {
		if got := verdictOf(c.lo, c.hi, 0.01); got != c.want {
			t.Errorf("[%.3f, %.3f]: %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
}

// TestSettleFromPrior: with the warm-up's fastest unit as the prior, a
// flat latency settles after one block; a prior slower than the block by
// more than settleGain (a warm-up still cold) takes a second block; a
// latency still falling goes on.
func TestSettleFromPrior(t *testing.T) {
	for _, c := range []struct {
		name  string
		prior time.Duration
		want  int
	}{
		{"flat", time.Millisecond, 4},
		{"cold warm-up", 2 * time.Millisecond, 8},
		{"no prior", 0, 8},
	} {
		clock := useFakeClock(t)
		s := &sleepSession{clock: clock, d: time.Millisecond}
		runs := 0
		err := settle(MeasureOptions{BlockRuns: 4, MaxTime: time.Minute}, func() (time.Duration, error) {
			runs++
			t0 := now()
			_, err := s.Run(nil)
			return now().Sub(t0), err
		}, c.prior)
		if err != nil || runs != c.want {
			t.Errorf("%s: settled after %d runs (err %v), want %d", c.name, runs, err, c.want)
		}
	}
}

func TestSlowPrior(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		runs []time.Duration
		unit int
		want time.Duration
	}{
		{[]time.Duration{30 * ms, 40 * ms}, 2, 70 * ms},                   // one slow unit
		{[]time.Duration{30 * ms, 40 * ms, 30 * ms, 30 * ms}, 2, 60 * ms}, // the fastest of two
		{[]time.Duration{30 * ms, 40 * ms, 50 * ms}, 3, 120 * ms},         // one unit of three models
		{[]time.Duration{ms, 2 * ms}, 2, 0},                               // fast runs: no prior
		{[]time.Duration{30 * ms}, 2, 0},                                  // no whole unit
	} {
		if got := slowPrior(c.runs, c.unit); got != c.want {
			t.Errorf("slowPrior(%v, %d) = %v, want %v", c.runs, c.unit, got, c.want)
		}
	}
}
