package graph

import "fmt"

// Convolutions and the sliding-window arithmetic they share with pooling.

// windowAttrs are the attributes common to Conv and pooling operators.
func windowAttrs(kernelRequired bool) []AttrSpec {
	return []AttrSpec{
		{Name: "auto_pad", Kind: AttrString, Default: defString("NOTSET")},
		{Name: "dilations", Kind: AttrInts},
		{Name: "kernel_shape", Kind: AttrInts, Required: kernelRequired},
		{Name: "pads", Kind: AttrInts},
		{Name: "strides", Kind: AttrInts},
	}
}

// convOps are the rows of this file.
var convOps = []OpSchema{
	convSchema("Conv", "N-d cross-correlation of X [N,C,D...] with weights W [M,C/group,k...] plus optional bias B [M].",
		inferConv, workConv).history(opset1).exact(ExactArith),
	convSchema("ConvTranspose", "N-d transposed convolution (gradient of Conv) of X [N,C,D...] with W [C,M/group,k...] plus optional bias B [M].",
		inferConvTranspose, workConvTranspose,
		AttrSpec{Name: "output_padding", Kind: AttrInts},
		AttrSpec{Name: "output_shape", Kind: AttrInts}).history(opset1),
}

// convSchema is the table row of a convolution: inputs X, W and optional
// B, the window attributes, group and extra.
func convSchema(op, doc string, infer InferFunc, work WorkFunc, extra ...AttrSpec) OpSchema {
	attrs := append(windowAttrs(false), AttrSpec{Name: "group", Kind: AttrInt, Default: defInt(1)})
	return OpSchema{
		Op:            op,
		Window:        true,
		WeightDerived: []string{"kernel_shape"},
		Doc:           doc,
		Inputs:        []InputSpec{{Name: "X"}, {Name: "W"}, {Name: "B", Optional: true}},
		Outputs:       outY,
		Attrs:         append(attrs, extra...),
		MinOpset:      9,
		Work:          work,
		Infer:         infer,
	}
}

// window holds the validated sliding-window attributes of a node.
type window struct {
	autoPad                          string
	kernel, strides, dilations, pads []int64
	// weights supplies the kernel size when kernel_shape is absent.
	weights Shape
}

// k returns the kernel size on spatial axis i.
func (w window) k(i int) int64 {
	if w.kernel != nil {
		return w.kernel[i]
	}
	return w.weights[i].Value
}

// readWindow reads and checks the window attributes for sp spatial axes;
// kernel defaults to the given shape (Conv takes it from the weights).
func readWindow(n *Node, sp int, kernelDefault Shape) (window, error) {
	w := window{
		autoPad:   n.AttrString("auto_pad"),
		kernel:    n.AttrInts("kernel_shape"),
		strides:   n.AttrInts("strides"),
		dilations: n.AttrInts("dilations"),
		pads:      n.AttrInts("pads"),
	}
	switch w.autoPad {
	case "", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID":
	default:
		return w, fmt.Errorf("auto_pad %q is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", w.autoPad)
	}
	if w.kernel == nil {
		if kernelDefault == nil {
			return w, fmt.Errorf("attribute kernel_shape is required")
		}
		w.weights = kernelDefault
	}
	check := func(name string, v []int64, want int, pos bool) error {
		if v == nil {
			return nil
		}
		if len(v) != want {
			return fmt.Errorf("attribute %s has %d values, want %d", name, len(v), want)
		}
		for _, x := range v {
			if (pos && x < 1) || x < 0 {
				return fmt.Errorf("attribute %s has invalid value %v", name, v)
			}
		}
		return nil
	}
	if err := check("kernel_shape", w.kernel, sp, true); err != nil {
		return w, err
	}
	if err := check("strides", w.strides, sp, true); err != nil {
		return w, err
	}
	if err := check("dilations", w.dilations, sp, true); err != nil {
		return w, err
	}
	if err := check("pads", w.pads, 2*sp, false); err != nil {
		return w, err
	}
	return w, nil
}

// sp returns the number of spatial axes.
func (w window) sp() int {
	if w.kernel != nil {
		return len(w.kernel)
	}
	return len(w.weights)
}

// outSize computes the output length of spatial axis i for an input of
// length in, following the ONNX formulas for each auto_pad mode. ceilMode
// applies to pooling; a window that would start inside the end padding is
// dropped, as ONNX Runtime and PyTorch do.
func (w window) outSize(i int, in int64, ceilMode bool) (int64, error) {
	k, s, d := w.k(i), intsAt(w.strides, i, 1), intsAt(w.dilations, i, 1)
	dk := (k-1)*d + 1
	var pb, pe int64
	switch w.autoPad {
	case "SAME_UPPER", "SAME_LOWER":
		return ceilDiv(in, s), nil
	case "VALID":
	default:
		pb, pe = intsAt(w.pads, i, 0), intsAt(w.pads, i+w.sp(), 0)
	}
	num := in + pb + pe - dk
	if num < 0 {
		return 0, fmt.Errorf("spatial axis %d: input size %d with padding %d+%d is smaller than the dilated kernel %d", i, in, pb, pe, dk)
	}
	if !ceilMode {
		return num/s + 1, nil
	}
	out := ceilDiv(num, s) + 1
	if (out-1)*s >= in+pb {
		out--
	}
	return out, nil
}

