package rewrite

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/rules"
)

// incrementalCases are the graphs incremental matching is checked on: the
// zoo but NASNet-A (each of its generations takes seconds, 50 s of the
// suite for these tests), the residual chain reusing one weight, and two
// exports of torch.
func incrementalCases(t *testing.T) []lazyCase {
	cases := slices.DeleteFunc(lazyCases(t), func(c lazyCase) bool { return c.name == "nasneta" })
	return append(cases,
		lazyCase{"encoder_classifier_small", loadBoundFolded(t, "testdata/encoder_classifier_small.onnx", map[string][]int{"input_ids": {1, 8}})},
		lazyCase{"decoder_lm_small", loadGzBoundFolded(t, "testdata/decoder_lm_small.onnx.gz", map[string][]int{"input_ids": {2, 8}})},
	)
}

// bigCase is the node count above which the incremental tests check
// fewer generations.
const bigCase = 500

// TestIncrementalMatchesFull walks random episodes (a candidate chosen at
// random each step, built as the environment builds it) and checks at
// every step that the incremental engine's generation is a full one's:
// the same matches of every rule in the same order with the same
// bindings, the same per-rule statistics and the same candidates (rule,
// node count and graph). It also checks that the steps after the first
// were incremental, and that generating a graph again carries every
// match over.
func TestIncrementalMatchesFull(t *testing.T) {
	set := shippedRules(t)
	for _, tc := range incrementalCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			modes := []bool{true, false}
			if len(tc.g.Nodes) > bigCase {
				modes = modes[:1] // built generations of large graphs are slow
			}
			for _, lazy := range modes {
				inc := NewEngine(set, Options{Eval: executor.Evaluate, MaxNodes: 2 * len(tc.g.Nodes)})
				full := NewEngine(set, Options{Eval: executor.Evaluate, MaxNodes: 2 * len(tc.g.Nodes)})
				full.noIncremental = true
				rng := rand.New(rand.NewPCG(uint64(len(tc.g.Nodes)), 7))
				g := tc.g
				incremental := 0
				for step := 0; step < 5; step++ {
					got, gst := generateFor(t, inc, g, lazy)
					want, wst := generateFor(t, full, g, lazy)
					if gst.Incremental {
						incremental++
					}
					if step > 0 && !gst.Incremental {
						t.Errorf("lazy %v, step %d: the graph built from a candidate was matched in full (%d nodes near the change)", lazy, step, gst.Near)
					}
					sameMatches(t, step, latest(t, inc, g), latest(t, full, g))
					sameStats(t, step, gst, wst)
					sameCandidates(t, step, got, want)
					if step == 0 {
						// The same graph again: every match carries over.
						again, ast := generateFor(t, inc, g, lazy)
						if !ast.Incremental || ast.Near != 0 {
							t.Errorf("lazy %v: the same graph again: incremental %v with %d nodes near", lazy, ast.Incremental, ast.Near)
						}
						sameCandidates(t, step, again, want)
					}
					if len(got) == 0 {
						break
					}
					g = got[rng.IntN(len(got))].Materialize()
				}
				t.Logf("lazy %v: %d of the steps incremental", lazy, incremental)
			}
		})
	}
}

// TestIncrementalEveryRule checks, on the graphs of
// TestIncrementalMatchesFull, that the generation of the graph built from
// each candidate (up to two of each rule, one on graphs over bigCase
// nodes) is a full generation's.
func TestIncrementalEveryRule(t *testing.T) {
	set := shippedRules(t)
	for _, tc := range incrementalCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			full := NewEngine(set, Options{Eval: executor.Evaluate, MaxNodes: 2 * len(tc.g.Nodes)})
			full.noIncremental = true
			inc := NewEngine(set, Options{Eval: executor.Evaluate, MaxNodes: 2 * len(tc.g.Nodes)})
			cands, _ := generateFor(t, inc, tc.g, true)
			parent := latest(t, inc, tc.g)
			perRule := map[string]int{}
			checked := 0
			each := 2
			if len(tc.g.Nodes) > bigCase {
				each = 1
			}
			for _, c := range cands {
				if perRule[c.Rule] >= each {
					continue
				}
				perRule[c.Rule]++
				// Each child is generated right after its parent.
				forgetAllBut(parent)
				g := c.Materialize()
				got, gst := generateFor(t, inc, g, true)
				want, wst := generateFor(t, full, g, true)
				if !gst.Incremental {
					t.Fatalf("%s: matched in full (%d nodes near)", c.Rule, gst.Near)
				}
				sameMatches(t, checked, latest(t, inc, g), latest(t, full, g))
				sameStats(t, checked, gst, wst)
				sameCandidates(t, checked, got, want)
				checked++
			}
			t.Logf("%d candidates checked", checked)
		})
	}
}

