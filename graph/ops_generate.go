package graph

import (
	"fmt"
	"math"
)

// Operators that make or rearrange tensors: ConstantOfShape, Range, Size,
// EyeLike, Trilu, Tile, CumSum, DepthToSpace, SpaceToDepth and Einsum.

// generateOps are the rows of this file.
var generateOps = []OpSchema{
	{Op: "ConstantOfShape", MinOpset: 9, Work: workPerOutput, Infer: inferConstantOfShape, Inputs: []InputSpec{param("input")}, Outputs: ins("output"),
		Attrs: []AttrSpec{{Name: "value", Kind: AttrTensor}},
		Doc:   "output = a tensor of the given shape filled with value's single element (float32 0 by default)."},
	{Op: "Range", MinOpset: 11, Work: workPerOutput, Infer: inferRange, Inputs: []InputSpec{param("start"), param("limit"), param("delta")}, Outputs: ins("output"),
		Doc: "output = [start, start+delta, ...] up to (excluding) limit; 1-D, of the inputs' common dtype."},
	{Op: "Size", MinOpset: 9, History: opset1, Work: workPerOutput, Infer: inferSize, Inputs: ins("data"), Outputs: ins("size"),
		Doc: "size = the number of elements of data, an int64 scalar."},
	{Op: "EyeLike", MinOpset: 9, Work: workPerOutput, Infer: inferEyeLike, Inputs: ins("input"), Outputs: ins("output"),
		Attrs: []AttrSpec{{Name: "dtype", Kind: AttrInt}, intAttr("k", 0)},
		Doc:   "output = a 2-D tensor of input's shape with ones on diagonal k and zeros elsewhere, of dtype (input's by default)."},
	{Op: "Trilu", MinOpset: 14, Work: workPerOutput, Infer: inferTrilu, Inputs: []InputSpec{req("input"), optParam("k")}, Outputs: ins("output"),
		Attrs: []AttrSpec{intAttr("upper", 1)},
		Doc:   "output = input with the elements below (upper=1) or above (upper=0) diagonal k of the last two axes set to zero."},
	{Op: "Tile", MinOpset: 9, Movement: true, Infer: inferTile, Inputs: []InputSpec{req("input"), param("repeats")}, Outputs: ins("output"),
		History: History{First: 6},
		Doc:     "output = input repeated repeats[i] times along each axis i."},
	{Op: "CumSum", MinOpset: 11, Work: workPerOutput, Infer: inferCumSum, Inputs: []InputSpec{req("x"), param("axis")}, Outputs: ins("y"),
		Attrs: []AttrSpec{intAttr("exclusive", 0), intAttr("reverse", 0)},
		Doc:   "y = cumulative sum of x along axis (exclusive: without the element itself; reverse: from the end)."},
	{Op: "DepthToSpace", MinOpset: 9, Work: workPerOutput, Infer: inferSpaceDepth(false), Inputs: ins("input"), Outputs: ins("output"),
		History: History{First: 1, AttrSince: map[string]int64{"mode": 11}},
		Attrs:   []AttrSpec{{Name: "blocksize", Kind: AttrInt, Required: true}, stringAttr("mode", "DCR")},
		Doc:     "output = [N, C/b², H*b, W*b] with channel blocks moved into b x b spatial blocks (mode DCR: depth-column-row order; CRD: column-row-depth)."},
	{Op: "SpaceToDepth", MinOpset: 9, History: opset1, Work: workPerOutput, Infer: inferSpaceDepth(true), Inputs: ins("input"), Outputs: ins("output"),
		Attrs: []AttrSpec{{Name: "blocksize", Kind: AttrInt, Required: true}},
		Doc:   "output = [N, C*b², H/b, W/b] with each b x b spatial block moved into channels (inverse of DepthToSpace in DCR mode)."},
	{Op: "Einsum", MinOpset: 12, Work: workPerOutput, Infer: inferEinsum, Inputs: []InputSpec{{Name: "Inputs", Variadic: true}}, Outputs: ins("Output"),
		Attrs: []AttrSpec{{Name: "equation", Kind: AttrString, Required: true}},
		Doc:   "Output = the Einstein summation of the inputs given by equation (numpy.einsum semantics, ellipsis broadcasting)."},
}

