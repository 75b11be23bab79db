package graph

import (
	"fmt"
	"math"
)

// Operators that select, join or pad elements: Concat, Split, Slice,
// Gather, Pad.

// sliceOps are the rows of this file.
var sliceOps = []OpSchema{
	{Op: "Concat", MinOpset: 9, Movement: true, Exact: ExactMove, Infer: inferConcat, Inputs: []InputSpec{{Name: "inputs", Variadic: true}}, Outputs: ins("concat_result"),
		History: opset1,
		Attrs:   []AttrSpec{{Name: "axis", Kind: AttrInt, Required: true}},
		Doc:     "concat_result = the inputs joined along axis; all other dimensions must agree."},
	{Op: "Split", MinOpset: 9, Movement: true, Exact: ExactMove, Infer: inferSplit, Inputs: []InputSpec{req("input"), optParam("split")}, Outputs: []InputSpec{{Name: "outputs", Variadic: true}},
		History:    History{First: 1, AttrSince: map[string]int64{"num_outputs": 18}},
		Attrs:      []AttrSpec{intAttr("axis", 0), {Name: "num_outputs", Kind: AttrInt}},
		AttrInputs: []AttrInput{{Attr: "split", Input: 1, Since: 13, DType: Int64}},
		Doc:        "outputs = input cut along axis into pieces of the sizes in split, or into equal pieces (the last smaller when num_outputs, an opset-18 attribute, does not divide)."},
	{
		Op:       "Slice",
		History:  History{First: 1, InputSince: map[int]int64{4: 10}},
		Movement: true,
		Exact:    ExactMove,
		Doc:      "output = data[starts:ends:steps] on the listed axes, with numpy clamping of out-of-range bounds.",
		Inputs: []InputSpec{{Name: "data"}, {Name: "starts", Param: true}, {Name: "ends", Param: true},
			{Name: "axes", Optional: true, Param: true}, {Name: "steps", Optional: true, Param: true}},
		Outputs: []InputSpec{{Name: "output"}},
		AttrInputs: []AttrInput{
			{Attr: "starts", Input: 1, Since: 10, DType: Int64},
			{Attr: "ends", Input: 2, Since: 10, DType: Int64},
			{Attr: "axes", Input: 3, Since: 10, DType: Int64},
		},
		MinOpset: 9,
		Infer:    inferSlice,
	},
	{Op: "Gather", MinOpset: 9, Movement: true, Exact: ExactMove, Infer: inferGather, Inputs: ins("data", "indices"), Outputs: ins("output"),
		History: opset1,
		Attrs:   []AttrSpec{intAttr("axis", 0)},
		Doc:     "output = data indexed along axis by indices (negative indices count from the end); output rank is r-1+rank(indices)."},
	{
		Op:       "Pad",
		History:  History{First: 1, InputSince: map[int]int64{3: 18}},
		Movement: true,
		Exact:    ExactMove,
		Doc:      "output = data padded by pads ([begin..., end...], negative crops) using mode constant/reflect/edge/wrap (the axes input and wrap mode need opset 18, 19).",
		Inputs: []InputSpec{{Name: "data"}, {Name: "pads", Param: true}, {Name: "constant_value", Optional: true},
			{Name: "axes", Optional: true, Param: true}},
		Outputs: []InputSpec{{Name: "output"}},
		Attrs:   []AttrSpec{{Name: "mode", Kind: AttrString, Default: defString("constant")}},
		AttrInputs: []AttrInput{
			{Attr: "pads", Input: 1, Since: 11, DType: Int64},
			{Attr: "value", Input: 2, Since: 11, DType: FromInputDType},
		},
		MinOpset: 9,
		Infer:    inferPad,
	},
}

func inferConcat(n *Node) error {
	x := n.Inputs[0]
	r := len(x.Shape)
	axis, err := NormAxis(n.AttrInt("axis"), r)
	if err != nil {
		return err
	}
	out := x.Shape.Clone()
	for i := 1; i < len(n.Inputs); i++ {
		if err := checkSameType(n, 0, i); err != nil {
			return err
		}
		s := n.Inputs[i].Shape
		if len(s) != r {
			return fmt.Errorf("input %d %q has shape %v, rank differs from input 0 %v", i, n.Inputs[i].Name, s, x.Shape)
		}
		for a := range s {
			if a == axis {
				out[a].Value += s[a].Value
			} else if s[a].Value != out[a].Value {
				return fmt.Errorf("input %d %q has shape %v, differs from input 0 %v off axis %d", i, n.Inputs[i].Name, s, x.Shape, axis)
			}
		}
	}
	setOut(n, 0, x.DType, out)
	if allKnown(n) && smallOut(out) {
		ts := knownInputs(n)
		if ts == nil {
			return nil
		}
		data := concatData(ts)
		if data == nil {
			return nil
		}
		// Element k of the output: outer index, position along axis, inner.
		inner := int(numel(out[axis+1:]))
		outer := int(numel(out[:axis]))
		idx := make([]int, 0, numel(out))
		base := 0
		offs := make([]int, len(ts))
		for i, t := range ts {
			offs[i] = base
			base += t.Len()
		}
		for o := 0; o < outer; o++ {
			for i, t := range ts {
				block := t.Shape[axis] * inner
				for j := 0; j < block; j++ {
					idx = append(idx, offs[i]+o*block+j)
				}
			}
		}
		setKnown(n, 0, takeElems(x.DType, data, idx, out))
	}
	return nil
}

