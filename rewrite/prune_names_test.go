package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// TestPruneDeadNodeNamesUnique checks that the nodes PruneDead adds take
// names no node of the graph has. A graph pruned before holds nodes named
// after the values they cut ("x_cut"), and ONNX Runtime refuses a model
// with two nodes of one name.
func TestPruneDeadNodeNamesUnique(t *testing.T) {
	b := graph.NewBuilder("pooled")
	x := b.Input("x", graph.Float32, 6, 8)
	y := b.Op("Relu", []*graph.Value{b.Op("MatMul", []*graph.Value{x, b.Const("w", randConst(1, 8, 8))}, nil)}, nil)
	b.Output(b.Op("Gather", []*graph.Value{y, b.Const("i", graph.FromInt64([]int64{0}))}, graph.Attrs{"axis": graph.IntAttr(0)}))
	b.Output(b.Op("Neg", []*graph.Value{x}, nil)) // reads all of x: the MatMul's row is cut from it
	g := builtInferred(t, b)
	for _, n := range g.Nodes {
		if n.Op == "Neg" {
			n.Name = "x_cut"
		}
	}
	out, changed, err := PruneDead(g)
	if err != nil || !changed {
		t.Fatalf("PruneDead: changed %v, err %v", changed, err)
	}
	seen := map[string]bool{}
	for _, n := range out.Nodes {
		if seen[n.Name] {
			t.Errorf("two nodes named %q", n.Name)
		}
		seen[n.Name] = true
	}
}
