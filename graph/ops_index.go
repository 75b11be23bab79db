package graph

import "fmt"

// Index-driven operators: GatherElements, GatherND, ScatterElements,
// ScatterND, TopK, OneHot and ReverseSequence.

// indexOps are the rows of this file.
var indexOps = []OpSchema{
	{Op: "GatherElements", MinOpset: 11, Work: workPerOutput, Infer: inferGatherElements, Inputs: ins("data", "indices"), Outputs: ins("output"),
		Attrs: []AttrSpec{intAttr("axis", 0)},
		Doc:   "output[i][j]... = data[..., indices[i][j]..., ...] along axis; output has indices' shape."},
	{Op: "GatherND", MinOpset: 11, Work: workPerOutput, Infer: inferGatherND, Inputs: ins("data", "indices"), Outputs: ins("output"),
		History: History{AttrSince: map[string]int64{"batch_dims": 12}},
		Attrs:   []AttrSpec{intAttr("batch_dims", 0)},
		Doc:     "output = slices of data addressed by the last axis of indices, after batch_dims leading batch axes."},
	{Op: "ScatterElements", MinOpset: 11, Work: workPerOutput, Infer: inferScatterElements, Inputs: ins("data", "indices", "updates"), Outputs: ins("output"),
		History: History{AttrSince: map[string]int64{"reduction": 16}},
		Attrs:   []AttrSpec{intAttr("axis", 0), stringAttr("reduction", "none")},
		Doc:     "output = data with output[..., indices[i]..., ...] = updates[i] along axis (or combined by reduction add/mul/max/min)."},
	{Op: "ScatterND", MinOpset: 11, Work: workPerOutput, Infer: inferScatterND, Inputs: ins("data", "indices", "updates"), Outputs: ins("output"),
		History: History{AttrSince: map[string]int64{"reduction": 16}},
		Attrs:   []AttrSpec{stringAttr("reduction", "none")},
		Doc:     "output = data with the slices addressed by the last axis of indices replaced by updates (or combined by reduction add/mul/max/min)."},
	{Op: "TopK", MinOpset: 9, Work: workPerOutput, Infer: inferTopK, Inputs: []InputSpec{req("X"), param("K")}, Outputs: ins("Values", "Indices"),
		History:    History{First: 1, AttrSince: map[string]int64{"largest": 11, "sorted": 11}},
		Attrs:      []AttrSpec{intAttr("axis", -1), intAttr("largest", 1), intAttr("sorted", 1)},
		AttrInputs: []AttrInput{{Attr: "k", Input: 1, Since: 10, DType: Int64}},
		Doc:        "Values and int64 Indices of the K largest (or smallest) elements along axis, sorted; ties keep the lower index first."},
	{Op: "OneHot", MinOpset: 9, Work: workPerOutput, Infer: inferOneHot, Inputs: []InputSpec{req("indices"), param("depth"), req("values")}, Outputs: ins("output"),
		Attrs: []AttrSpec{intAttr("axis", -1)},
		Doc:   "output = values[1] where the position along the new axis equals indices (negative indices count from depth), else values[0]."},
	{Op: "ReverseSequence", MinOpset: 10, Movement: true, Infer: inferReverseSequence, Inputs: ins("input", "sequence_lens"), Outputs: outY,
		Attrs: []AttrSpec{intAttr("batch_axis", 1), intAttr("time_axis", 0)},
		Doc:   "Y = input with, for each batch index b, its first sequence_lens[b] elements along time_axis reversed; batch_axis and time_axis are 0 and 1 in some order."},
}

func inferGatherElements(n *Node) error {
	x, idx := n.Inputs[0], n.Inputs[1]
	if err := checkType(n, 1, isIndexType, "int32 or int64"); err != nil {
		return err
	}
	if len(x.Shape) != len(idx.Shape) || len(x.Shape) == 0 {
		return fmt.Errorf("indices have rank %d, data rank %d; want equal and >= 1", len(idx.Shape), len(x.Shape))
	}
	if _, err := NormAxis(n.AttrInt("axis"), len(x.Shape)); err != nil {
		return err
	}
	setOut(n, 0, x.DType, idx.Shape.Clone())
	return nil
}

func inferGatherND(n *Node) error {
	x, idx := n.Inputs[0], n.Inputs[1]
	if err := checkType(n, 1, isIndexType, "int32 or int64"); err != nil {
		return err
	}
	b := n.AttrInt("batch_dims")
	q, r := len(idx.Shape), len(x.Shape)
	if q < 1 || b < 0 || b >= int64(min(q, r)) {
		return fmt.Errorf("batch_dims %d invalid for data rank %d and indices rank %d", b, r, q)
	}
	last := idx.Shape[q-1].Value
	if last < 1 || b+last > int64(r) {
		return fmt.Errorf("indices' last dimension %d too large for data rank %d with batch_dims %d", last, r, b)
	}
	for i := int64(0); i < b; i++ {
		if x.Shape[i].Value != idx.Shape[i].Value {
			return fmt.Errorf("batch dimension %d differs: data %v, indices %v", i, x.Shape, idx.Shape)
		}
	}
	out := append(idx.Shape[:q-1].Clone(), x.Shape[b+last:]...)
	setOut(n, 0, x.DType, out)
	return nil
}