// maxGenElems bounds tensors that generator ops produce from values.
const maxGenElems = 1 << 40

func inferConstantOfShape(n *Node) error {
	dims, _, err := constInts(n, 0)
	if err != nil {
		return err
	}
	if len(n.Inputs[0].Shape) != 1 {
		return fmt.Errorf("input has shape %v, want 1-D", n.Inputs[0].Shape)
	}
	total := int64(1)
	for _, d := range dims {
		if d < 0 || (d > 0 && total > maxGenElems/d) {
			return fmt.Errorf("shape %v is negative or too large", dims)
		}
		total *= d
	}
	fill, err := constantOfShapeValue(n)
	if err != nil {
		return err
	}
	s := shapeFromInt64(dims)
	setOut(n, 0, fill.DType, s)
	if smallOut(s) && knownDType(fill.DType) {
		v, err := fill.AsFloat64()
		if err == nil && len(v) == 1 {
			vals := make([]float64, total)
			for i := range vals {
				vals[i] = v[0]
			}
			if fill.DType.IsFloat() {
				setKnown(n, 0, tensorFromFloat64(fill.DType, dimsOf(s), vals))
			} else {
				iv, err := fill.AsInt64()
				if err != nil || len(iv) != 1 {
					return nil
				}
				ints := make([]int64, total)
				for i := range ints {
					ints[i] = iv[0]
				}
				setKnown(n, 0, tensorFromInt64(fill.DType, dimsOf(s), ints))
			}
		}
	}
	return nil
}

// constantOfShapeValue returns ConstantOfShape's one-element fill tensor.
func constantOfShapeValue(n *Node) (*Tensor, error) {
	t := n.AttrTensor("value")
	if t == nil {
		return FromFloat32([]float32{0}, 1), nil
	}
	if t.Len() != 1 || DataLen(t.Data) != 1 {
		return nil, fmt.Errorf("attribute value has shape %v and %d elements, want 1", t.Shape, DataLen(t.Data))
	}
	return t, nil
}

func inferRange(n *Node) error {
	dt := n.Inputs[0].DType
	for i := 0; i < 3; i++ {
		if err := checkSameType(n, 0, i); err != nil {
			return err
		}
		if numel(n.Inputs[i].Shape) != 1 {
			return fmt.Errorf("input %d %q must be a scalar, has shape %v", i, n.Inputs[i].Name, n.Inputs[i].Shape)
		}
	}
	if !isNumericType(dt) {
		return fmt.Errorf("inputs have dtype %v, want a numeric type", dt)
	}
	var v [3]float64
	for i := range v {
		f, _, err := constFloats(n, i)
		if err != nil {
			return err
		}
		v[i] = f[0]
	}
	count, err := RangeCount(v[0], v[1], v[2])
	if err != nil {
		return err
	}
	s := Shape{{Value: count}}
	setOut(n, 0, dt, s)
	if smallOut(s) && knownDType(dt) {
		vals := make([]float64, count)
		for i := range vals {
			vals[i] = v[0] + float64(i)*v[2]
		}
		setKnown(n, 0, tensorFromFloat64(dt, dimsOf(s), vals))
	}
	return nil
}

// RangeCount returns the number of elements of Range(start, limit, delta):
// max(ceil((limit-start)/delta), 0).
func RangeCount(start, limit, delta float64) (int64, error) {
	if delta == 0 || math.IsNaN(start+limit+delta) || math.IsInf(start+limit+delta, 0) {
		return 0, fmt.Errorf("range(%v, %v, %v) is not finite", start, limit, delta)
	}
	c := math.Ceil((limit - start) / delta)
	if c > maxGenElems {
		return 0, fmt.Errorf("range(%v, %v, %v) has too many elements", start, limit, delta)
	}
	return int64(max(c, 0)), nil
}

func inferSize(n *Node) error {
	x := n.Inputs[0]
	setOut(n, 0, Int64, Shape{})
	setKnown(n, 0, &Tensor{DType: Int64, Data: []int64{numel(x.Shape)}})
	return nil
}