// latest returns the newest kept generation of e's rules on g.
func latest(t *testing.T, e *Engine, g *graph.Graph) *matchSet {
	t.Helper()
	recentSets.Lock()
	defer recentSets.Unlock()
	for i := len(recentSets.list) - 1; i >= 0; i-- {
		if ms := recentSets.list[i]; ms.by == e && ms.gx.g == g {
			return ms
		}
	}
	t.Fatal("no generation of the graph kept")
	return nil
}

// forgetAllBut leaves ms the only kept generation.
func forgetAllBut(ms *matchSet) {
	recentSets.Lock()
	defer recentSets.Unlock()
	recentSets.list = []*matchSet{ms}
}

// generateFor is one generation of e on g, lazy or built.
func generateFor(t *testing.T, e *Engine, g *graph.Graph, lazy bool) ([]Candidate, Stats) {
	t.Helper()
	cands, st, err := e.generate(g, lazy)
	if err != nil {
		t.Fatal(err)
	}
	return cands, st
}

// sameMatches compares two generations' matches rule by rule.
func sameMatches(t *testing.T, step int, got, want *matchSet) {
	t.Helper()
	for i := range want.found {
		g, w := got.found[i], want.found[i]
		if len(g) != len(w) {
			t.Fatalf("step %d: rule %s: %d matches, want %d", step, w[0].m.Rule.Name, len(g), len(w))
		}
		for k := range w {
			if !slices.Equal(g[k].pos, w[k].pos) || !slices.Equal(g[k].m.Values, w[k].m.Values) ||
				!slices.Equal(g[k].m.Nodes, w[k].m.Nodes) || !slices.EqualFunc(g[k].m.Attrs, w[k].m.Attrs, sameValue) {
				t.Fatalf("step %d: rule %s: match %d at %v, want %v", step, w[k].m.Rule.Name, k, g[k].pos, w[k].pos)
			}
		}
		if len(got.ext[i]) != len(want.ext[i]) {
			t.Fatalf("step %d: rule %d: %d matches rejected for external use, want %d", step, i, len(got.ext[i]), len(want.ext[i]))
		}
	}
}

// sameStats compares the per-rule counts of two generations.
func sameStats(t *testing.T, step int, got, want Stats) {
	t.Helper()
	for i, w := range want.Rules {
		g := got.Rules[i]
		if g.Matches != w.Matches || g.Candidates != w.Candidates || g.Pruned != w.Pruned || len(g.Rejected) != len(w.Rejected) {
			t.Fatalf("step %d: rule %s: %+v, want %+v", step, w.Rule, g, w)
		}
		for r, n := range w.Rejected {
			if g.Rejected[r] != n {
				t.Fatalf("step %d: rule %s: %d rejected as %v, want %d", step, w.Rule, g.Rejected[r], r, n)
			}
		}
	}
}

// sameCandidates compares two candidate lists.
func sameCandidates(t *testing.T, step int, got, want []Candidate) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("step %d: %d candidates, want %d", step, len(got), len(want))
	}
	for i, w := range want {
		c := got[i]
		if c.Rule != w.Rule || c.NumNodes() != w.NumNodes() || c.GraphHash() != w.GraphHash() {
			t.Fatalf("step %d: candidate %d: %s with %d nodes, want %s with %d", step, i, c.Rule, c.NumNodes(), w.Rule, w.NumNodes())
		}
	}
}

// sameValue compares two attribute bindings (a record by the node it was
// captured from: the matches compared bind the same nodes).
func sameValue(a, b rules.Value) bool {
	return a.Kind == b.Kind && a.Unset == b.Unset && a.Int == b.Int && a.Float == b.Float && a.Str == b.Str &&
		slices.Equal(a.Ints, b.Ints) && slices.Equal(a.Floats, b.Floats) && a.Bool == b.Bool && a.Tensor == b.Tensor &&
		len(a.Rec) == len(b.Rec)
}

