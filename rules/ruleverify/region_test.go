package ruleverify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
)

// layered builds x[4,8] -> MatMul -> Relu -> Add(x) -> MatMul -> Tanh -> y,
// with a second output read from the Relu through a Sigmoid: eight nodes,
// so that a change to one of them is a change to a small part.
func layered(t *testing.T) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder("layered")
	x := b.Input("x", graph.Float32, 4, 8)
	w := func(name string, scale float32) *graph.Value {
		d := make([]float32, 64)
		for i := range d {
			d[i] = scale * float32((i*7)%11-5)
		}
		return b.Const(name, &graph.Tensor{DType: graph.Float32, Shape: []int{8, 8}, Data: d})
	}
	h := b.Op("MatMul", []*graph.Value{x, w("w1", 0.1)}, nil)
	r := b.Op("Relu", []*graph.Value{h}, nil)
	s := b.Op("Add", []*graph.Value{r, x}, nil)
	m := b.Op("MatMul", []*graph.Value{s, w("w2", 0.05)}, nil)
	y := b.Op("Tanh", []*graph.Value{m}, nil)
	z := b.Op("Sigmoid", []*graph.Value{r}, nil)
	n := b.Op("Neg", []*graph.Value{z}, nil)
	e := b.Op("Exp", []*graph.Value{n}, nil)
	b.Output(y, e)
	return graphtest.Graph(t, b)
}

// rewritten returns a copy of g with the first node of op replaced by
// what f makes of its inputs, writing the same output value.
func rewritten(t *testing.T, g *graph.Graph, op string, f func(n *graph.Node)) *graph.Graph {
	t.Helper()
	c := g.Clone()
	for _, n := range c.Nodes {
		if n.Op == op {
			f(n)
			return c
		}
	}
	t.Fatalf("no %s node", op)
	return nil
}

