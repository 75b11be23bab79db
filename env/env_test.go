package env

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/xrltest"
)

func newTestEnv(t testing.TB, cfg Config) *Env {
	t.Helper()
	if cfg.Model == nil {
		cfg.Model = xrltest.ChainModel(t, "Identity", "Relu", "Relu", "Identity", "Relu", "Relu", "Tanh")
	}
	cfg.Rewriter = xrltest.DropRewriter{}
	if cfg.Latency == nil {
		cfg.Latency = &xrltest.NodeLatency{}
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestCheckPasses(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"defaults", Config{}},
		{"few candidates, sparse feedback", Config{MaxCandidates: 2, FeedbackEvery: 2}},
		{"candidate gains", Config{Latency: opLatency{}, MaxCandidates: 2, CandidateGains: true}},
		{"no-op after a step", Config{NoOpAfter: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := Check(newTestEnv(t, tc.cfg), CheckOptions{Episodes: 3}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestRewardsFollowEq2(t *testing.T) {
	e := newTestEnv(t, Config{FeedbackEvery: 2})
	obs, info, err := e.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	if info.InitialLatency != 8*time.Microsecond || info.Candidates != 4 {
		t.Fatalf("reset info %+v", info)
	}
	want := []float64{0.1, 2.0 / 8 * 100, 0.1}
	for i, w := range want {
		_, r, term, trunc, info, err := e.Step(0)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r-w) > 1e-12 || term || trunc {
			t.Fatalf("step %d: reward %v (want %v), info %+v", i+1, r, w, info)
		}
		if info.Measured != (i == 1) {
			t.Errorf("step %d: measured = %v", i+1, info.Measured)
		}
	}
	_ = obs
	// No-Op ends the episode with a measurement: one node removed since the
	// last measurement.
	_, r, term, _, info, err := e.Step(e.MaxCandidates())
	if err != nil || !term || !info.NoOp || !info.Measured {
		t.Fatalf("No-Op: term %v info %+v err %v", term, info, err)
	}
	if math.Abs(r-1.0/8*100) > 1e-12 {
		t.Errorf("No-Op reward %v, want %v", r, 1.0/8*100)
	}
	if _, best := e.Best(); best != 5*time.Microsecond {
		t.Errorf("best latency %v, want 5µs", best)
	}
	if got := e.Applied(); len(got) != 3 {
		t.Errorf("applied %v", got)
	}
}

func TestTerminationAndTruncation(t *testing.T) {
	// Without candidates the episode ends at the first step that leaves none.
	e := newTestEnv(t, Config{Model: xrltest.ChainModel(t, "Identity", "Tanh")})
	_, info, err := e.Reset(3)
	if err != nil || info.Candidates != 1 {
		t.Fatalf("%+v %v", info, err)
	}
	_, _, term, trunc, info, err := e.Step(0)
	if err != nil || !term || trunc || info.Candidates != 0 {
		t.Fatalf("want termination with no candidates: term %v trunc %v info %+v err %v", term, trunc, info, err)
	}
	if _, _, _, _, _, err := e.Step(0); !errors.Is(err, ErrNeedsReset) {
		t.Errorf("step after end: %v", err)
	}
	e = newTestEnv(t, Config{Horizon: 2})
	e.Reset(1)
	e.Step(0)
	_, _, term, trunc, _, err = e.Step(0)
	if err != nil || term || !trunc {
		t.Fatalf("want truncation at the horizon: term %v trunc %v err %v", term, trunc, err)
	}
}

func TestCappingIsSeeded(t *testing.T) {
	e := newTestEnv(t, Config{MaxCandidates: 2})
	rules := func(seed uint64) []string {
		_, info, err := e.Reset(seed)
		if err != nil {
			t.Fatal(err)
		}
		if info.Candidates != 4 || info.Shown != 2 {
			t.Fatalf("info %+v", info)
		}
		var r []string
		for _, c := range e.Candidates() {
			r = append(r, c.Graph.CanonicalHash().String())
		}
		return r
	}
	a, b := rules(5), rules(5)
	if a[0] != b[0] || a[1] != b[1] {
		t.Error("same seed chose different candidates")
	}
	differs := false
	for s := uint64(6); s < 20 && !differs; s++ {
		c := rules(s)
		differs = c[0] != a[0] || c[1] != a[1]
	}
	if !differs {
		t.Error("the capping choice never depends on the seed")
	}
}

func TestInvalidActions(t *testing.T) {
	e := newTestEnv(t, Config{})
	obs, _, err := e.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []int{-1, len(obs.Candidates), e.MaxCandidates() + 1} {
		if _, _, _, _, _, err := e.Step(a); !errors.Is(err, ErrInvalidAction) {
			t.Errorf("action %d: %v", a, err)
		}
	}
}

func TestAgents(t *testing.T) {
	e := newTestEnv(t, Config{})
	greedy := &GreedyAgent{Env: e, Latency: &xrltest.NodeLatency{}}
	ep, err := Rollout(e, greedy, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Greedy removes both Identities and merges the four Relus into one:
	// 8 -> 3 nodes in 5 steps, after which no candidate is left.
	if ep.BestLatency != 3*time.Microsecond || ep.Steps != 5 || ep.StopReason != "no candidates" {
		t.Errorf("greedy episode %+v", ep)
	}
	if math.Abs(ep.Speedup()-8.0/3) > 1e-9 {
		t.Errorf("speedup %v", ep.Speedup())
	}
	ep, err = Rollout(e, NewRandomAgent(3), 2)
	if err != nil || ep.Steps < 1 {
		t.Fatalf("random: %+v %v", ep, err)
	}
}

func TestEncodeGraph(t *testing.T) {
	m := xrltest.ChainModel(t, "Relu")
	gt := EncodeGraph(m.Graph)
	if err := gt.Check(); err != nil {
		t.Fatal(err)
	}
	// input node + Relu + Sigmoid; edges input->Relu, Relu->Sigmoid.
	if gt.NumNodes() != 3 || gt.NumEdges() != 2 {
		t.Fatalf("nodes %d edges %d", gt.NumNodes(), gt.NumEdges())
	}
	classes := OpClasses()
	if classes[gt.NodeClass[0]] != ClassInput || classes[gt.NodeClass[1]] != "Relu" || classes[gt.NodeClass[2]] != "Sigmoid" {
		t.Errorf("classes %v", gt.NodeClass)
	}
	want := []float32{0, 0, 2.0 / ShapeScale, 8.0 / ShapeScale}
	for i, w := range want {
		if gt.EdgeFeat[i] != w {
			t.Errorf("edge feature %d = %v, want %v", i, gt.EdgeFeat[i], w)
		}
	}
}

func TestShapeFeatureFoldsHighRanks(t *testing.T) {
	v := &graph.Value{}
	v.SetStatic(graph.Float32, []int{2, 3, 4, 5, 6})
	var f [EdgeDim]float32
	shapeFeature(v, f[:])
	want := [EdgeDim]float32{6.0 / ShapeScale, 4.0 / ShapeScale, 5.0 / ShapeScale, 6.0 / ShapeScale}
	if f != want {
		t.Errorf("got %v, want %v", f, want)
	}
}
