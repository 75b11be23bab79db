package graph

import (
	"strings"
	"testing"
)

func TestElementCount(t *testing.T) {
	cases := []struct {
		dims []int
		want int64
		err  bool
	}{
		{nil, 1, false},
		{[]int{2, 3, 4}, 24, false},
		{[]int{1, 3, 100000, 100000}, 30000000000, false},
		{[]int{1 << 24, 1 << 24}, 1 << 48, false},
		{[]int{1 << 24, 1 << 24, 2}, 0, true},
		{[]int{1, 3, 4294967296, 4294967296}, 0, true},       // 3*2^64: wraps to 0 in int64
		{[]int{1 << 62, 1 << 62, 0}, 0, false},               // overflow before the zero
		{[]int{3037000500, 3037000500, 3037000500}, 0, true}, // wraps to a positive int64
	}
	for _, c := range cases {
		got, err := ElementCount(StaticShape(c.dims...))
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ElementCount(%v) = %d, %v; want %d, error %v", c.dims, got, err, c.want, c.err)
		}
	}
}

// TestHugeShapesNamed checks that shapes too large for memory or int64
// are reported with the input or node that has them.
func TestHugeShapesNamed(t *testing.T) {
	build := func() *Graph {
		b := NewBuilder("huge")
		x := b.Input("x", Float32, 1, 3, 4)
		a := b.Input("a", Float32, 2, 1)
		c := b.Input("c", Float32, 1, 2)
		b.Output(b.Op("Relu", []*Value{x}, nil), b.Op("MatMul", []*Value{a, c}, nil))
		g, err := b.Graph()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range g.Inputs {
			v.ShapeKnown, v.Shape = false, nil
		}
		for _, n := range g.Nodes {
			for _, o := range n.Outputs {
				o.ShapeKnown, o.Shape = false, nil
			}
		}
		return g
	}
	cases := []struct {
		name  string
		bind  map[string][]int
		limit int64
		want  []string
	}{
		{"input overflows", map[string][]int{"x": {1, 3, 4294967296, 4294967296}, "a": {2, 1}, "c": {1, 2}}, 1 << 40,
			[]string{`input "x"`, "2^48"}},
		{"node output overflows", map[string][]int{"x": {1, 3, 4}, "a": {1 << 30, 1}, "c": {1, 1 << 30}}, 1 << 40,
			[]string{"MatMul", "2^48"}},
		{"input over memory", map[string][]int{"x": {1, 3, 100000, 100000}, "a": {2, 1}, "c": {1, 2}}, 1 << 30,
			[]string{`input "x"`, "111.8 GiB", "the test limit"}},
		{"node output over memory", map[string][]int{"x": {1, 3, 4}, "a": {100000, 1}, "c": {1, 100000}}, 1 << 30,
			[]string{"MatMul", "37.3 GiB", "the test limit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := build()
			err := g.BindShapes(c.bind)
			if err == nil {
				err = g.CheckMemory(c.limit, "the test limit")
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
