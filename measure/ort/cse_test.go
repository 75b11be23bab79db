package ort

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

func TestHasCommonSubexpression(t *testing.T) {
	ones := func() *graph.Tensor { return graph.FromFloat32([]float32{1, 1}, 2) }
	for _, tc := range []struct {
		name  string
		build func(b *graph.Builder, x *graph.Value) *graph.Value
		want  bool
	}{
		{"chain sharing a weight", func(b *graph.Builder, x *graph.Value) *graph.Value {
			w := b.Const("w", ones())
			for range 3 {
				x = b.Op("Relu", []*graph.Value{b.Op("Add", []*graph.Value{x, w}, nil)}, nil)
			}
			return x
		}, false},
		{"one op twice on one input", func(b *graph.Builder, x *graph.Value) *graph.Value {
			return b.Op("Add", []*graph.Value{b.Op("Relu", []*graph.Value{x}, nil), b.Op("Relu", []*graph.Value{x}, nil)}, nil)
		}, true},
		{"attributes differ", func(b *graph.Builder, x *graph.Value) *graph.Value {
			l := b.Op("Softmax", []*graph.Value{x}, graph.Attrs{"axis": graph.IntAttr(0)})
			r := b.Op("Softmax", []*graph.Value{x}, graph.Attrs{"axis": graph.IntAttr(-1)})
			return b.Op("Add", []*graph.Value{l, r}, nil)
		}, false},
		{"equal constants in two initialisers", func(b *graph.Builder, x *graph.Value) *graph.Value {
			l := b.Op("Add", []*graph.Value{x, b.Const("c1", ones())}, nil)
			r := b.Op("Add", []*graph.Value{x, b.Const("c2", ones())}, nil)
			return b.Op("Mul", []*graph.Value{l, r}, nil)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := graph.NewBuilder(tc.name)
			b.Output(tc.build(b, b.Input("x", graph.Float32, 2)))
			g, err := b.Graph()
			if err != nil {
				t.Fatal(err)
			}
			if got := hasCommonSubexpression(g); got != tc.want {
				t.Errorf("hasCommonSubexpression = %v, want %v", got, tc.want)
			}
		})
	}
}
