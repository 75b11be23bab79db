package graph

import (
	"fmt"
	"testing"
)

// knownString renders a Known tensor as "dtype[shape]=values".
func knownString(t *Tensor) string {
	if t == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%v=%v", t, t.Data)
}

// The Shape -> Gather -> Unsqueeze -> Concat -> Reshape pattern of exported
// PyTorch models must infer through Known values.
func TestKnownShapeSubgraph(t *testing.T) {
	b := NewBuilder("flatten")
	x := b.Input("x", Float32, 2, 3, 4, 5)
	shape := b.Op("Shape", []*Value{x}, nil)
	batch := b.Op("Gather", []*Value{shape, b.Const("zero", FromInt64([]int64{0}))}, Attrs{"axis": IntAttr(0)})
	batch1 := b.Op("Unsqueeze", []*Value{batch, b.Const("axes", FromInt64([]int64{0}, 1))}, nil)
	target := b.Op("Concat", []*Value{batch1, b.Const("minus1", FromInt64([]int64{-1}, 1))}, Attrs{"axis": IntAttr(0)})
	y := b.Op("Reshape", []*Value{x, target}, nil)
	b.Output(y)
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	if got := y.Shape.String(); got != "2x60" {
		t.Errorf("Reshape output %s, want 2x60", got)
	}
	for v, want := range map[*Value]string{
		shape:  "int64[4]=[2 3 4 5]",
		batch:  "int64[scalar]=[2]",
		batch1: "int64[1]=[2]",
		target: "int64[2]=[2 -1]",
	} {
		if got := knownString(v.Known); got != want {
			t.Errorf("%s: known %s, want %s", v.Name, got, want)
		}
	}
	// Re-inference on the finished graph must reproduce the same result.
	if err := g.InferShapes(); err != nil {
		t.Fatal(err)
	}
	if y.Shape.String() != "2x60" {
		t.Errorf("after InferShapes: %v", y.Shape)
	}
}

