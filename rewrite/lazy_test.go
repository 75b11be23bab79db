package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/models"
)

// lazyCase is a graph the lazy candidates are checked on.
type lazyCase struct {
	name string
	g    *graph.Graph
}

// lazyCases returns the zoo at the cpu preset and a residual chain that
// reuses one weight (the scale graph, 240 blocks).
func lazyCases(t *testing.T) []lazyCase {
	var cases []lazyCase
	for _, name := range models.Names() {
		cases = append(cases, lazyCase{name, zooGraph(t, name)})
	}
	m, err := models.Build("resmlp", models.PresetCPU, models.Overrides{Layers: 240})
	if err != nil {
		t.Fatal(err)
	}
	return append(cases, lazyCase{"resmlp", m.Graph})
}

// TestLazyCandidatesAreCandidates checks, on the zoo and a residual
// chain, that lazy candidates (hashed, and keyed by their change) are the
// built candidates: same rules in the same order, the same graphs once
// built (canonical hash), node counts and changes that add up, and change
// keys from the walk equal to those of full hashing.
func TestLazyCandidatesAreCandidates(t *testing.T) {
	set := shippedRules(t)
	built := NewEngine(set, Options{Eval: executor.Evaluate})
	for _, tc := range lazyCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			want, err := built.Candidates(tc.g)
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range []struct {
				name  string
				nodes int
			}{{"hashed", 1 << 30}, {"keyed", -1}} {
				e := NewEngine(set, Options{Eval: executor.Evaluate, LazyHashNodes: mode.nodes})
				got, st, err := e.CandidatesLazyWithStats(tc.g)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%s: %d lazy candidates, want %d (%v)", mode.name, len(got), len(want), st.Rejected(RejectDuplicate))
				}
				walked := 0
				for i, c := range got {
					w := want[i]
					if c.Rule != w.Rule || c.Graph != nil || c.NumNodes() != len(w.Graph.Nodes) {
						t.Fatalf("%s: candidate %d: rule %s, %d nodes; want %s, %d", mode.name, i, c.Rule, c.NumNodes(), w.Rule, len(w.Graph.Nodes))
					}
					if h := c.GraphHash(); h != w.Hash {
						t.Fatalf("%s: candidate %d (%s): hash %v, want %v", mode.name, i, c.Rule, h, w.Hash)
					}
					ch, ok := c.Change()
					if ok && len(tc.g.Nodes)-len(ch.Old)+len(ch.New) != c.NumNodes() {
						t.Errorf("%s: candidate %d (%s): %d old and %d new nodes for %d -> %d", mode.name, i, c.Rule, len(ch.Old), len(ch.New), len(tc.g.Nodes), c.NumNodes())
					}
					if dl := c.lazy; dl.walked {
						if _, exact, _ := dl.hashAndKey(); dl.key != exact {
							t.Errorf("candidate %d (%s): the walk's key differs from full hashing's", i, c.Rule)
						}
						walked++
					}
					if i%50 == 0 {
						if err := c.Materialize().Validate(); err != nil {
							t.Fatalf("%s: candidate %d (%s): %v", mode.name, i, c.Rule, err)
						}
					}
				}
				if mode.nodes < 0 {
					t.Logf("%d candidates, %d keyed by their change", len(got), walked)
					if walked == 0 && len(got) > 0 {
						t.Error("no candidate was keyed by its change")
					}
				}
			}
		})
	}
}