// convOperands checks what Conv and ConvTranspose share: float X, W and B
// of one type, X of rank >= 3, W of X's rank and a positive group.
func convOperands(n *Node) (x, wt *Value, group int64, err error) {
	x, wt = n.Inputs[0], n.Inputs[1]
	err = checkType(n, 0, isFloatType, "a floating-point type")
	if err == nil {
		err = checkSameType(n, 0, 1)
	}
	if err == nil {
		err = checkSameType(n, 0, 2)
	}
	if err != nil {
		return nil, nil, 0, err
	}
	group, err = convGroup(n, x, wt)
	return x, wt, group, err
}

// convGroup checks that input x has rank >= 3 and weights wt x's rank,
// and returns the group attribute, which must be positive.
func convGroup(n *Node, x, wt *Value) (int64, error) {
	r := len(x.Shape)
	if r < 3 {
		return 0, fmt.Errorf("input X has shape %v, want rank >= 3 [N,C,D...]", x.Shape)
	}
	if len(wt.Shape) != r {
		return 0, fmt.Errorf("weight W has shape %v, want rank %d like X %v", wt.Shape, r, x.Shape)
	}
	group := n.AttrInt("group")
	if group < 1 {
		return 0, fmt.Errorf("group %d must be positive", group)
	}
	return group, nil
}

// convWindow checks the optional bias b against m output channels and
// reads the window attributes of sp spatial axes (the kernel defaulting
// from the weights wt).
func convWindow(n *Node, m int64, sp int, wt, b *Value) (window, error) {
	if b != nil && (len(b.Shape) != 1 || b.Shape[0].Value != m) {
		return window{}, fmt.Errorf("bias B has shape %v, want [%d]", b.Shape, m)
	}
	return readWindow(n, sp, wt.Shape[2:])
}

// outShape returns the output shape [N, channels, spatial...] of the
// window over input shape x (ceil rounds partial windows up).
func (w window) outShape(x Shape, channels Dim, ceil bool) (Shape, error) {
	out := make(Shape, len(x))
	out[0], out[1] = x[0], channels
	for i := range x[2:] {
		v, err := w.outSize(i, x[2+i].Value, ceil)
		if err != nil {
			return nil, err
		}
		out[2+i] = Dim{Value: v}
	}
	return out, nil
}

func inferConv(n *Node) error {
	x, wt, group, err := convOperands(n)
	if err != nil {
		return err
	}
	out, err := convOutShape(n, x, wt, n.Input(2), group)
	if err != nil {
		return err
	}
	setOut(n, 0, x.DType, out)
	return nil
}

// convOutShape checks the channels of input x and weights wt against
// group and the optional bias b, and returns the convolution's output
// shape.
func convOutShape(n *Node, x, wt, b *Value, group int64) (Shape, error) {
	r := len(x.Shape)
	c, m, wc := x.Shape[1].Value, wt.Shape[0].Value, wt.Shape[1].Value
	if wc*group != c {
		return nil, fmt.Errorf("X has %d channels but W %v with group %d expects %d", c, wt.Shape, group, wc*group)
	}
	if m%group != 0 {
		return nil, fmt.Errorf("W has %d output channels, not divisible by group %d", m, group)
	}
	sp := r - 2
	w, err := convWindow(n, m, sp, wt, b)
	if err != nil {
		return nil, err
	}
	for i := 0; i < sp; i++ {
		if w.k(i) != wt.Shape[2+i].Value {
			return nil, fmt.Errorf("kernel_shape %v disagrees with weight shape %v", w.kernel, wt.Shape)
		}
	}
	return w.outShape(x.Shape, Dim{Value: m}, false)
}

func inferConvTranspose(n *Node) error {
	x, wt, group, err := convOperands(n)
	if err != nil {
		return err
	}
	r := len(x.Shape)
	if c := x.Shape[1].Value; wt.Shape[0].Value != c {
		return fmt.Errorf("X has %d channels but W %v expects %d", c, wt.Shape, wt.Shape[0].Value)
	}
	m := wt.Shape[1].Value * group
	sp := r - 2
	w, err := convWindow(n, m, sp, wt, n.Input(2))
	if err != nil {
		return err
	}
	outPad := n.AttrInts("output_padding")
	if outPad != nil && len(outPad) != sp {
		return fmt.Errorf("attribute output_padding has %d values, want %d", len(outPad), sp)
	}
	outShape := n.AttrInts("output_shape")
	if len(outShape) == r {
		outShape = outShape[2:]
	}
	if outShape != nil && len(outShape) != sp {
		return fmt.Errorf("attribute output_shape has %d values, want %d", len(outShape), sp)
	}
	out := make(Shape, r)
	out[0], out[1] = x.Shape[0], Dim{Value: m}
	for i := 0; i < sp; i++ {
		in := x.Shape[2+i].Value
		s, d := intsAt(w.strides, i, 1), intsAt(w.dilations, i, 1)
		dk := (w.k(i)-1)*d + 1
		var v int64
		switch {
		case outShape != nil:
			v = outShape[i]
		case w.autoPad == "SAME_UPPER" || w.autoPad == "SAME_LOWER":
			v = in * s
		default:
			var pb, pe int64
			if w.autoPad != "VALID" {
				pb, pe = intsAt(w.pads, i, 0), intsAt(w.pads, i+sp, 0)
			}
			v = s*(in-1) + intsAt(outPad, i, 0) + dk - pb - pe
		}
		if v < 0 {
			return fmt.Errorf("spatial axis %d: negative output size %d", i, v)
		}
		out[2+i] = Dim{Value: v}
	}
	setOut(n, 0, x.DType, out)
	return nil
}