func checkReduction(n *Node) error {
	switch r := n.AttrString("reduction"); r {
	case "none", "add", "mul", "max", "min":
		return nil
	default:
		return fmt.Errorf("reduction %q is not one of none, add, mul, max, min", r)
	}
}

// scatterInputs checks what ScatterElements and ScatterND share (int
// indices, updates of data's dtype, a known reduction) and returns data,
// indices and updates.
func scatterInputs(n *Node) (x, idx, u *Value, err error) {
	if err := checkType(n, 1, isIndexType, "int32 or int64"); err != nil {
		return nil, nil, nil, err
	}
	if err := checkSameType(n, 0, 2); err != nil {
		return nil, nil, nil, err
	}
	if err := checkReduction(n); err != nil {
		return nil, nil, nil, err
	}
	return n.Inputs[0], n.Inputs[1], n.Inputs[2], nil
}

func inferScatterElements(n *Node) error {
	x, idx, u, err := scatterInputs(n)
	if err != nil {
		return err
	}
	if len(x.Shape) != len(idx.Shape) || !idx.Shape.Equal(u.Shape) || len(x.Shape) == 0 {
		return fmt.Errorf("indices %v and updates %v must have equal shapes of data's rank %d", idx.Shape, u.Shape, len(x.Shape))
	}
	if _, err := NormAxis(n.AttrInt("axis"), len(x.Shape)); err != nil {
		return err
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}

func inferScatterND(n *Node) error {
	x, idx, u, err := scatterInputs(n)
	if err != nil {
		return err
	}
	q := len(idx.Shape)
	if q < 1 {
		return fmt.Errorf("indices must have rank >= 1")
	}
	k := idx.Shape[q-1].Value
	if k < 1 || k > int64(len(x.Shape)) {
		return fmt.Errorf("indices' last dimension %d invalid for data rank %d", k, len(x.Shape))
	}
	want := append(idx.Shape[:q-1].Clone(), x.Shape[k:]...)
	if !want.Equal(u.Shape) {
		return fmt.Errorf("updates have shape %v, want %v", u.Shape, want)
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}

func inferTopK(n *Node) error {
	x, ax, err := axisInput(n, isNumericType, "a numeric type")
	if err != nil {
		return err
	}
	k, _, err := constInts(n, 1)
	if err != nil {
		return err
	}
	if len(k) != 1 || k[0] < 0 || k[0] > x.Shape[ax].Value {
		return fmt.Errorf("K %v must be one value in [0, %d]", k, x.Shape[ax].Value)
	}
	out := x.Shape.Clone()
	out[ax] = Dim{Value: k[0]}
	setOut(n, 0, x.DType, out)
	setOut(n, 1, Int64, out.Clone())
	return nil
}

func inferOneHot(n *Node) error {
	if err := checkType(n, 0, isNumericType, "a numeric type"); err != nil {
		return err
	}
	idx, vals := n.Inputs[0], n.Inputs[2]
	if numel(vals.Shape) != 2 || len(vals.Shape) != 1 {
		return fmt.Errorf("values has shape %v, want [2]", vals.Shape)
	}
	d, _, err := constFloats(n, 1)
	if err != nil {
		return err
	}
	if len(d) != 1 || d[0] < 1 || d[0] > 1<<31 {
		return fmt.Errorf("depth %v must be one positive value", d)
	}
	r := len(idx.Shape) + 1
	ax, err := NormAxis(n.AttrInt("axis"), r)
	if err != nil {
		return err
	}
	out := make(Shape, 0, r)
	out = append(out, idx.Shape[:ax]...)
	out = append(out, Dim{Value: int64(d[0])})
	out = append(out, idx.Shape[ax:]...)
	setOut(n, 0, vals.DType, out)
	return nil
}

func inferReverseSequence(n *Node) error {
	x, lens := n.Inputs[0], n.Inputs[1]
	if err := checkType(n, 1, func(d DType) bool { return d == Int64 }, "int64"); err != nil {
		return err
	}
	b, t := n.AttrInt("batch_axis"), n.AttrInt("time_axis")
	if len(x.Shape) < 2 || b+t != 1 || b*t != 0 {
		return fmt.Errorf("batch_axis %d and time_axis %d must be 0 and 1 of an input of rank >= 2, input shape %v", b, t, x.Shape)
	}
	if len(lens.Shape) != 1 || lens.Shape[0].Value != x.Shape[b].Value {
		return fmt.Errorf("sequence_lens has shape %v, want [%d]", lens.Shape, x.Shape[b].Value)
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}
