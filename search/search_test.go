package search

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/evolve"
	"github.com/xrl-dev/xrl/internal/xrltest"
)

func problem(t *testing.T) (*Problem, *xrltest.NodeLatency) {
	lat := &xrltest.NodeLatency{}
	return &Problem{
		Model:    xrltest.ChainModel(t, "Identity", "Relu", "Relu", "Identity", "Relu", "Relu", "Tanh"),
		Rewriter: xrltest.DropRewriter{},
		Latency:  lat,
	}, lat
}

func TestAlgorithmsFindTheOptimum(t *testing.T) {
	// 8 nodes; removing both Identities and merging the four Relus leaves
	// Relu, Tanh, Sigmoid: 3 nodes, 5 rewrites.
	cases := []struct {
		name string
		opts Options
		stop string
	}{
		{"greedy", Options{}, StopNoCandidates},
		{"taso", Options{Budget: 1000}, StopQueueEmpty},
		{"brkga", Options{Budget: 120, Seed: 3}, StopBudget},
		{"brkga", Options{Budget: 120, Seed: 3, Keys: evolve.UniformKeys{}}, StopBudget},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := problem(t)
			res, err := Algorithms[tc.name](p, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.BestLatency != 3*time.Microsecond || res.InitialLatency != 8*time.Microsecond {
				t.Fatalf("latency %v -> %v", res.InitialLatency, res.BestLatency)
			}
			if res.StopReason != tc.stop {
				t.Errorf("stop reason %q, want %q", res.StopReason, tc.stop)
			}
			if len(res.Path) != 5 || res.Rules["drop-identity"].Applied != 2 || res.Rules["relu-idempotent"].Applied != 3 {
				t.Errorf("path %v, rules %+v", res.Path, res.Rules)
			}
			if err := res.Best.Validate(); err != nil {
				t.Error(err)
			}
			if res.Speedup() < 2.66 || res.Speedup() > 2.67 {
				t.Errorf("speedup %v", res.Speedup())
			}
		})
	}
}

func TestBudgetAndRandomWalk(t *testing.T) {
	p, _ := problem(t)
	res, err := BestFirst(p, Options{Budget: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopBudget || res.Steps != 1 || res.BestLatency != 7*time.Microsecond {
		t.Errorf("one pop: %+v", res)
	}
	p, _ = problem(t)
	a, err := RandomWalk(p, Options{Budget: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	p, _ = problem(t)
	b, err := RandomWalk(p, Options{Budget: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if a.Steps != 3 || a.StopReason != StopBudget || a.BestLatency != 5*time.Microsecond {
		t.Errorf("random walk %+v", a)
	}
	if len(a.Path) != len(b.Path) {
		t.Fatal("random walk not deterministic under a seed")
	}
	for i := range a.Path {
		if a.Path[i] != b.Path[i] {
			t.Fatal("random walk not deterministic under a seed")
		}
	}
}

func TestAlphaPrunes(t *testing.T) {
	// With alpha 1.0 only strictly improving graphs are queued; every
	// candidate here improves, so the optimum is still found, with fewer
	// latency queries than a permissive alpha needs.
	p1, l1 := problem(t)
	r1, err := BestFirst(p1, Options{Alpha: 1.0, Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	p2, l2 := problem(t)
	r2, err := BestFirst(p2, Options{Alpha: 10, Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if r1.BestLatency != r2.BestLatency {
		t.Errorf("alpha changed the optimum: %v vs %v", r1.BestLatency, r2.BestLatency)
	}
	if r1.Steps > r2.Steps || l1.Calls > l2.Calls {
		t.Errorf("alpha 1.0 expanded more (%d pops, %d queries) than alpha 10 (%d, %d)", r1.Steps, l1.Calls, r2.Steps, l2.Calls)
	}
}

// noOpKeys gives No-Op the largest key at every decision point.
type noOpKeys struct{}

func (noOpKeys) Keys(obs *env.Observation, _ []env.Candidate, _ *rand.Rand) ([]float64, error) {
	k := make([]float64, len(obs.Mask))
	k[obs.NoOp()] = 1
	return k, nil
}

func TestBRKGAKeys(t *testing.T) {
	p, _ := problem(t)
	res, err := BRKGA(p, Options{Budget: 6, Seed: 1, Keys: noOpKeys{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.BestLatency != res.InitialLatency || len(res.Path) != 0 {
		t.Errorf("keys that always choose No-Op changed the graph: %v -> %v by %v", res.InitialLatency, res.BestLatency, res.Path)
	}
}
