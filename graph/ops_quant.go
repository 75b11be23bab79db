package graph

import (
	"cmp"
	"fmt"
)

// Linear quantisation: QuantizeLinear, DequantizeLinear and
// DynamicQuantizeLinear on 8- and 16-bit integers, and the 8-bit matrix
// products and convolutions MatMulInteger, QLinearMatMul, ConvInteger and
// QLinearConv. The float8 and 4-bit
// forms and block quantisation (opset 21's block_size) are outside the
// table: such nodes stay opaque.

// quantOps are the rows of this file.
var quantOps = []OpSchema{
	{Op: "QuantizeLinear", MinOpset: 10, Work: workPerOutput, Infer: inferQuantize, Inputs: []InputSpec{req("x"), req("y_scale"), opt("y_zero_point")}, Outputs: ins("y"),
		History: History{AttrSince: map[string]int64{"axis": 13, "saturate": 19}},
		Attrs:   []AttrSpec{intAttr("axis", 1), intAttr("saturate", 1)},
		Doc:     "y = saturate(round_half_even(x / y_scale) + y_zero_point) in y_zero_point's integer type (uint8 without it); a 1-D scale and zero point apply along axis."},
	{Op: "DequantizeLinear", MinOpset: 10, Work: workPerOutput, Infer: inferDequantize, Inputs: []InputSpec{req("x"), req("x_scale"), opt("x_zero_point")}, Outputs: ins("y"),
		History: History{AttrSince: map[string]int64{"axis": 13}},
		Attrs:   []AttrSpec{intAttr("axis", 1)},
		Doc:     "y = (x - x_zero_point) * x_scale in x_scale's float type; a 1-D scale and zero point apply along axis."},
	{Op: "DynamicQuantizeLinear", MinOpset: 11, Work: workPerOutput, Infer: inferDynamicQuantize, Inputs: ins("x"), Outputs: ins("y", "y_scale", "y_zero_point"),
		Doc: "uint8 y = QuantizeLinear(x) with y_scale = (max(0, max x) - min(0, min x)) / 255 and y_zero_point = saturate(round(-min(0, min x) / y_scale))."},
	{Op: "MatMulInteger", MinOpset: 10, Work: workMatMul, Infer: inferMatMulInteger, Inputs: []InputSpec{req("A"), req("B"), opt("a_zero_point"), opt("b_zero_point")}, Outputs: outY,
		Doc: "int32 Y = MatMul(A - a_zero_point, B - b_zero_point) of 8-bit integers; a 1-D a_zero_point is per row of A, b_zero_point per column of B."},
	{Op: "QLinearMatMul", MinOpset: 10, Work: workMatMul, Infer: inferQLinearMatMul, Outputs: ins("y"),
		Inputs: ins("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"),
		Doc:    "y = QuantizeLinear(MatMul(DequantizeLinear(a), DequantizeLinear(b)), y_scale, y_zero_point) of 8-bit integers; a's scale and zero point may be per row, b's per column."},
	{Op: "ConvInteger", MinOpset: 10, Window: true, WeightDerived: []string{"kernel_shape"}, Work: workConv, Infer: inferConvInteger,
		Inputs: []InputSpec{req("x"), req("w"), opt("x_zero_point"), opt("w_zero_point")}, Outputs: ins("y"), Attrs: quantConvAttrs,
		Doc: "int32 y = Conv(x - x_zero_point, w - w_zero_point) of 8-bit integers (padding contributes zero); w_zero_point may be per output channel."},
	{Op: "QLinearConv", MinOpset: 10, Window: true, Work: workQLinearConv, Infer: inferQLinearConv,
		Inputs:  append(ins("x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point"), opt("B")),
		Outputs: ins("y"), Attrs: quantConvAttrs,
		Doc: "y = QuantizeLinear(Conv(DequantizeLinear(x), DequantizeLinear(w)) + B x_scale w_scale, y_scale, y_zero_point) with int32 B; w's scale and zero point may be per output channel."},
}

// isQuantType accepts the integer types a quantised tensor may have.
func isQuantType(d DType) bool {
	switch d {
	case Int8, Uint8, Int16, Uint16:
		return true
	}
	return false
}

// checkQuantParams checks a scale (input si) and optional zero point (si+1)
// against input 0: scalars, or 1-D of the length of input 0's axis.
func checkQuantParams(n *Node, si int) error {
	if err := checkType(n, si, isFloatType, "a floating-point type"); err != nil {
		return err
	}
	x, s := n.Inputs[0], n.Inputs[si]
	ax, err := NormAxis(n.AttrInt("axis"), len(x.Shape))
	perAxis := len(s.Shape) == 1 && s.Shape[0].Value != 1
	switch {
	case len(s.Shape) > 1:
		return fmt.Errorf("input %d %q has shape %v, want a scalar or 1-D", si, s.Name, s.Shape)
	case perAxis && err != nil:
		return err
	case perAxis && s.Shape[0].Value != x.Shape[ax].Value:
		return fmt.Errorf("input %d %q has %d elements, want axis %d's %d", si, s.Name, s.Shape[0].Value, ax, x.Shape[ax].Value)
	}
	if zp := n.Input(si + 1); zp != nil && !zp.Shape.Equal(s.Shape) {
		return fmt.Errorf("zero point %q has shape %v, scale %q %v", zp.Name, zp.Shape, s.Name, s.Shape)
	}
	return nil
}

func inferQuantize(n *Node) error {
	err := cmp.Or(checkType(n, 0, isFloatType, "a floating-point type"),
		checkType(n, 2, isQuantType, "an 8- or 16-bit integer type"), checkQuantParams(n, 1))
	if err != nil {
		return err
	}
	dt := Uint8
	if zp := n.Input(2); zp != nil {
		dt = zp.DType
	}
	setOut(n, 0, dt, n.Inputs[0].Shape.Clone())
	return nil
}