// TestNearChange checks which nodes count as near a change: the new ones,
// those reading a value whose producer changed (a rule's condition may
// look at the producer), and those making a value a removed node read
// (the external-use check looks at the readers), but not the siblings of
// a removed reader or the nodes further away.
func TestNearChange(t *testing.T) {
	// x -> A: Relu -> a; B: Neg(a) -> b; C: Exp(a) -> c; D: Add(b, c) -> y.
	var a *graph.Value
	g := graphtest.Build(t, func(b *graph.Builder) {
		x := b.Input("x", graph.Float32, 4)
		a = b.Op("Relu", []*graph.Value{x}, nil)
		nb := b.Op("Neg", []*graph.Value{a}, nil)
		c := b.Op("Exp", []*graph.Value{a}, nil)
		b.Output(b.Op("Add", []*graph.Value{nb, c}, nil), nb)
	})
	byOp := map[string]*graph.Node{}
	for _, n := range g.Nodes {
		byOp[n.Op] = n
	}
	with := func(nodes []*graph.Node, outputs ...*graph.Value) *graph.Graph {
		g2 := *g
		g2.Nodes, g2.Outputs = nodes, outputs
		return &g2
	}
	sigmoid := &graph.Node{Name: "s", Op: "Sigmoid", Inputs: byOp["Relu"].Inputs, Outputs: []*graph.Value{a}}
	for _, tc := range []struct {
		name string
		g    *graph.Graph
		want []string // ops of the near nodes
	}{
		{"the same graph", g, nil},
		{"a producer replaced", with([]*graph.Node{sigmoid, byOp["Neg"], byOp["Exp"], byOp["Add"]}, g.Outputs...),
			[]string{"Sigmoid", "Neg", "Exp"}},
		{"a reader removed", with([]*graph.Node{byOp["Relu"], byOp["Exp"]}, byOp["Exp"].Outputs[0]),
			[]string{"Relu", "Exp"}},
		{"an output no longer declared", with(g.Nodes, g.Outputs[0]), []string{"Neg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, err := newIndex(g)
			if err != nil {
				t.Fatal(err)
			}
			gx, err := newIndex(tc.g)
			if err != nil {
				t.Fatal(err)
			}
			near, list := nearChange(old, gx)
			var got []string
			for _, p := range list {
				if !near[p] {
					t.Errorf("position %d listed but not marked", p)
				}
				got = append(got, gx.nodes[p].Op)
			}
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("near %v, want %v", got, want)
			}
		})
	}
}

// TestEngineIncrementalConcurrent walks episodes on two graphs at once
// with one engine (as parallel environments share one), each step checked
// against a full generation; the suite runs it under the race detector.
func TestEngineIncrementalConcurrent(t *testing.T) {
	set := shippedRules(t)
	inc := NewEngine(set, Options{Eval: executor.Evaluate})
	full := NewEngine(set, Options{Eval: executor.Evaluate})
	full.noIncremental = true
	names := []string{"bert", "resnet18", "transducer"}
	errs := make(chan string, len(names))
	for k, name := range names {
		g := zooGraph(t, name)
		go func() {
			rng := rand.New(rand.NewPCG(uint64(k), 1))
			for step := 0; step < 4; step++ {
				got, _, err := inc.generate(g, true)
				if err != nil {
					errs <- err.Error()
					return
				}
				want, _, err := full.generate(g, true)
				if err != nil {
					errs <- err.Error()
					return
				}
				if len(got) != len(want) {
					errs <- fmt.Sprintf("%s, step %d: %d candidates, want %d", name, step, len(got), len(want))
					return
				}
				for i := range want {
					if got[i].Rule != want[i].Rule || got[i].GraphHash() != want[i].GraphHash() {
						errs <- fmt.Sprintf("%s, step %d: candidate %d is %s, want %s", name, step, i, got[i].Rule, want[i].Rule)
						return
					}
				}
				if len(got) == 0 {
					break
				}
				g = got[rng.IntN(len(got))].Materialize()
			}
			errs <- ""
		}()
	}
	for range names {
		if msg := <-errs; msg != "" {
			t.Error(msg)
		}
	}
}
