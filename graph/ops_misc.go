package graph

import "fmt"

// Identity, Dropout, Constant, Shape, Cast.

// miscOps are the rows of this file.
var miscOps = []OpSchema{
	{Op: "Identity", MinOpset: 9, History: opset1, Movement: true, Exact: ExactMove, Infer: inferIdentity, Inputs: ins("input"), Outputs: ins("output"),
		Doc: "output = input."},
	{
		Op: "Dropout",
		History: History{First: 1, AttrSince: map[string]int64{"seed": 12}, InputSince: map[int]int64{2: 12},
			OutputSince: map[int]int64{1: 10}, Obsolete: map[string]int64{"is_test": 1}, ConsumedBefore: 6, TestModeBefore: 7},
		Movement: true,
		Exact:    ExactMove,
		Doc:      "Inference dropout: output = data; the optional mask is all true.",
		Inputs: []InputSpec{{Name: "data"}, {Name: "ratio", Optional: true},
			{Name: "training_mode", Optional: true}},
		Outputs:    []InputSpec{{Name: "output"}, {Name: "mask", Optional: true}},
		Attrs:      []AttrSpec{{Name: "seed", Kind: AttrInt}},
		AttrInputs: []AttrInput{{Attr: "ratio", Input: 1, Since: 12, DType: Float32}},
		MinOpset:   9,
		Infer:      inferDropout,
	},
	{Op: "Constant", MinOpset: 9, Movement: true, Infer: inferConstant, Outputs: ins("output"),
		History: History{First: 1, AttrSince: map[string]int64{"value_float": 12, "value_floats": 12,
			"value_int": 12, "value_ints": 12, "value_string": 12, "value_strings": 12}},
		Attrs: []AttrSpec{{Name: "value", Kind: AttrTensor}, {Name: "value_float", Kind: AttrFloat}, {Name: "value_floats", Kind: AttrFloats}, {Name: "value_int", Kind: AttrInt}, {Name: "value_ints", Kind: AttrInts}, {Name: "value_string", Kind: AttrString}, {Name: "value_strings", Kind: AttrStrings}},
		Doc:   "output = the tensor given by exactly one of the value* attributes."},
	{Op: "Shape", MinOpset: 9, Movement: true, Infer: inferShape, Inputs: ins("data"), Outputs: ins("shape"),
		History: History{First: 1, AttrSince: map[string]int64{"end": 15, "start": 15}},
		Attrs:   []AttrSpec{{Name: "end", Kind: AttrInt}, intAttr("start", 0)},
		Doc:     "shape = the dimensions of data as a 1-D int64 tensor, optionally only dims[start:end] (start/end need opset 15)."},
	{Op: "Cast", MinOpset: 9, Movement: true, Infer: inferCast, Inputs: ins("input"), Outputs: ins("output"),
		History: History{First: 1, AttrSince: map[string]int64{"saturate": 19}},
		Attrs:   []AttrSpec{intAttr("saturate", 1), {Name: "to", Kind: AttrInt, Required: true}},
		Doc:     "output = input converted elementwise to dtype to (saturate clips float8 conversions)."},
	{Op: "CastLike", MinOpset: 15, Movement: true, Infer: inferCastLike, Inputs: ins("input", "target_type"), Outputs: ins("output"),
		History: History{AttrSince: map[string]int64{"saturate": 19}},
		Attrs:   []AttrSpec{intAttr("saturate", 1)},
		Doc:     "output = input converted elementwise to the dtype of target_type (whose values are not read)."},
}

func inferIdentity(n *Node) error {
	x := n.Inputs[0]
	setOut(n, 0, x.DType, x.Shape.Clone())
	if t := valueOf(x); t != nil && t.Len() <= maxKnownElems {
		setKnown(n, 0, t)
	}
	return nil
}

func inferDropout(n *Node) error {
	x := n.Inputs[0]
	if err := checkType(n, 1, isFloatType, "a floating-point type"); err != nil {
		return err
	}
	if v := n.Input(2); v != nil && v.DType != Bool {
		return fmt.Errorf("input 2 %q (training_mode) has dtype %v, want bool", v.Name, v.DType)
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	setOut(n, 1, Bool, x.Shape.Clone())
	return nil
}

// constantValue decodes the tensor a Constant node produces from
// whichever one of its value attributes is set (ConstantValue checks the
// op first).
func constantValue(n *Node) (*Tensor, error) {
	var t *Tensor
	count := 0
	for name, a := range n.Attrs {
		switch name {
		case "value":
			t = a.Tensor
		case "value_float":
			t = FromFloat32([]float32{a.Float})
		case "value_floats":
			t = FromFloat32(a.Floats, len(a.Floats))
		case "value_int":
			t = FromInt64([]int64{a.Int})
		case "value_ints":
			t = FromInt64(a.Ints, len(a.Ints))
		case "value_string":
			t = &Tensor{DType: String, Data: []string{a.String}}
		case "value_strings":
			t = &Tensor{DType: String, Shape: []int{len(a.Strings)}, Data: a.Strings}
		default:
			continue
		}
		count++
	}
	if count != 1 {
		return nil, fmt.Errorf("exactly one value attribute must be set, found %d", count)
	}
	if t == nil {
		return nil, fmt.Errorf("attribute value holds no tensor")
	}
	return t, nil
}

func inferConstant(n *Node) error {
	t, err := ConstantValue(n)
	if err != nil {
		return err
	}
	setOut(n, 0, t.DType, StaticShape(t.Shape...))
	setKnown(n, 0, t)
	return nil
}

// shapeRange returns the dimensions [start, end) of input 0 that a Shape
// node reports, its start and end attributes normalised to the rank.
func shapeRange(n *Node) (start, end int64) {
	r := int64(len(n.Inputs[0].Shape))
	norm := func(v int64) int64 {
		if v < 0 {
			v += r
		}
		return clamp(v, 0, r)
	}
	start, end = norm(n.AttrInt("start")), r
	if n.HasAttr("end") {
		end = norm(n.AttrInt("end"))
	}
	return start, max(end, start)
}

func inferShape(n *Node) error {
	x := n.Inputs[0]
	start, end := shapeRange(n)
	k := end - start
	setOut(n, 0, Int64, Shape{{Value: k}})
	vals := make([]int64, k)
	for i := range vals {
		vals[i] = x.Shape[start+int64(i)].Value
	}
	setKnown(n, 0, FromInt64(vals, int(k)))
	return nil
}

func inferCast(n *Node) error {
	to := DType(n.AttrInt("to"))
	if !to.Valid() {
		return fmt.Errorf("attribute to=%d is not a valid dtype", n.AttrInt("to"))
	}
	setCast(n, to)
	return nil
}

// inferCastLike casts to input 1's dtype.
func inferCastLike(n *Node) error {
	setCast(n, n.Inputs[1].DType)
	return nil
}

// setCast sets output 0 to input 0 converted to dtype to, with its value
// when input 0's is known.
func setCast(n *Node, to DType) {
	x := n.Inputs[0]
	setOut(n, 0, to, x.Shape.Clone())
	if t := valueOf(x); t != nil && t.Len() <= maxKnownElems {
		setKnown(n, 0, castTensor(t, to))
	}
}