func inferSplit(n *Node) error {
	x := n.Inputs[0]
	axis, err := NormAxis(n.AttrInt("axis"), len(x.Shape))
	if err != nil {
		return err
	}
	dim := x.Shape[axis].Value
	k := len(n.Outputs)
	sizes, has, err := constInts(n, 1)
	if err != nil {
		return err
	}
	numOut, hasNum := n.Attrs["num_outputs"]
	switch {
	case has:
		if hasNum {
			return fmt.Errorf("split input and num_outputs attribute are both given")
		}
		if len(sizes) != k {
			return fmt.Errorf("split %v has %d entries for %d outputs", sizes, len(sizes), k)
		}
		var sum int64
		for _, s := range sizes {
			if s < 0 {
				return fmt.Errorf("split %v has a negative size", sizes)
			}
			sum += s
		}
		if sum != dim {
			return fmt.Errorf("split %v sums to %d, axis %d has size %d", sizes, sum, axis, dim)
		}
		for i, s := range sizes {
			setSplitOut(n, i, axis, s)
		}
	case hasNum:
		if numOut.Int != int64(k) {
			return fmt.Errorf("num_outputs is %d but the node has %d outputs", numOut.Int, k)
		}
		if numOut.Int < 1 || numOut.Int > dim && dim > 0 {
			return fmt.Errorf("num_outputs %d is invalid for axis size %d", numOut.Int, dim)
		}
		chunk := ceilDiv(dim, numOut.Int)
		for i := 0; i < k; i++ {
			s := min(chunk, dim-int64(i)*chunk)
			if s < 0 {
				return fmt.Errorf("num_outputs %d leaves output %d empty for axis size %d", numOut.Int, i, dim)
			}
			setSplitOut(n, i, axis, s)
		}
	default:
		if dim%int64(k) != 0 {
			return fmt.Errorf("axis %d of size %d does not split evenly into %d outputs", axis, dim, k)
		}
		for i := 0; i < k; i++ {
			setSplitOut(n, i, axis, dim/int64(k))
		}
	}
	return nil
}

func setSplitOut(n *Node, i, axis int, size int64) {
	x := n.Inputs[0]
	s := x.Shape.Clone()
	s[axis] = Dim{Value: size}
	setOut(n, i, x.DType, s)
}

// sliceRange holds one axis of a normalised Slice.
type sliceRange struct {
	start, step, count int64
}

// sliceAxis clamps start/end on an axis of size dim as ONNX specifies and
// returns the first index, step and number of selected elements.
func sliceAxis(start, end, step, dim int64) sliceRange {
	if start < 0 {
		start += dim
	}
	if end < 0 {
		end += dim
	}
	var count int64
	if step > 0 {
		start = clamp(start, 0, dim)
		end = clamp(end, 0, dim)
		if end > start {
			count = (end - start + step - 1) / step
		}
	} else {
		start = clamp(start, 0, dim-1)
		end = clamp(end, -1, dim-1)
		if start > end {
			count = (start - end + (-step) - 1) / (-step)
		}
	}
	return sliceRange{start: start, step: step, count: count}
}

