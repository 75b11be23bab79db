package graph

import "fmt"

// Reductions.

// reduceOps are the rows of this file.
var reduceOps = []OpSchema{
	reduceRow("ReduceMean", "the mean", 18, workPerInput),
	reduceRow("ReduceSum", "the sum", 13, workPerInput),
	reduceRow("ReduceMax", "the maximum", 18, workPerInput),
}

// reduceRow is the row of a Reduce op of opset 1 whose axes attribute
// became an input, and whose noop_with_empty_axes attribute came, at opset
// since, and whose FLOPs work counts.
func reduceRow(op, what string, since int64, work WorkFunc) OpSchema {
	return OpSchema{Op: op, MinOpset: 9, Work: work, Infer: inferReduce,
		History: History{First: 1, AttrSince: map[string]int64{"noop_with_empty_axes": since}}, Inputs: []InputSpec{req("data"), optParam("axes")}, Outputs: ins("reduced"),
		Attrs:      []AttrSpec{intAttr("keepdims", 1), intAttr("noop_with_empty_axes", 0)},
		AttrInputs: []AttrInput{{Attr: "axes", Input: 1, Since: since, DType: Int64}},
		Doc:        "reduced = " + what + " of data over axes (all axes when axes is empty, unless noop_with_empty_axes); reduced axes kept as size 1 if keepdims."}
}

func inferReduce(n *Node) error {
	if err := checkType(n, 0, isNumericType, "a numeric type"); err != nil {
		return err
	}
	x := n.Inputs[0]
	r := len(x.Shape)
	if r > maxRank {
		return fmt.Errorf("rank %d is too large", r)
	}
	axes, _, err := constInts(n, 1)
	if err != nil {
		return err
	}
	if len(axes) == 0 && n.AttrInt("noop_with_empty_axes") != 0 {
		setOut(n, 0, x.DType, x.Shape.Clone())
		return nil
	}
	var red uint64
	if len(axes) == 0 {
		red = ^uint64(0)
	}
	for _, a := range axes {
		ax, err := NormAxis(a, r)
		if err != nil {
			return err
		}
		red |= 1 << ax
	}
	keep := n.AttrInt("keepdims") != 0
	out := make(Shape, 0, r)
	for i, d := range x.Shape {
		switch {
		case red&(1<<i) == 0:
			out = append(out, d)
		case keep:
			out = append(out, Dim{Value: 1})
		}
	}
	setOut(n, 0, x.DType, out)
	return nil
}
