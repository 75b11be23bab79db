package graph

import (
	"fmt"
	"testing"
)

// expandToBatch builds the chain PyTorch exports for cls.expand(batch, -1,
// -1), batch the first dimension of input x [batch, 4]: the target shape is
// concatenated, reshaped to [-1], and its -1 entries replaced by 1 through
// ConstantOfShape, Mul, Equal and Where. It returns the graph and the
// Expand's output.
func expandToBatch(t *testing.T) (*Graph, *Value) {
	b := NewBuilder("expand")
	x := b.Input("x", Float32, 1, 4)
	cls := b.Const("cls", FromFloat32([]float32{1, 2, 3, 4}, 1, 1, 4))
	i64 := func(name string, v ...int64) *Value { return b.Const(name, FromInt64(v, len(v))) }
	n := b.Op("Unsqueeze", []*Value{b.Op("Gather", []*Value{b.Op("Shape", []*Value{x}, nil), b.Const("zero", FromInt64([]int64{0}))},
		Attrs{"axis": IntAttr(0)}), i64("axes", 0)}, nil)
	target := b.Op("Reshape", []*Value{b.Op("Concat", []*Value{n, i64("m1", -1), i64("m2", -1)}, Attrs{"axis": IntAttr(0)}), i64("flat", -1)}, nil)
	ones := b.Op("ConstantOfShape", []*Value{b.Op("Shape", []*Value{target}, nil)}, Attrs{"value": TensorAttr(FromInt64([]int64{1}, 1))})
	minus := b.Op("Mul", []*Value{ones, b.Const("minus", FromInt64([]int64{-1}))}, nil)
	shape := b.Op("Where", []*Value{b.Op("Equal", []*Value{target, minus}, nil), ones, target}, nil)
	y := b.Op("Expand", []*Value{cls, shape}, nil)
	b.Output(y)
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	// As read from a file: the input's batch is named, nothing inferred.
	x.Shape[0] = Dim{Value: -1, Param: "batch"}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			o.Shape, o.ShapeKnown, o.Known, o.KnownDims = nil, false, nil, nil
		}
	}
	return g, y
}

// TestSymReshapeKeepsElements checks that a Reshape of a shape tensor keeps
// its symbolic elements, so that the Expand of expandToBatch gives
// [batch, 1, 4], not an unknown symbol that equals nothing else.
func TestSymReshapeKeepsElements(t *testing.T) {
	for _, size := range []int{1, 3} {
		g, y := expandToBatch(t)
		if err := g.BindShapesWith(map[string][]int{"x": {size, 4}}, BindOptions{KeepSymbols: true}); err != nil {
			t.Fatal(err)
		}
		if got, want := y.Shape.SymString(), fmt.Sprintf("%d(batch)x1x4", size); got != want {
			t.Errorf("batch %d: Expand output %s, want %s", size, got, want)
		}
	}
}
