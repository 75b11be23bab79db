package measure

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// timedBackend runs each model for the time its graph's name maps to.
type timedBackend struct {
	clock *fakeClock
	times map[string]time.Duration
	r     *rand.Rand
}

func (b *timedBackend) Name() string { return "timed" }

func (b *timedBackend) Load(m *graph.Model) (Session, error) {
	return &sleepSession{clock: b.clock, d: b.times[m.Graph.Name], jitter: 0.05, r: b.r}, nil
}

// fileBackend is a timedBackend that also loads serialised models, each
// running for the time its bytes map to.
type fileBackend struct{ timedBackend }

func (b *fileBackend) LoadONNX(data []byte, _ *graph.Model) (Session, error) {
	return &sleepSession{clock: b.clock, d: b.times[string(data)], jitter: 0.05, r: b.r}, nil
}

// TestDecideNotSlowerTimesTheOriginalFile checks that the original is
// timed as its file when the backend can load one: here the file runs
// faster than the bound model, and the optimised model, faster than the
// bound model, is not faster than the file.
func TestDecideNotSlowerTimesTheOriginalFile(t *testing.T) {
	us := time.Microsecond
	model := func(name string) *graph.Model { return &graph.Model{Graph: &graph.Graph{Name: name}} }
	for _, tc := range []struct {
		name      string
		loadsONNX bool
		want      Choice
	}{
		{"model only", false, ChooseOptimised},
		{"file", true, ChooseOriginal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := timedBackend{clock: useFakeClock(t), r: rand.New(rand.NewPCG(7, 8)),
				times: map[string]time.Duration{"orig": 1000 * us, "file bytes": 800 * us, "optim": 900 * us}}
			var be Backend = &tb
			if tc.loadsONNX {
				be = &fileBackend{tb}
			}
			orig := ModelFile{Model: model("orig"), File: []byte("file bytes")}
			d, err := DecideNotSlower(be, orig, nil, model("optim"), false, nil, MeasureOptions{Warmup: 1, Runs: 40, MaxRuns: 40})
			if err != nil {
				t.Fatal(err)
			}
			if d.Choice != tc.want {
				t.Errorf("chose %v (%s), want %v", d.Choice, d.Reason, tc.want)
			}
		})
	}
}

func TestDecideNotSlower(t *testing.T) {
	model := func(name string) *graph.Model { return &graph.Model{Graph: &graph.Graph{Name: name}} }
	us := time.Microsecond
	tests := []struct {
		name                string
		orig, folded, optim time.Duration
		same                bool
		want                Choice
		foldedMeasured      bool
	}{
		{name: "optimised faster", orig: 1000 * us, folded: 1000 * us, optim: 800 * us, want: ChooseOptimised},
		{name: "optimised 3% faster", orig: 1000 * us, folded: 1000 * us, optim: 970 * us, want: ChooseOptimised},
		{name: "optimised slower, folded faster", orig: 1000 * us, folded: 900 * us, optim: 1100 * us, want: ChooseFolded, foldedMeasured: true},
		{name: "optimised slower, folded slower", orig: 1000 * us, folded: 1100 * us, optim: 1100 * us, want: ChooseOriginal, foldedMeasured: true},
		{name: "no rewrite, folding slower", orig: 1000 * us, folded: 1200 * us, optim: 1200 * us, same: true, want: ChooseOriginal},
		{name: "no rewrite, folding faster", orig: 1000 * us, folded: 800 * us, optim: 800 * us, same: true, want: ChooseOptimised},
		// Not slower is not enough: a model is written only when shown
		// faster.
		{name: "all equal", orig: 1000 * us, folded: 1000 * us, optim: 1000 * us, want: ChooseOriginal, foldedMeasured: true},
		{name: "no rewrite, folding changes nothing", orig: 1000 * us, folded: 1000 * us, optim: 1000 * us, same: true, want: ChooseOriginal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be := &timedBackend{clock: useFakeClock(t), r: rand.New(rand.NewPCG(5, 6)),
				times: map[string]time.Duration{"orig": tt.orig, "folded": tt.folded, "optim": tt.optim}}
			d, err := DecideNotSlower(be, ModelFile{Model: model("orig")}, model("folded"), model("optim"), tt.same, nil, MeasureOptions{Warmup: 1, Runs: 40, MaxRuns: 40})
			if err != nil {
				t.Fatal(err)
			}
			if d.Choice != tt.want || (d.Folded != nil) != tt.foldedMeasured || d.Reason == "" {
				t.Errorf("got %v (folded measured %v, %s), want %v", d.Choice, d.Folded != nil, d.Reason, tt.want)
			}
			if w := d.Written(); (w == nil) != (d.Choice == ChooseOriginal) || w != nil && w.Verdict != Faster {
				t.Errorf("%v written with comparison %v: want one that shows it faster, none for the original", d.Choice, w)
			}
		})
	}
}

