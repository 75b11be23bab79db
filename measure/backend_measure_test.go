package measure

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

func TestSummarize(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
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
	st, err := Measure(s, nil, MeasureOptions{Runs: 5, MaxTime: 5 * time.Second, MaxSpread: 0.5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.N != 5 || st.Median != 200*time.Microsecond || !st.Stable {
		t.Errorf("got %+v", st)
	}
}

func TestMeasureHonoursCaps(t *testing.T) {
	s := &sleepSession{clock: useFakeClock(t), d: 100 * time.Microsecond, jitter: 3, r: rand.New(rand.NewPCG(1, 1))}
	st, err := Measure(s, nil, MeasureOptions{Runs: 5, MaxRuns: 12, MaxSpread: 1e-9}, nil)
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