// Every op that propagates values, one row each.
func TestKnownValues(t *testing.T) {
	c := func(v ...int64) arg { return ints(v...) }
	cases := []struct {
		name  string
		op    string
		args  []arg
		attrs Attrs
		want  string
	}{
		{"add broadcast", "Add", []arg{c(1, 2, 3), scalarI64(10)}, nil, "int64[3]=[11 12 13]"},
		{"sub", "Sub", []arg{c(5, 5), c(1, 2)}, nil, "int64[2]=[4 3]"},
		{"mul", "Mul", []arg{c(2, 3), c(4, 5)}, nil, "int64[2]=[8 15]"},
		{"div truncates", "Div", []arg{c(7, -7), c(2, 2)}, nil, "int64[2]=[3 -3]"},
		{"div float", "Div", []arg{floats(1, 3), floats(2, 2)}, nil, "float32[2]=[0.5 1.5]"},
		{"equal", "Equal", []arg{c(1, 2, 3), c(1, 0, 3)}, nil, "bool[3]=[true false true]"},
		{"max", "Max", []arg{c(1, 5), c(3, 2), scalarI64(4)}, nil, "int64[2]=[4 5]"},
		{"min", "Min", []arg{c(1, 5), c(3, 2)}, nil, "int64[2]=[1 2]"},
		{"where", "Where", []arg{{val: &Tensor{DType: Bool, Shape: []int{2}, Data: []bool{true, false}}}, c(1, 2), scalarI64(9)}, nil, "int64[2]=[1 9]"},
		{"identity", "Identity", []arg{c(4, 5)}, nil, "int64[2]=[4 5]"},
		{"cast to float", "Cast", []arg{c(4, 5)}, Attrs{"to": IntAttr(int64(Float32))}, "float32[2]=[4 5]"},
		{"cast to int32", "Cast", []arg{floats(2.7, -2.7)}, Attrs{"to": IntAttr(int64(Int32))}, "int32[2]=[2 -2]"},
		{"squeeze", "Squeeze", []arg{{val: FromInt64([]int64{7}, 1, 1)}}, nil, "int64[scalar]=[7]"},
		{"unsqueeze", "Unsqueeze", []arg{scalarI64(7), c(0)}, nil, "int64[1]=[7]"},
		{"reshape", "Reshape", []arg{c(1, 2, 3, 4), c(2, 2)}, nil, "int64[2x2]=[1 2 3 4]"},
		{"flatten", "Flatten", []arg{{val: FromInt64([]int64{1, 2}, 2)}}, Attrs{"axis": IntAttr(0)}, "int64[1x2]=[1 2]"},
		{"slice", "Slice", []arg{c(10, 11, 12, 13, 14), c(1), c(4)}, nil, "int64[3]=[11 12 13]"},
		{"slice reverse", "Slice", []arg{c(10, 11, 12, 13, 14), c(-1), c(-100), c(0), c(-2)}, nil, "int64[3]=[14 12 10]"},
		{"slice 2d", "Slice", []arg{{val: FromInt64([]int64{1, 2, 3, 4, 5, 6}, 2, 3)}, c(1), c(3), c(1)}, nil, "int64[2x2]=[2 3 5 6]"},
		{"gather 2d axis 1", "Gather", []arg{{val: FromInt64([]int64{1, 2, 3, 4, 5, 6}, 2, 3)}, c(2, 0)}, Attrs{"axis": IntAttr(1)}, "int64[2x2]=[3 1 6 4]"},
		{"gather negative", "Gather", []arg{c(10, 11, 12), scalarI64(-1)}, nil, "int64[scalar]=[12]"},
		{"concat axis 1", "Concat", []arg{{val: FromInt64([]int64{1, 2}, 2, 1)}, {val: FromInt64([]int64{3, 4, 5, 6}, 2, 2)}}, Attrs{"axis": IntAttr(1)}, "int64[2x3]=[1 3 4 2 5 6]"},
		{"transpose", "Transpose", []arg{{val: FromInt64([]int64{1, 2, 3, 4, 5, 6}, 2, 3)}}, nil, "int64[3x2]=[1 4 2 5 3 6]"},
		{"expand", "Expand", []arg{c(1, 2), c(2, 2)}, nil, "int64[2x2]=[1 2 1 2]"},
		{"constant", "Constant", nil, Attrs{"value_ints": IntsAttr(3, 4)}, "int64[2]=[3 4]"},
		{"shape slice", "Shape", []arg{f32(2, 3, 4)}, Attrs{"start": IntAttr(-2)}, "int64[2]=[3 4]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := inferCase{name: tc.name, op: tc.op, args: tc.args, attrs: tc.attrs}.makeNode()
			if err := InferNode(n); err != nil {
				t.Fatal(err)
			}
			if got := knownString(n.Outputs[0].Known); got != tc.want {
				t.Errorf("known %s, want %s", got, tc.want)
			}
			if k := n.Outputs[0].Known; k != nil && StaticShape(k.Shape...).String() != n.Outputs[0].Shape.String() {
				t.Errorf("known shape %v disagrees with output shape %v", k.Shape, n.Outputs[0].Shape)
			}
		})
	}
}

// Values are not propagated when an input is unknown, too large, or the
// result is too large, and integer division by zero is not folded.
func TestKnownNotPropagated(t *testing.T) {
	big := make([]int64, maxKnownElems+1)
	cases := []struct {
		name string
		op   string
		args []arg
	}{
		{"unknown input", "Add", []arg{i64(2), ints(1, 2)}},
		{"large input", "Identity", []arg{{val: FromInt64(big, len(big))}}},
		{"large result", "Expand", []arg{ints(1), ints(maxKnownElems + 1)}},
		{"div by zero", "Div", []arg{ints(1), ints(0)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := inferCase{op: tc.op, args: tc.args}.makeNode()
			if err := InferNode(n); err != nil {
				t.Fatal(err)
			}
			if k := n.Outputs[0].Known; k != nil {
				t.Errorf("unexpected known value %s", knownString(k))
			}
		})
	}
}