// TestDecideNotSlowerShortMargin checks that a sub-millisecond model,
// compared over several session pairs, is written only when shown at
// least ShortGainMargin faster: 2% faster leaves the original (the reason
// says why), 20% faster is written; a model of 2 ms, one session pair,
// is written 2% faster, and not 0.5% faster (SingleGainMargin).
func TestDecideNotSlowerShortMargin(t *testing.T) {
	model := func(name string) *graph.Model { return &graph.Model{Graph: &graph.Graph{Name: name}} }
	us := time.Microsecond
	tests := []struct {
		name        string
		orig, optim time.Duration
		want        Choice
		short       bool
		runs        int
	}{
		{"sub-ms, 2% faster", 500 * us, 490 * us, ChooseOriginal, true, 400},
		{"sub-ms, 20% faster", 500 * us, 400 * us, ChooseOptimised, true, 400},
		{"2 ms, 2% faster", 2000 * us, 1960 * us, ChooseOptimised, false, 400},
		{"2 ms, 0.5% faster", 2000 * us, 1990 * us, ChooseOriginal, false, 4000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be := &timedBackend{clock: useFakeClock(t), r: rand.New(rand.NewPCG(5, 6)),
				times: map[string]time.Duration{"orig": tt.orig, "optim": tt.optim}}
			d, err := DecideNotSlower(be, ModelFile{Model: model("orig")}, nil, model("optim"), false, nil, MeasureOptions{Warmup: 1, Runs: tt.runs, MaxRuns: tt.runs, MaxTime: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if (d.Optimised.Sessions > 1) != tt.short {
				t.Fatalf("compared over %d session pairs, want several: %v", d.Optimised.Sessions, tt.short)
			}
			if d.Choice != tt.want {
				t.Fatalf("chose %v (%s), want %v", d.Choice, d.Reason, tt.want)
			}
			if tt.want == ChooseOriginal && (d.Optimised.Verdict != Faster || !strings.Contains(d.Reason, "is written only when the interval starts")) {
				t.Fatalf("verdict %v, reason %q: want a faster model refused for the margin", d.Optimised.Verdict, d.Reason)
			}
		})
	}
}

// refusingLoader is a backend that refuses every serialised file, as ONNX
// Runtime refuses an old-opset file it has no kernel for.
type refusingLoader struct {
	Backend
	loadedModel bool
}

func (r *refusingLoader) LoadONNX([]byte, *graph.Model) (Session, error) {
	return nil, fmt.Errorf("no kernel for AveragePool(1)")
}

func (r *refusingLoader) Load(m *graph.Model) (Session, error) {
	r.loadedModel = true
	return nil, nil
}

// TestOriginalFallsBackToTheModel: a file the backend refuses is timed
// as the model read from it.
func TestOriginalFallsBackToTheModel(t *testing.T) {
	be := &refusingLoader{}
	if _, err := (ModelFile{Model: &graph.Model{}, File: []byte{1}}).Load(be); err != nil {
		t.Fatal(err)
	}
	if !be.loadedModel {
		t.Errorf("the refused file was not replaced by the model")
	}
}

// loggingBackend is a timedBackend that records the graphs it loads.
type loggingBackend struct {
	timedBackend
	loaded []string
}

func (b *loggingBackend) Load(m *graph.Model) (Session, error) {
	b.loaded = append(b.loaded, m.Graph.Name)
	return b.timedBackend.Load(m)
}

// TestSessionPairs checks that a model under ShortLatency is compared over
// shortPairs pairs of sessions, loaded in alternating order, and a longer
// one over a single pair.
func TestSessionPairs(t *testing.T) {
	model := func(name string) *graph.Model { return &graph.Model{Graph: &graph.Graph{Name: name}} }
	for _, tc := range []struct {
		name  string
		orig  time.Duration
		pairs int
	}{{"short", 200 * time.Microsecond, shortPairs}, {"long", 3 * time.Millisecond, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			be := &loggingBackend{timedBackend: timedBackend{clock: useFakeClock(t), r: rand.New(rand.NewPCG(1, 2)),
				times: map[string]time.Duration{"orig": tc.orig, "new": tc.orig}}}
			as, bs, err := SessionPairs(be, ModelFile{Model: model("orig")}, ModelFile{Model: model("new")}, nil)
			defer CloseAll(as)
			defer CloseAll(bs)
			if err != nil {
				t.Fatal(err)
			}
			if len(as) != tc.pairs || len(bs) != tc.pairs || len(be.loaded) != 2*tc.pairs {
				t.Fatalf("%d and %d sessions (%d loads), want %d pairs", len(as), len(bs), len(be.loaded), tc.pairs)
			}
			for i := 0; i < tc.pairs; i++ {
				first := "orig"
				if i%2 == 1 {
					first = "new"
				}
				if be.loaded[2*i] != first {
					t.Errorf("pair %d loaded %v first, want %s", i, be.loaded[2*i], first)
				}
			}
		})
	}
}

// TestDecideNotSlowerSharesItsBudget: equal models, a time cap that the
// optimised model's comparison uses up; the folded model is then not
// timed and the original is written.
func TestDecideNotSlowerSharesItsBudget(t *testing.T) {
	model := func(name string) *graph.Model { return &graph.Model{Graph: &graph.Graph{Name: name}} }
	ms := time.Millisecond
	be := &timedBackend{clock: useFakeClock(t), r: rand.New(rand.NewPCG(9, 10)),
		times: map[string]time.Duration{"orig": ms, "folded": ms, "optim": ms}}
	d, err := DecideNotSlower(be, ModelFile{Model: model("orig")}, model("folded"), model("optim"), false, nil,
		MeasureOptions{Warmup: 1, Runs: 40, MaxTime: 1500 * time.Millisecond, Precision: 0.0001})
	if err != nil {
		t.Fatal(err)
	}
	if d.Choice != ChooseOriginal || d.Folded != nil || !strings.Contains(d.Reason, "spent") {
		t.Errorf("got %v (folded measured %v: %s), want the original, the folded model not timed", d.Choice, d.Folded != nil, d.Reason)
	}
	if d.Optimised.Elapsed < 500*time.Millisecond {
		t.Errorf("the optimised model's comparison took %v of its 1.5 s", d.Optimised.Elapsed)
	}
}