// TestRegionChecks checks that a Reference with Regions checks a change
// to one node on that node alone (the other seven are the same nodes),
// accepts an equivalent one, rejects a wrong one naming the value where
// the graphs differ, and falls back to the whole graphs when every name
// changed.
func TestRegionChecks(t *testing.T) {
	g := layered(t)
	zero := &graph.Value{Name: "zero", DType: graph.Float32, ShapeKnown: true, Const: &graph.Tensor{DType: graph.Float32, Shape: []int{}, Data: []float32{0}}}
	reluAsMax := func(n *graph.Node) { n.Op, n.Inputs = "Max", append(n.Inputs, zero) }
	renamed := g.Clone()
	for _, n := range renamed.Nodes {
		for _, o := range n.Outputs {
			if o != renamed.Outputs[0] && o != renamed.Outputs[1] {
				o.Name += "_renamed"
			}
		}
	}
	cases := []struct {
		name    string
		b       *graph.Graph
		region  int    // nodes of b checked on their own; 0: the whole graphs
		wantErr string // "" when the graphs are the same function
	}{
		{"relu as max", rewritten(t, g, "Relu", reluAsMax), 1, ""},
		{"relu as abs", rewritten(t, g, "Relu", func(n *graph.Node) { n.Op = "Abs" }), 1, "where the graphs differ, differs"},
		{"tanh as sigmoid", rewritten(t, g, "Tanh", func(n *graph.Node) { n.Op = "Sigmoid" }), 1, "where the graphs differ, differs"},
		{"exp as neg", rewritten(t, g, "Exp", func(n *graph.Node) { n.Op = "Neg" }), 1, "where the graphs differ, differs"},
		{"every name changed", renamed, 0, ""},
		{"every name changed and wrong", rewritten(t, renamed, "Relu", func(n *graph.Node) { n.Op = "Abs" }), 0, "differs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := splitChanged(g, tc.b)
			switch {
			case tc.region == 0 && ok:
				t.Fatalf("checked on %d nodes, want the whole graphs", len(c.b.Nodes))
			case tc.region > 0 && !ok:
				t.Fatal("checked on the whole graphs, want the changed part")
			case tc.region > 0 && len(c.b.Nodes) != tc.region:
				t.Fatalf("checked on %d nodes, want %d", len(c.b.Nodes), tc.region)
			}
			r := &Reference{Seeds: 2, FirstSeed: 3, Regions: true}
			_, err := r.Same(g, tc.b, 1e-9)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("equivalent graphs: %v", err)
			case tc.wantErr != "" && err == nil:
				t.Fatal("a wrong rewrite passed the check")
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Fatalf("error %q, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestRegionChecksObserveOnce checks that two changes to one graph read
// its values from one observation, and that a check made before is
// answered without running anything.
func TestRegionChecksObserveOnce(t *testing.T) {
	g := layered(t)
	r := &Reference{Seeds: 2, FirstSeed: 3, Regions: true}
	for _, op := range []string{"Tanh", "Sigmoid"} {
		b := rewritten(t, g, op, func(n *graph.Node) {
			n.Op, n.Inputs = "Mul", []*graph.Value{n.Inputs[0], &graph.Value{Name: "one", DType: graph.Float32, ShapeKnown: true, Const: &graph.Tensor{DType: graph.Float32, Shape: []int{}, Data: []float32{1}}}}
		})
		if _, err := r.Same(g, b, 1e-9); err == nil {
			t.Fatalf("%s as a multiplication by 1 passed the check", op)
		}
	}
	if len(r.observed) != 1 || r.observeRuns != 1 {
		t.Fatalf("%d graphs observed in %d runs, want 1 in 1", len(r.observed), r.observeRuns)
	}
	if got := len(r.observed[g.CanonicalHash()]); got != len(g.Nodes) {
		t.Fatalf("%d values observed, want every node's output (%d)", got, len(g.Nodes))
	}
	if len(r.verdicts) != 2 {
		t.Fatalf("%d verdicts kept, want 2", len(r.verdicts))
	}
}

// TestRegionChecksInherit checks that a change that passed leaves the
// rewritten graph's values observed (a's where it kept a's nodes, its
// own where it changed), so that a second pass checked against the
// first's result does not run that graph, and that the second pass's
// check still tells a wrong change from a right one.
func TestRegionChecksInherit(t *testing.T) {
	g := layered(t)
	zero := &graph.Value{Name: "zero", DType: graph.Float32, ShapeKnown: true, Const: &graph.Tensor{DType: graph.Float32, Shape: []int{}, Data: []float32{0}}}
	r := &Reference{Seeds: 2, FirstSeed: 3, Regions: true}
	b1 := rewritten(t, g, "Relu", func(n *graph.Node) { n.Op, n.Inputs = "Max", append(n.Inputs, zero) })
	if _, err := r.Same(g, b1, 1e-9); err != nil {
		t.Fatal(err)
	}
	kept := r.observed[b1.CanonicalHash()]
	if len(kept) != len(b1.Nodes) {
		t.Fatalf("%d of b1's %d values kept after its check", len(kept), len(b1.Nodes))
	}
	for _, n := range b1.Nodes {
		if n.Op == "Max" && kept[n.Outputs[0].Name][0].DType != graph.Float64 {
			t.Fatal("the changed node's value is not the float64 one its check computed")
		}
	}
	right := rewritten(t, b1, "Neg", func(n *graph.Node) {
		n.Op, n.Inputs = "Sub", []*graph.Value{zero, n.Inputs[0]}
	})
	wrong := rewritten(t, b1, "Neg", func(n *graph.Node) { n.Op = "Abs" })
	if _, err := r.Same(b1, right, 1e-9); err != nil {
		t.Fatalf("0 - x for -x: %v", err)
	}
	if _, err := r.Same(b1, wrong, 1e-9); err == nil {
		t.Fatal("|x| for -x passed the check")
	}
	if len(r.observed) != 3 || r.observeRuns != 1 {
		t.Fatalf("%d graphs observed or inherited in %d runs, want 3 in 1 (g run; b1 and its right successor inherited)", len(r.observed), r.observeRuns)
	}
}

// TestRegionChecksConcurrent checks changes to one graph from several
// goroutines at once, as the rule engine checks its passes' results
// (scripts/test runs it under the race detector): each verdict is the
// one a check alone gives.
func TestRegionChecksConcurrent(t *testing.T) {
	g := layered(t)
	r := &Reference{Seeds: 2, FirstSeed: 3, Regions: true}
	ops := []string{"Relu", "Tanh", "Sigmoid", "Exp", "Neg"}
	errs := make(chan error, 2*len(ops))
	for i := 0; i < 2; i++ {
		for _, op := range ops {
			go func() {
				b := rewritten(t, g, op, func(n *graph.Node) { n.Op = "Abs" })
				_, err := r.Same(g, b, 1e-9)
				if err == nil {
					err = fmt.Errorf("%s as Abs passed the check", op)
				} else {
					err = nil
				}
				errs <- err
			}()
		}
	}
	for range 2 * len(ops) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
