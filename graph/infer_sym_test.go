package graph

import (
	"strings"
	"testing"
)

// symInput returns an input of b labelled with dims: a size and, for a
// symbolic dimension, its name ("1:batch").
func symInput(b *Builder, name string, dims ...string) *Value {
	v := b.Input(name, Float32)
	v.Shape = make(Shape, len(dims))
	for i, d := range dims {
		size, sym, _ := strings.Cut(d, ":")
		var n int64
		for _, c := range size {
			n = 10*n + int64(c-'0')
		}
		v.Shape[i] = Dim{Value: n, Param: sym}
	}
	return v
}

func TestInferSymbolicReshapeAndAttention(t *testing.T) {
	ints := func(vs ...int64) *Tensor { return FromInt64(vs, len(vs)) }
	tests := []struct {
		name string
		// build returns the value whose labelled shape is checked.
		build func(b *Builder) *Value
		want  string
	}{
		{
			name: "reshape with -1 merges batch and sequence",
			build: func(b *Builder) *Value {
				x := symInput(b, "x", "2:batch", "3:seq", "4")
				return b.Op("Reshape", []*Value{x, b.Const("s", ints(-1, 4))}, nil)
			},
			want: "6(batch*seq)x4",
		},
		{
			name: "reshape with zeros copies the input's dimensions",
			build: func(b *Builder) *Value {
				x := symInput(b, "x", "2:batch", "3:seq", "4")
				return b.Op("Reshape", []*Value{x, b.Const("s", ints(0, 0, 2, 2))}, nil)
			},
			want: "2(batch)x3(seq)x2x2",
		},
		{
			name: "a constant shape valid only at the binding labels nothing",
			build: func(b *Builder) *Value {
				x := symInput(b, "x", "1:batch", "3:seq", "4")
				return b.Op("Reshape", []*Value{x, b.Const("s", ints(3, 4))}, nil)
			},
			want: "3([?Reshape#0])x4([?Reshape#1])",
		},
		{
			name: "a constant shape of a fixed part keeps its sizes",
			build: func(b *Builder) *Value {
				x := symInput(b, "x", "2:batch", "3", "4")
				y := b.Op("Reshape", []*Value{x, b.Const("s", ints(-1, 12))}, nil)
				return b.Op("Reshape", []*Value{y, b.Const("t", ints(0, 3, 4))}, nil)
			},
			want: "2(batch)x3x4",
		},
		{
			name: "attention keeps batch and sequence",
			build: func(b *Builder) *Value {
				x := symInput(b, "x", "2:batch", "3:seq", "8")
				w := b.Const("w", FromFloat32(make([]float32, 8*24), 8, 24))
				n := &Node{Name: "att", Op: "Attention", Domain: MicrosoftDomain, Inputs: []*Value{x, w},
					Outputs: []*Value{{Name: "att_out"}}, Attrs: Attrs{"num_heads": IntAttr(2)}}
				if err := InferNode(n); err != nil {
					t.Fatal(err)
				}
				return n.Outputs[0]
			},
			want: "2(batch)x3(seq)x8",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder("sym")
			v := tt.build(b)
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			if got := v.Shape.SymString(); got != tt.want {
				t.Errorf("shape %s, want %s", got, tt.want)
			}
		})
	}
}
