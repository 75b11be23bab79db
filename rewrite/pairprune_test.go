package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/models"
)

// branchyRelus builds a graph where some Relu pairs lie on one path and
// others do not: x feeds two chains of three Relus each, joined by an Add,
// followed by two more Relus.
func branchyRelus(t testing.TB) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder("branchy_relus")
	x := b.Input("x", graph.Float32, 2, 4, 3)
	l, r := x, x
	for i := 0; i < 3; i++ {
		l = b.Op("Relu", []*graph.Value{l}, nil)
		r = b.Op("Relu", []*graph.Value{r}, nil)
	}
	v := b.Op("Add", []*graph.Value{l, r}, nil)
	v = b.Op("Relu", []*graph.Value{b.Op("Relu", []*graph.Value{v}, nil)}, nil)
	b.Output(v)
	return graphtest.Graph(t, b)
}

// TestPruneKeepsCandidates checks that skipping the pairs of nodes on one
// path changes no candidate (same rules, hashes and order) on the zoo,
// a branching graph and a chain, and that it does skip on the latter two.
func TestPruneKeepsCandidates(t *testing.T) {
	set := shippedRules(t)
	graphs := map[string]*graph.Graph{"branchy": branchyRelus(t), "chain": reluChain(t, 40)}
	for _, name := range models.Names() {
		graphs[name] = zooGraph(t, name)
	}
	for name, g := range graphs {
		t.Run(name, func(t *testing.T) {
			pruned := NewEngine(set, Options{Eval: executor.Evaluate})
			full := NewEngine(set, Options{Eval: executor.Evaluate})
			full.noPrune = true
			got, st, err := pruned.CandidatesWithStats(g)
			if err != nil {
				t.Fatal(err)
			}
			want, err := full.Candidates(g)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d candidates with pruning, %d without", len(got), len(want))
			}
			for i := range got {
				if got[i].Rule != want[i].Rule || got[i].Hash != want[i].Hash {
					t.Fatalf("candidate %d: %s %x with pruning, %s %x without", i, got[i].Rule, got[i].Hash, want[i].Rule, want[i].Hash)
				}
			}
			if (name == "branchy" || name == "chain") && st.Pruned == 0 {
				t.Errorf("nothing pruned")
			}
			t.Logf("%d candidates, %d scan positions pruned", len(got), st.Pruned)
		})
	}
}
