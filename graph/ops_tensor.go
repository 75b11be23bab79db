package graph

import "fmt"

// Shape-changing operators that keep every element: Reshape, Flatten,
// Squeeze, Unsqueeze, Transpose, Expand.

// tensorOps are the rows of this file.
var tensorOps = []OpSchema{
	{Op: "Reshape", MinOpset: 9, Movement: true, Exact: ExactMove, Infer: inferReshape, Inputs: []InputSpec{req("data"), param("shape")}, Outputs: ins("reshaped"),
		History: History{First: 1, AttrSince: map[string]int64{"allowzero": 14}, ConsumedBefore: 5,
			LegacyAttrInputs: []AttrInput{{Attr: "shape", Input: 1, Since: 5, DType: Int64}}},
		Attrs: []AttrSpec{intAttr("allowzero", 0)},
		Doc:   "reshaped = data with a new shape; in shape, -1 is inferred and 0 copies the input dimension unless allowzero."},
	{Op: "Flatten", MinOpset: 9, History: opset1, Movement: true, Exact: ExactMove, Infer: inferFlatten, Inputs: ins("input"), Outputs: ins("output"),
		Attrs: []AttrSpec{intAttr("axis", 1)},
		Doc:   "output = input reshaped to 2-D [prod(dims[:axis]), prod(dims[axis:])]."},
	{Op: "Squeeze", MinOpset: 9, Movement: true, Exact: ExactMove, Infer: inferSqueeze, Inputs: []InputSpec{req("data"), optParam("axes")}, Outputs: ins("squeezed"),
		History:    History{First: 1},
		AttrInputs: []AttrInput{{Attr: "axes", Input: 1, Since: 13, DType: Int64}},
		Doc:        "squeezed = data without the size-1 axes listed in axes (all size-1 axes when axes is absent)."},
	{Op: "Unsqueeze", MinOpset: 9, Movement: true, Exact: ExactMove, Infer: inferUnsqueeze, Inputs: []InputSpec{req("data"), param("axes")}, Outputs: ins("expanded"),
		History:    History{First: 1},
		AttrInputs: []AttrInput{{Attr: "axes", Input: 1, Since: 13, DType: Int64}},
		Doc:        "expanded = data with size-1 axes inserted at the positions axes of the output."},
	{Op: "Transpose", MinOpset: 9, Movement: true, Exact: ExactMove, Infer: inferTranspose, Inputs: ins("data"), Outputs: ins("transposed"),
		History: opset1,
		Attrs:   []AttrSpec{{Name: "perm", Kind: AttrInts}},
		Doc:     "transposed = data with axes permuted: output axis i is input axis perm[i] (default: reversed)."},
	{Op: "Expand", MinOpset: 9, Movement: true, Exact: ExactMove, Infer: inferExpand, Inputs: []InputSpec{req("input"), param("shape")}, Outputs: ins("output"),
		History: History{First: 8},
		Doc:     "output = input broadcast (numpy rules, both ways) against the given shape."},
}

func inferReshape(n *Node) error {
	x := n.Inputs[0]
	spec, _, err := constInts(n, 1)
	if err != nil {
		return err
	}
	allowZero := n.AttrInt("allowzero") != 0
	out := make(Shape, len(spec))
	infer := -1
	prod := int64(1)
	for i, d := range spec {
		switch {
		case d == -1:
			if infer >= 0 {
				return fmt.Errorf("shape %v has more than one -1", spec)
			}
			infer = i
			continue
		case d == 0 && !allowZero:
			if i >= len(x.Shape) {
				return fmt.Errorf("shape %v copies dimension %d (0) but data has rank %d", spec, i, len(x.Shape))
			}
			d = x.Shape[i].Value
		case d < 0:
			return fmt.Errorf("shape %v has invalid dimension %d", spec, d)
		}
		out[i] = Dim{Value: d}
		prod *= d
	}
	total := numel(x.Shape)
	if infer >= 0 {
		if prod == 0 || total%prod != 0 {
			return fmt.Errorf("cannot reshape %v (%d elements) to %v", x.Shape, total, spec)
		}
		out[infer] = Dim{Value: total / prod}
	} else if prod != total {
		return fmt.Errorf("cannot reshape %v (%d elements) to %v (%d elements)", x.Shape, total, spec, prod)
	}
	setReshaped(n, x, out)
	return nil
}

func inferFlatten(n *Node) error {
	x := n.Inputs[0]
	r := len(x.Shape)
	axis := n.AttrInt("axis")
	if axis < -int64(r) || axis > int64(r) {
		return fmt.Errorf("axis %d is out of range for rank %d", axis, r)
	}
	if axis < 0 {
		axis += int64(r)
	}
	out := Shape{{Value: numel(x.Shape[:axis])}, {Value: numel(x.Shape[axis:])}}
	setReshaped(n, x, out)
	return nil
}

