package graph

import "fmt"

// Pooling operators.

// poolOps are the rows of this file.
var poolOps = []OpSchema{
	poolSchema("MaxPool", "Maximum over sliding windows of the spatial axes of X [N,C,D...]; Indices holds flat argmax positions.",
		[]InputSpec{{Name: "Y"}, {Name: "Indices", Optional: true}}, "storage_order").
		history(History{First: 1, AttrSince: map[string]int64{"ceil_mode": 10, "dilations": 10, "storage_order": 8}, OutputSince: map[int]int64{1: 8}}),
	poolSchema("AveragePool", "Mean over sliding windows of the spatial axes of X [N,C,D...]; padding counts only if count_include_pad.",
		outY, "count_include_pad").
		history(History{First: 1, AttrSince: map[string]int64{"ceil_mode": 10, "count_include_pad": 7, "dilations": 19}}),
	{Op: "GlobalAveragePool", MinOpset: 9, History: opset1, Work: workPerInput, Infer: inferGlobalPool, Inputs: inX, Outputs: outY,
		Doc: "Mean over all spatial axes of X [N,C,D...], giving [N,C,1...]."},
}

// poolSchema is the table row of a windowed pooling op: input X, the
// window attributes with a required kernel_shape, ceil_mode and the int
// attribute flag (default 0).
func poolSchema(op, doc string, outputs []InputSpec, flag string) OpSchema {
	return OpSchema{
		Op:      op,
		Window:  true,
		Doc:     doc,
		Inputs:  inX,
		Outputs: outputs,
		Attrs: append(windowAttrs(true),
			AttrSpec{Name: "ceil_mode", Kind: AttrInt, Default: defInt(0)},
			AttrSpec{Name: flag, Kind: AttrInt, Default: defInt(0)},
		),
		MinOpset: 9,
		Work:     workWindow,
		Infer:    inferPool,
	}
}

func inferPool(n *Node) error {
	x := n.Inputs[0]
	if err := checkType(n, 0, isNumericType, "a numeric type"); err != nil {
		return err
	}
	r := len(x.Shape)
	if r < 3 {
		return fmt.Errorf("input X has shape %v, want rank >= 3 [N,C,D...]", x.Shape)
	}
	sp := r - 2
	w, err := readWindow(n, sp, nil)
	if err != nil {
		return err
	}
	ceil := n.AttrInt("ceil_mode") != 0
	out, err := w.outShape(x.Shape, x.Shape[1], ceil)
	if err != nil {
		return err
	}
	setOut(n, 0, x.DType, out)
	if len(n.Outputs) > 1 {
		setOut(n, 1, Int64, out.Clone())
	}
	return nil
}

func inferGlobalPool(n *Node) error {
	x := n.Inputs[0]
	if err := checkType(n, 0, isFloatType, "a floating-point type"); err != nil {
		return err
	}
	if len(x.Shape) < 2 {
		return fmt.Errorf("input X has shape %v, want rank >= 2 [N,C,D...]", x.Shape)
	}
	out := make(Shape, len(x.Shape))
	out[0], out[1] = x.Shape[0], x.Shape[1]
	for i := 2; i < len(out); i++ {
		out[i] = Dim{Value: 1}
	}
	setOut(n, 0, x.DType, out)
	return nil
}
