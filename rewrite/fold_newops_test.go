package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
)

// TestFoldGeneratorOps folds constant subgraphs made of generator and
// elementwise ops (Range, Cast, Neg, ConstantOfShape, Trilu, Size) into
// initializers and checks the folded graph computes the same function.
func TestFoldGeneratorOps(t *testing.T) {
	i64 := func(v ...int64) *graph.Tensor { return graph.FromInt64(v, len(v)) }
	g := graphtest.Build(t, func(b *graph.Builder) {
		x := b.Input("x", graph.Float32, 2, 4)
		r := b.Op("Range", []*graph.Value{b.Const("start", graph.FromInt64([]int64{0})),
			b.Const("limit", graph.FromInt64([]int64{4})), b.Const("delta", graph.FromInt64([]int64{1}))}, nil)
		neg := b.Op("Neg", []*graph.Value{b.Op("Cast", []*graph.Value{r}, graph.Attrs{"to": graph.IntAttr(int64(graph.Float32))})}, nil)
		ones := b.Op("ConstantOfShape", []*graph.Value{b.Const("shape", i64(4, 4))},
			graph.Attrs{"value": graph.TensorAttr(graph.FromFloat32([]float32{1}, 1))})
		mask := b.Op("Trilu", []*graph.Value{ones}, nil)
		size := b.Op("Cast", []*graph.Value{b.Op("Size", []*graph.Value{x}, nil)}, graph.Attrs{"to": graph.IntAttr(int64(graph.Float32))})
		y := b.Op("MatMul", []*graph.Value{b.Op("Add", []*graph.Value{x, neg}, nil), mask}, nil)
		b.Output(b.Op("Mul", []*graph.Value{y, size}, nil))
	})
	f, st, err := Fold(g, executor.Evaluate)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Failed) != 0 || st.Folded != 7 {
		t.Errorf("stats %+v, want 7 folded and no failures", st)
	}
	for _, n := range f.Nodes {
		switch n.Op {
		case "Add", "MatMul", "Mul":
		default:
			t.Errorf("node %v left after folding", n)
		}
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	verifySame(t, g, f, "generator ops")
}