func clamp(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func inferSlice(n *Node) error {
	x := n.Inputs[0]
	r := len(x.Shape)
	starts, _, err := constInts(n, 1)
	if err != nil {
		return err
	}
	ends, _, err := constInts(n, 2)
	if err != nil {
		return err
	}
	axes, hasAxes, err := constInts(n, 3)
	if err != nil {
		return err
	}
	steps, hasSteps, err := constInts(n, 4)
	if err != nil {
		return err
	}
	if len(ends) != len(starts) || (hasAxes && len(axes) != len(starts)) || (hasSteps && len(steps) != len(starts)) {
		return fmt.Errorf("starts %v, ends %v, axes %v and steps %v must have equal lengths", starts, ends, axes, steps)
	}
	if len(starts) > r {
		return fmt.Errorf("starts %v has more entries than data rank %d", starts, r)
	}
	ranges := make([]sliceRange, r)
	for a := range ranges {
		ranges[a] = sliceRange{start: 0, step: 1, count: x.Shape[a].Value}
	}
	var seen uint64
	for j := range starts {
		ax := j
		if hasAxes {
			if ax, err = NormAxis(axes[j], r); err != nil {
				return err
			}
		}
		if ax < 64 {
			if seen&(1<<ax) != 0 {
				return fmt.Errorf("axes %v repeats axis %d", axes, ax)
			}
			seen |= 1 << ax
		}
		step := int64(1)
		if hasSteps {
			step = steps[j]
		}
		if step == 0 {
			return fmt.Errorf("steps %v contains 0", steps)
		}
		if step == math.MinInt64 {
			return fmt.Errorf("steps %v contains an out-of-range value", steps)
		}
		ranges[ax] = sliceAxis(starts[j], ends[j], step, x.Shape[ax].Value)
	}
	out := make(Shape, r)
	for a, rg := range ranges {
		out[a] = Dim{Value: rg.count}
	}
	setOut(n, 0, x.DType, out)
	if t := valueOf(x); t != nil && smallOut(out) && knownDType(t.DType) {
		st := strides(t.Shape)
		idx := walkIndex(dimsOf(out), func(coord []int) int {
			j := 0
			for a, rg := range ranges {
				j += int(rg.start+int64(coord[a])*rg.step) * st[a]
			}
			return j
		})
		setKnown(n, 0, takeElems(t.DType, t.Data, idx, out))
	}
	return nil
}

func inferGather(n *Node) error {
	x, ind := n.Inputs[0], n.Inputs[1]
	if err := checkType(n, 1, isIndexType, "int32 or int64"); err != nil {
		return err
	}
	r := len(x.Shape)
	if r == 0 {
		return fmt.Errorf("data must have rank >= 1")
	}
	axis, err := NormAxis(n.AttrInt("axis"), r)
	if err != nil {
		return err
	}
	out := make(Shape, 0, r-1+len(ind.Shape))
	out = append(out, x.Shape[:axis]...)
	out = append(out, ind.Shape...)
	out = append(out, x.Shape[axis+1:]...)
	setOut(n, 0, x.DType, out)
	it := valueOf(ind)
	if it == nil || it.Len() > maxKnownElems {
		return nil
	}
	iv, err := it.AsInt64()
	if err != nil {
		return err
	}
	dim := x.Shape[axis].Value
	for _, v := range iv {
		if v < -dim || v >= dim {
			return fmt.Errorf("index %d is out of range for axis %d of size %d", v, axis, dim)
		}
	}
	t := valueOf(x)
	if t == nil || !smallOut(out) || !knownDType(t.DType) {
		return nil
	}
	outer := int(numel(x.Shape[:axis]))
	inner := int(numel(x.Shape[axis+1:]))
	idx := make([]int, 0, numel(out))
	for o := 0; o < outer; o++ {
		for _, v := range iv {
			if v < 0 {
				v += dim
			}
			for j := 0; j < inner; j++ {
				idx = append(idx, (o*int(dim)+int(v))*inner+j)
			}
		}
	}
	setKnown(n, 0, takeElems(t.DType, t.Data, idx, out))
	return nil
}

func inferPad(n *Node) error {
	x := n.Inputs[0]
	r := len(x.Shape)
	switch m := n.AttrString("mode"); m {
	case "constant", "reflect", "edge", "wrap":
	default:
		return fmt.Errorf("mode %q is not one of constant, reflect, edge, wrap", m)
	}
	pads, _, err := constInts(n, 1)
	if err != nil {
		return err
	}
	if err := checkSameType(n, 0, 2); err != nil {
		return err
	}
	if v := n.Input(2); v != nil && numel(v.Shape) != 1 {
		return fmt.Errorf("constant_value %q must be a scalar, has shape %v", v.Name, v.Shape)
	}
	axes, hasAxes, err := constInts(n, 3)
	if err != nil {
		return err
	}
	if !hasAxes {
		axes = nil
		if len(pads) != 2*r {
			return fmt.Errorf("pads %v has %d entries, want %d for rank %d", pads, len(pads), 2*r, r)
		}
	} else if len(pads) != 2*len(axes) {
		return fmt.Errorf("pads %v has %d entries, want %d for axes %v", pads, len(pads), 2*len(axes), axes)
	}
	out := x.Shape.Clone()
	k := len(pads) / 2
	for j := 0; j < k; j++ {
		ax := j
		if hasAxes {
			if ax, err = NormAxis(axes[j], r); err != nil {
				return err
			}
		}
		v := x.Shape[ax].Value + pads[j] + pads[j+k]
		if v < 0 {
			return fmt.Errorf("pads %v make axis %d negative", pads, ax)
		}
		out[ax] = Dim{Value: v}
	}
	setOut(n, 0, x.DType, out)
	return nil
}
