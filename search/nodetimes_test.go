package search_test

import (
	"slices"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/nodecost"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules/ruleverify"
	"github.com/xrl-dev/xrl/search"
)

// sizeCost is a per-node cost model: a node costs 10 ns per letter of its
// op plus 1 ns per element of its outputs, and nothing when it reads only
// constants and values computed from them (as measure.CostModel).
type sizeCost struct{}

func (sizeCost) Name() string { return "size" }

func (sizeCost) OpTime(_ *graph.Model, n *graph.Node) (time.Duration, error) {
	d := time.Duration(10 * len(n.Op))
	for _, o := range n.Outputs {
		if o != nil {
			d += time.Duration(graph.NumElements(o.Shape.Ints()))
		}
	}
	return d, nil
}

func (c sizeCost) Latency(m *graph.Model) (measure.Stats, error) {
	var total time.Duration
	constant := map[*graph.Value]bool{}
	for _, n := range m.Graph.Nodes {
		fromConsts := !n.IsOpaque()
		for _, in := range n.AllInputs() {
			fromConsts = fromConsts && (in == nil || in.Const != nil || constant[in])
		}
		if fromConsts {
			for _, o := range n.Outputs {
				constant[o] = true
			}
			continue
		}
		d, _ := c.OpTime(m, n)
		total += d
	}
	return measure.Stats{N: 1, Median: total}, nil
}

// TestNodeTimesKeepSearches runs best-first and greedy search on zoo models
// and a residual chain with candidates scored on their graphs and from
// their changes (Problem.NodeTimes), with candidates hashed and keyed by
// their change: the best graph, its latency, the path and the steps agree.
func TestNodeTimesKeepSearches(t *testing.T) {
	set, err := ruleverify.LoadWith(nil, ruleverify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cases []*graph.Model
	for _, name := range []string{"bert", "nasrnn", "squeezenet"} {
		m, err := models.Build(name, models.PresetCPU, models.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, m)
	}
	chain, err := models.Build("resmlp", models.PresetCPU, models.Overrides{Layers: 60})
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, chain)
	for _, m := range cases {
		for _, alg := range []string{"taso", "greedy"} {
			name := m.Graph.Name + "/" + alg
			var want *search.Result
			for _, mode := range []struct {
				times     bool
				hashNodes int
			}{{false, 0}, {true, 0}, {true, -1}} {
				e := rewrite.NewEngine(set, rewrite.Options{Eval: executor.Evaluate, LazyHashNodes: mode.hashNodes})
				p := &search.Problem{Model: m, Rewriter: e, Latency: measure.Cached(sizeCost{})}
				if mode.times {
					p.NodeTimes = nodecost.NewTimer(sizeCost{})
				}
				got, err := search.Algorithms[alg](p, search.Options{Budget: 4})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if want == nil {
					want = got
					continue
				}
				if got.BestLatency != want.BestLatency || got.Steps != want.Steps || !slices.Equal(got.Path, want.Path) ||
					got.Best.CanonicalHash() != want.Best.CanonicalHash() {
					t.Errorf("%s (node times %v, lazy hashing %d): best %v in %d steps via %v; want %v in %d via %v",
						name, mode.times, mode.hashNodes, got.BestLatency, got.Steps, got.Path, want.BestLatency, want.Steps, want.Path)
				}
				if mode.hashNodes == 0 && got.Evaluations != want.Evaluations {
					t.Errorf("%s: %d latency queries, want %d", name, got.Evaluations, want.Evaluations)
				}
			}
		}
	}
}
