package graph

import "testing"

// Inference in the common path allocates only the output shapes: the
// rewrite engine calls it for every candidate.
func TestInferAllocations(t *testing.T) {
	cases := []struct {
		c   inferCase
		max float64
	}{
		{inferCase{op: "Add", args: []arg{f32(2, 3, 4), f32(4)}}, 1},
		{inferCase{op: "Relu", args: []arg{f32(2, 3, 4)}}, 1},
		{inferCase{op: "Conv", args: []arg{f32(1, 3, 32, 32), f32(8, 3, 3, 3), f32(8)},
			attrs: Attrs{"pads": IntsAttr(1, 1, 1, 1), "strides": IntsAttr(2, 2)}}, 1},
		{inferCase{op: "MaxPool", args: []arg{f32(1, 3, 32, 32)},
			attrs: Attrs{"kernel_shape": IntsAttr(2, 2), "strides": IntsAttr(2, 2)}}, 1},
		{inferCase{op: "MatMul", args: []arg{f32(4, 2, 3), f32(3, 5)}}, 2},
		{inferCase{op: "Gemm", args: []arg{f32(4, 3), f32(3, 5), f32(5)}, attrs: Attrs{"transB": IntAttr(0)}}, 1},
		{inferCase{op: "Transpose", args: []arg{f32(2, 3, 4)}, attrs: Attrs{"perm": IntsAttr(0, 2, 1)}}, 1},
		{inferCase{op: "Concat", args: []arg{f32(2, 3), f32(2, 5)}, attrs: Attrs{"axis": IntAttr(1)}}, 1},
	}
	for _, c := range cases {
		n := c.c.makeNode()
		if err := InferNode(n); err != nil {
			t.Fatal(err)
		}
		got := testing.AllocsPerRun(100, func() {
			if err := InferNode(n); err != nil {
				t.Fatal(err)
			}
		})
		if got > c.max {
			t.Errorf("%s: %v allocations per InferNode, want <= %v", c.c.op, got, c.max)
		}
	}
}

func BenchmarkInferConv(b *testing.B) {
	n := inferCase{op: "Conv", args: []arg{f32(1, 64, 56, 56), f32(64, 64, 3, 3)},
		attrs: Attrs{"pads": IntsAttr(1, 1, 1, 1)}}.makeNode()
	for b.Loop() {
		if err := InferNode(n); err != nil {
			b.Fatal(err)
		}
	}
}
