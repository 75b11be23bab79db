package graph

import (
	"strings"
	"testing"
)

// TestSymSpatial checks the symbolic labels of windowed ops and Resize on
// an image of symbolic height and width, bound at 16x16: a stride-1 window
// that keeps the size keeps the symbol, a strided one gives an unknown
// dimension rather than a size that holds only at the binding, and Resize
// by 2 doubles the symbol.
func TestSymSpatial(t *testing.T) {
	tests := []struct {
		name string
		op   func(b *Builder, x *Value) *Value
		want []string // output dims, "?" for an unknown symbol
	}{
		{"conv 3x3, stride 1, same padding", func(b *Builder, x *Value) *Value {
			return b.Op("Conv", []*Value{x, b.Const("w", NewTensor(Float32, 4, 3, 3, 3))}, Attrs{"pads": IntsAttr(1, 1, 1, 1)})
		}, []string{"batch", "4", "h", "w"}},
		{"conv 3x3, stride 2", func(b *Builder, x *Value) *Value {
			return b.Op("Conv", []*Value{x, b.Const("w", NewTensor(Float32, 4, 3, 3, 3))}, Attrs{"pads": IntsAttr(1, 1, 1, 1), "strides": IntsAttr(2, 2)})
		}, []string{"batch", "4", "?", "?"}},
		{"max pool 2x2", func(b *Builder, x *Value) *Value {
			return b.Op("MaxPool", []*Value{x}, Attrs{"kernel_shape": IntsAttr(2, 2), "strides": IntsAttr(2, 2)})
		}, []string{"batch", "3", "?", "?"}},
		{"resize by 1, 1, 2, 2", func(b *Builder, x *Value) *Value {
			return b.Op("Resize", []*Value{x, nil, b.Const("scales", FromFloat32([]float32{1, 1, 2, 2}, 4))}, Attrs{"mode": StringAttr("nearest")})
		}, []string{"batch", "3", "2*h", "2*w"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder("spatial")
			x := b.Input("x", Float32, 1, 3, 16, 16)
			b.Output(tc.op(b, x))
			g, err := b.Graph()
			if err != nil {
				t.Fatal(err)
			}
			// Declare the input's symbols, as a model read from a file.
			x.Shape = Shape{{Value: -1, Param: "batch"}, {Value: 3}, {Value: -1, Param: "h"}, {Value: -1, Param: "w"}}
			for _, n := range g.Nodes {
				for _, o := range n.Outputs {
					o.ShapeKnown, o.DType = false, Undefined
				}
			}
			if err := g.BindShapesWith(map[string][]int{"x": {1, 3, 16, 16}}, BindOptions{KeepSymbols: true}); err != nil {
				t.Fatal(err)
			}
			out := g.Outputs[0].Shape
			for i, d := range out {
				got := d.String()
				switch {
				case strings.HasPrefix(d.Param, "[?"):
					got = "?"
				case d.Param != "":
					got = d.Param
				}
				if got != tc.want[i] {
					t.Errorf("dimension %d is %q, want %q (shape %v)", i, got, tc.want[i], out)
				}
			}
		})
	}
}
