package measure

import (
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

func TestMiddleSession(t *testing.T) {
	ms := func(steady, median float64) Stats {
		return Stats{Steady: time.Duration(steady * float64(time.Millisecond)), Median: time.Duration(median * float64(time.Millisecond))}
	}
	cases := []struct {
		name string
		runs []Stats
		want Stats
	}{
		{"one", []Stats{ms(0.2, 0.3)}, ms(0.2, 0.3)},
		{"odd picks the median steady", []Stats{ms(0.30, 0.1), ms(0.12, 0.9), ms(0.20, 0.5), ms(0.11, 0.2), ms(0.25, 0.4)}, ms(0.20, 0.5)},
		{"even picks the lower middle", []Stats{ms(0.4, 0), ms(0.1, 0), ms(0.3, 0), ms(0.2, 0)}, ms(0.2, 0)},
		{"no steady falls back to median", []Stats{ms(0, 0.5), ms(0, 0.1), ms(0, 0.3)}, ms(0, 0.3)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := MiddleSession(tc.runs); got != tc.want {
				t.Fatalf("MiddleSession = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// sessionsBackend gives its k-th loaded session the k-th duration.
type sessionsBackend struct {
	name  string
	clock *fakeClock
	ds    []time.Duration
	loads int
}

func (b *sessionsBackend) Name() string { return b.name }

func (b *sessionsBackend) Load(*graph.Model) (Session, error) {
	d := b.ds[b.loads%len(b.ds)]
	b.loads++
	return &sleepSession{clock: b.clock, d: d}, nil
}

func TestMeasuredShortModelSessions(t *testing.T) {
	us := time.Microsecond
	cases := []struct {
		name      string
		backend   string
		ds        []time.Duration
		sessions  int
		wantLoads int
		want      time.Duration
	}{
		{"short on ort: middle of five sessions", "ort", []time.Duration{300 * us, 100 * us, 500 * us, 200 * us, 400 * us}, 0, ShortSessions, 300 * us},
		{"short on go: one session", "go", []time.Duration{300 * us, 100 * us}, 0, 1, 300 * us},
		{"long on ort: one session", "ort", []time.Duration{2 * time.Millisecond, 100 * us}, 0, 1, 2 * time.Millisecond},
		{"long on ort, three sessions asked: middle of three", "ort", []time.Duration{3 * time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond}, 3, 3, 3 * time.Millisecond},
		{"short on ort, three sessions asked: still five", "ort", []time.Duration{300 * us, 100 * us, 500 * us, 200 * us, 400 * us}, 3, ShortSessions, 300 * us},
		{"long on go, three sessions asked: one session", "go", []time.Duration{3 * time.Millisecond, 2 * time.Millisecond}, 3, 1, 3 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			be := &sessionsBackend{name: tc.backend, clock: useFakeClock(t), ds: tc.ds}
			m := &Measured{Backend: be, Options: MeasureOptions{Warmup: 1, Runs: 16, MaxRuns: 16}, Sessions: tc.sessions}
			st, err := m.Latency(&graph.Model{Graph: &graph.Graph{Name: "m"}})
			if err != nil {
				t.Fatal(err)
			}
			if be.loads != tc.wantLoads || st.steadyOrMedian() != tc.want {
				t.Fatalf("loads %d, latency %v; want %d, %v", be.loads, st.steadyOrMedian(), tc.wantLoads, tc.want)
			}
		})
	}
}
