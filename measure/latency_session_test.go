package measure

import (
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
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

// rooflineModel returns a model of one op whose shapes are all known: a
// Relu of [8, 64], which the roofline model puts well under ShortLatency,
// or, big, a MatMul [512, 4096] x [4096, 4096], well over it.
func rooflineModel(t *testing.T, big bool) *graph.Model {
	b := graph.NewBuilder("one-op")
	if !big {
		b.Output(b.Op("Relu", []*graph.Value{b.Input("x", graph.Float32, 8, 64)}, nil))
	} else {
		x := b.Input("x", graph.Float32, 512, 4096)
		b.Output(b.Op("MatMul", []*graph.Value{x, b.Const("w", graph.NewTensor(graph.Float32, 4096, 4096))}, nil))
	}
	return &graph.Model{Graph: graphtest.Graph(t, b)}
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
		// model is timed, when set; else a graph without nodes.
		model func(t *testing.T) *graph.Model
	}{
		{"short on ort: middle of five sessions", "ort", []time.Duration{300 * us, 100 * us, 500 * us, 200 * us, 400 * us}, 0, ShortSessions, 300 * us, nil},
		{"short on go: one session", "go", []time.Duration{300 * us, 100 * us}, 0, 1, 300 * us, nil},
		{"long on ort: one session", "ort", []time.Duration{2 * time.Millisecond, 100 * us}, 0, 1, 2 * time.Millisecond, nil},
		{"long on ort, three sessions asked: middle of three", "ort", []time.Duration{3 * time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond}, 3, 3, 3 * time.Millisecond, nil},
		{"short on ort, three sessions asked: still five", "ort", []time.Duration{300 * us, 100 * us, 500 * us, 200 * us, 400 * us}, 3, ShortSessions, 300 * us, nil},
		{"long on go, three sessions asked: one session", "go", []time.Duration{3 * time.Millisecond, 2 * time.Millisecond}, 3, 1, 3 * time.Millisecond, nil},
		{"slow first session of a model the roofline puts short: middle of five", "ort",
			[]time.Duration{5 * time.Millisecond, 100 * us, 90 * us, 110 * us, 95 * us}, 0, ShortSessions, 100 * us,
			func(t *testing.T) *graph.Model { return rooflineModel(t, false) }},
		{"long by the roofline too: one session", "ort", []time.Duration{5 * time.Millisecond, 100 * us}, 0, 1, 5 * time.Millisecond,
			func(t *testing.T) *graph.Model { return rooflineModel(t, true) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			be := &sessionsBackend{name: tc.backend, clock: useFakeClock(t), ds: tc.ds}
			m := &Measured{Backend: be, Options: MeasureOptions{Warmup: 1, Runs: 16, MaxRuns: 16}, Sessions: tc.sessions}
			model := &graph.Model{Graph: &graph.Graph{Name: "m"}}
			if tc.model != nil {
				model = tc.model(t)
			}
			st, err := m.Latency(model)
			if err != nil {
				t.Fatal(err)
			}
			if be.loads != tc.wantLoads || st.steadyOrMedian() != tc.want {
				t.Fatalf("loads %d, latency %v; want %d, %v", be.loads, st.steadyOrMedian(), tc.wantLoads, tc.want)
			}
		})
	}
}
