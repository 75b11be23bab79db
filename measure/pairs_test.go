package measure

import (
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// countSession runs for d on a fake clock and counts its runs.
type countSession struct {
	clock *fakeClock
	d     time.Duration
	runs  int
}

func (s *countSession) Run(map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	s.runs++
	s.clock.t = s.clock.t.Add(s.d)
	return nil, nil
}

func (s *countSession) Close() error { return nil }

// TestRunsUnder: the median of the timed runs decides, once 5 of them
// fall on one side (7 runs with the 2 discarded); a model whose first two
// timed runs both take ten times the threshold or more is decided after
// them (4 runs).
func TestRunsUnder(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		run       time.Duration
		wantUnder bool
		wantRuns  int
	}{
		{ms / 2, true, 7},
		{3 * ms / 2, false, 7},
		{9 * ms, false, 7},
		{10 * ms, false, 4},
		{90 * ms, false, 4},
	} {
		s := &countSession{clock: useFakeClock(t), d: c.run}
		under, err := runsUnder(s, nil, ms)
		if err != nil {
			t.Fatal(err)
		}
		if under != c.wantUnder || s.runs != c.wantRuns {
			t.Errorf("runs of %v against 1 ms: under %v after %d runs, want %v after %d", c.run, under, s.runs, c.wantUnder, c.wantRuns)
		}
	}
}