func inferEyeLike(n *Node) error {
	x := n.Inputs[0]
	if len(x.Shape) != 2 {
		return fmt.Errorf("input has shape %v, want 2-D", x.Shape)
	}
	dt := x.DType
	if n.HasAttr("dtype") {
		dt = DType(n.AttrInt("dtype"))
		if !dt.Valid() {
			return fmt.Errorf("attribute dtype=%d is not a valid dtype", n.AttrInt("dtype"))
		}
	}
	setOut(n, 0, dt, x.Shape.Clone())
	return nil
}

func inferTrilu(n *Node) error {
	x := n.Inputs[0]
	if len(x.Shape) < 2 {
		return fmt.Errorf("input has shape %v, want rank >= 2", x.Shape)
	}
	if k, ok, err := constInts(n, 1); err != nil {
		return err
	} else if ok && len(k) != 1 {
		return fmt.Errorf("k has %d elements, want 1", len(k))
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}

func inferTile(n *Node) error {
	x := n.Inputs[0]
	reps, _, err := constInts(n, 1)
	if err != nil {
		return err
	}
	if len(reps) != len(x.Shape) {
		return fmt.Errorf("repeats has %d values for rank %d", len(reps), len(x.Shape))
	}
	out := make(Shape, len(reps))
	total := int64(1)
	for i, r := range reps {
		d := x.Shape[i].Value * r
		if r < 0 || (r > 0 && x.Shape[i].Value > maxGenElems/r) || (d > 0 && total > maxGenElems/d) {
			return fmt.Errorf("repeats %v are negative or too large", reps)
		}
		total *= d
		out[i] = Dim{Value: d}
	}
	setOut(n, 0, x.DType, out)
	return nil
}

func inferCumSum(n *Node) error {
	if err := checkType(n, 0, isNumericType, "a numeric type"); err != nil {
		return err
	}
	x := n.Inputs[0]
	a, _, err := constInts(n, 1)
	if err != nil {
		return err
	}
	if len(a) != 1 {
		return fmt.Errorf("axis has %d values, want 1", len(a))
	}
	if _, err := NormAxis(a[0], len(x.Shape)); err != nil {
		return err
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}

func inferSpaceDepth(toDepth bool) InferFunc {
	return func(n *Node) error {
		x := n.Inputs[0]
		b := n.AttrInt("blocksize")
		if len(x.Shape) != 4 || b < 1 {
			return fmt.Errorf("input %v and blocksize %d: want rank 4 and blocksize >= 1", x.Shape, b)
		}
		if !toDepth {
			if m := n.AttrString("mode"); m != "DCR" && m != "CRD" {
				return fmt.Errorf("mode %q is not DCR or CRD", m)
			}
		}
		N, C, H, W := x.Shape[0].Value, x.Shape[1].Value, x.Shape[2].Value, x.Shape[3].Value
		var out Shape
		if toDepth {
			if H%b != 0 || W%b != 0 {
				return fmt.Errorf("spatial dims %dx%d not divisible by blocksize %d", H, W, b)
			}
			out = shapeFromInt64([]int64{N, C * b * b, H / b, W / b})
		} else {
			if C%(b*b) != 0 {
				return fmt.Errorf("channels %d not divisible by blocksize² %d", C, b*b)
			}
			out = shapeFromInt64([]int64{N, C / (b * b), H * b, W * b})
		}
		setOut(n, 0, x.DType, out)
		return nil
	}
}

func inferEinsum(n *Node) error {
	if err := checkType(n, 0, isNumericType, "a numeric type"); err != nil {
		return err
	}
	ranks := make([]int, len(n.Inputs))
	shapes := make([][]int, len(n.Inputs))
	for i, in := range n.Inputs {
		if in == nil {
			return fmt.Errorf("input %d is empty", i)
		}
		if err := checkSameType(n, 0, i); err != nil {
			return err
		}
		ranks[i] = len(in.Shape)
		shapes[i] = dimsOf(in.Shape)
	}
	spec, err := ParseEinsum(n.AttrString("equation"), ranks)
	if err != nil {
		return err
	}
	size, err := spec.Sizes(shapes)
	if err != nil {
		return err
	}
	out := make(Shape, len(spec.Output))
	for i, l := range spec.Output {
		out[i] = Dim{Value: int64(size[l])}
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}