func inferSqueeze(n *Node) error {
	x := n.Inputs[0]
	r := len(x.Shape)
	axes, has, err := constInts(n, 1)
	if err != nil {
		return err
	}
	var drop uint64
	if !has || len(axes) == 0 {
		for i, d := range x.Shape {
			if d.Value == 1 {
				drop |= 1 << i
			}
		}
	}
	for _, a := range axes {
		ax, err := NormAxis(a, r)
		if err != nil {
			return err
		}
		if x.Shape[ax].Value != 1 {
			return fmt.Errorf("cannot squeeze axis %d of shape %v: size is not 1", a, x.Shape)
		}
		if drop&(1<<ax) != 0 {
			return fmt.Errorf("axes %v repeats axis %d", axes, ax)
		}
		drop |= 1 << ax
	}
	out := make(Shape, 0, r)
	for i, d := range x.Shape {
		if drop&(1<<i) == 0 {
			out = append(out, d)
		}
	}
	setReshaped(n, x, out)
	return nil
}

func inferUnsqueeze(n *Node) error {
	x := n.Inputs[0]
	axes, _, err := constInts(n, 1)
	if err != nil {
		return err
	}
	r := len(x.Shape) + len(axes)
	if r > maxRank {
		return fmt.Errorf("output rank %d is too large", r)
	}
	var ins uint64
	for _, a := range axes {
		ax, err := NormAxis(a, r)
		if err != nil {
			return err
		}
		if ins&(1<<ax) != 0 {
			return fmt.Errorf("axes %v repeats axis %d", axes, ax)
		}
		ins |= 1 << ax
	}
	out := make(Shape, r)
	k := 0
	for i := range out {
		if ins&(1<<i) != 0 {
			out[i] = Dim{Value: 1}
			continue
		}
		out[i] = x.Shape[k]
		k++
	}
	setReshaped(n, x, out)
	return nil
}

// transposePerm returns the validated permutation of a Transpose node.
func transposePerm(n *Node, r int) ([]int64, error) {
	perm := n.AttrInts("perm")
	if perm == nil {
		perm = make([]int64, r)
		for i := range perm {
			perm[i] = int64(r - 1 - i)
		}
		return perm, nil
	}
	if len(perm) != r {
		return nil, fmt.Errorf("perm %v has %d entries, data has rank %d", perm, len(perm), r)
	}
	var seen uint64
	for _, p := range perm {
		if p < 0 || p >= int64(r) || seen&(1<<p) != 0 {
			return nil, fmt.Errorf("perm %v is not a permutation of 0..%d", perm, r-1)
		}
		seen |= 1 << p
	}
	return perm, nil
}

func inferTranspose(n *Node) error {
	x := n.Inputs[0]
	perm, err := transposePerm(n, len(x.Shape))
	if err != nil {
		return err
	}
	out := make(Shape, len(perm))
	for i, p := range perm {
		out[i] = x.Shape[p]
	}
	setOut(n, 0, x.DType, out)
	if t := valueOf(x); t != nil && smallOut(out) && knownDType(t.DType) {
		in := t.Shape
		st := strides(in)
		idx := walkIndex(dimsOf(out), func(coord []int) int {
			j := 0
			for a, p := range perm {
				j += coord[a] * st[p]
			}
			return j
		})
		setKnown(n, 0, takeElems(t.DType, t.Data, idx, out))
	}
	return nil
}

func inferExpand(n *Node) error {
	x := n.Inputs[0]
	spec, _, err := constInts(n, 1)
	if err != nil {
		return err
	}
	for _, d := range spec {
		if d < 0 {
			return fmt.Errorf("shape %v has a negative dimension", spec)
		}
	}
	out, err := broadcast2(x.Shape, shapeFromInt64(spec))
	if err != nil {
		return err
	}
	setOut(n, 0, x.DType, out)
	if t := valueOf(x); t != nil && smallOut(out) && knownDType(t.DType) {
		setKnown(n, 0, takeElems(t.DType, t.Data, bcastIndex(dimsOf(out), t.Shape), out))
	}
	return nil
}

// setReshaped sets output 0 of n to x's data in shape out (Reshape,
// Flatten, Squeeze, Unsqueeze), with its value when x's is known and out is
// small.
func setReshaped(n *Node, x *Value, out Shape) {
	setOut(n, 0, x.DType, out)
	if t := valueOf(x); t != nil && smallOut(out) {
		setKnown(n, 0, reshaped(t, out))
	}
}