func inferDequantize(n *Node) error {
	x := n.Inputs[0]
	if !isQuantType(x.DType) && x.DType != Int32 {
		return fmt.Errorf("input 0 %q has dtype %v, want an 8- or 16-bit integer type or int32", x.Name, x.DType)
	}
	if err := cmp.Or(checkSameType(n, 0, 2), checkQuantParams(n, 1)); err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[1].DType, x.Shape.Clone())
	return nil
}

func inferDynamicQuantize(n *Node) error {
	if err := checkType(n, 0, isFloatType, "a floating-point type"); err != nil {
		return err
	}
	setOut(n, 0, Uint8, n.Inputs[0].Shape.Clone())
	setOut(n, 1, n.Inputs[0].DType, Shape{})
	setOut(n, 2, Uint8, Shape{})
	return nil
}

// is8BitType accepts the 8-bit integers.
func is8BitType(d DType) bool { return d == Int8 || d == Uint8 }

// checkMatMulOperands checks that inputs ai and bi, the operands of an
// integer matrix product, are 8-bit integers.
func checkMatMulOperands(n *Node, ai, bi int) error {
	return cmp.Or(checkType(n, ai, is8BitType, "int8 or uint8"), checkType(n, bi, is8BitType, "int8 or uint8"))
}

// checkRowParam checks that input i, a quantisation parameter of a matrix
// operand, is a scalar or 1-D of length 1 or length (the operand's rows
// for A, its columns for B).
func checkRowParam(n *Node, i int, length int64) error {
	v := n.Input(i)
	if v == nil || len(v.Shape) == 0 {
		return nil
	}
	if len(v.Shape) > 1 || v.Shape[0].Value != 1 && v.Shape[0].Value != length {
		return fmt.Errorf("input %d %q has shape %v, want a scalar or [%d]", i, v.Name, v.Shape, length)
	}
	return nil
}

// matrixDims returns the rows of a and the columns of b, operands of a
// matrix product.
func matrixDims(a, b Shape) (rows, cols int64) {
	rows, cols = 1, 1
	if len(a) >= 2 {
		rows = a[len(a)-2].Value
	}
	if len(b) >= 2 {
		cols = b[len(b)-1].Value
	}
	return rows, cols
}

func inferMatMulInteger(n *Node) error {
	m, c := matrixDims(n.Inputs[0].Shape, n.Inputs[1].Shape)
	err := cmp.Or(checkMatMulOperands(n, 0, 1), checkSameType(n, 0, 2), checkSameType(n, 1, 3),
		checkRowParam(n, 2, m), checkRowParam(n, 3, c))
	if err != nil {
		return err
	}
	return setMatMulOut(n, 0, 1, Int32)
}

func inferQLinearMatMul(n *Node) error {
	m, c := matrixDims(n.Inputs[0].Shape, n.Inputs[3].Shape)
	err := cmp.Or(checkMatMulOperands(n, 0, 3), checkSameType(n, 0, 2), checkSameType(n, 3, 5), checkType(n, 7, is8BitType, "int8 or uint8"),
		checkType(n, 1, isFloatType, "a floating-point type"), checkSameType(n, 1, 4), checkSameType(n, 1, 6),
		checkRowParam(n, 1, m), checkRowParam(n, 2, m), checkRowParam(n, 4, c), checkRowParam(n, 5, c),
		checkRowParam(n, 6, 1), checkRowParam(n, 7, 1))
	if err != nil {
		return err
	}
	return setMatMulOut(n, 0, 3, n.Inputs[7].DType)
}

// quantConvAttrs are the attributes of the integer convolutions: Conv's.
var quantConvAttrs = append(windowAttrs(false), intAttr("group", 1))

func inferConvInteger(n *Node) error {
	x, wt := n.Inputs[0], n.Inputs[1]
	err := cmp.Or(checkType(n, 0, is8BitType, "int8 or uint8"), checkType(n, 1, is8BitType, "int8 or uint8"),
		checkSameType(n, 0, 2), checkSameType(n, 1, 3), checkRowParam(n, 2, 1))
	if err != nil {
		return err
	}
	group, err := convGroup(n, x, wt)
	if err != nil {
		return err
	}
	if err := checkRowParam(n, 3, wt.Shape[0].Value); err != nil {
		return err
	}
	out, err := convOutShape(n, x, wt, nil, group)
	if err != nil {
		return err
	}
	setOut(n, 0, Int32, out)
	return nil
}

func inferQLinearConv(n *Node) error {
	x, wt, b := n.Inputs[0], n.Inputs[3], n.Input(8)
	err := cmp.Or(checkType(n, 0, is8BitType, "int8 or uint8"), checkType(n, 3, is8BitType, "int8 or uint8"),
		checkType(n, 7, is8BitType, "int8 or uint8"), checkSameType(n, 0, 2), checkSameType(n, 3, 5),
		checkType(n, 1, isFloatType, "a floating-point type"), checkSameType(n, 1, 4), checkSameType(n, 1, 6),
		checkType(n, 8, func(d DType) bool { return d == Int32 }, "int32"),
		checkRowParam(n, 1, 1), checkRowParam(n, 2, 1), checkRowParam(n, 6, 1), checkRowParam(n, 7, 1))
	if err != nil {
		return err
	}
	group, err := convGroup(n, x, wt)
	if err != nil {
		return err
	}
	if err := cmp.Or(checkRowParam(n, 4, wt.Shape[0].Value), checkRowParam(n, 5, wt.Shape[0].Value)); err != nil {
		return err
	}
	out, err := convOutShape(n, x, wt, b, group)
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[7].DType, out)
	return nil
}
