package graph

import (
	"cmp"
	"fmt"
)

// Matrix products and determinants.

// linalgOps are the rows of this file.
var linalgOps = []OpSchema{
	{Op: "MatMul", MinOpset: 9, History: opset1, Exact: ExactArith, Work: workMatMul, Infer: inferMatMul, Inputs: inAB, Outputs: ins("Y"),
		Doc: "Matrix product of A and B with numpy semantics (batch broadcasting, 1-D operands promoted and their axis removed)."},
	{Op: "Gemm", MinOpset: 9, Exact: ExactArith, Work: workGemm, Infer: inferGemm, Inputs: []InputSpec{req("A"), req("B"), opt("C")}, Outputs: outY,
		History: History{First: 1, RequiredBefore: map[int]int64{2: 11}},
		Attrs:   []AttrSpec{floatAttr("alpha", 1), floatAttr("beta", 1), intAttr("transA", 0), intAttr("transB", 0)},
		Doc:     "Y = alpha * A' * B' + beta * C for 2-D A, B (A' = transpose(A) if transA, likewise B') with C broadcast to [M,N]."},
	{Op: "Det", MinOpset: 11, Work: workDet, Infer: inferDet, Inputs: ins("X"), Outputs: outY,
		Doc: "Y = the determinant of each square matrix in the last two axes of X; Y has X's leading axes."},
}

func inferMatMul(n *Node) error {
	if err := cmp.Or(checkType(n, 0, isNumericType, "a numeric type"), checkSameType(n, 0, 1)); err != nil {
		return err
	}
	return setMatMulOut(n, 0, 1, n.Inputs[0].DType)
}

// setMatMulOut sets output 0 of n to the numpy matrix product of inputs
// ai and bi, of dtype dt.
func setMatMulOut(n *Node, ai, bi int, dt DType) error {
	out, err := matMulShape(n.Inputs[ai].Shape, n.Inputs[bi].Shape)
	if err == nil {
		setOut(n, 0, dt, out)
	}
	return err
}

// matMulShape returns the shape of the numpy matrix product of operands
// of shapes a and b.
func matMulShape(a, b Shape) (Shape, error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, fmt.Errorf("MatMul operands must have rank >= 1, have %v and %v", a, b)
	}
	// Matrix dimensions after promoting 1-D operands.
	var m, ka, kb, nn int64 = 1, a[len(a)-1].Value, 0, 1
	if len(a) >= 2 {
		m = a[len(a)-2].Value
	}
	if len(b) >= 2 {
		kb, nn = b[len(b)-2].Value, b[len(b)-1].Value
	} else {
		kb = b[0].Value
	}
	if ka != kb {
		return nil, fmt.Errorf("inner dimensions differ: A %v, B %v", a, b)
	}
	var batchA, batchB Shape
	if len(a) > 2 {
		batchA = a[:len(a)-2]
	}
	if len(b) > 2 {
		batchB = b[:len(b)-2]
	}
	rb := max(len(batchA), len(batchB))
	out := make(Shape, rb, rb+2)
	if err := broadcastInto(out, batchA, batchB); err != nil {
		return nil, fmt.Errorf("batch dimensions: %w", err)
	}
	if len(a) >= 2 {
		out = append(out, Dim{Value: m})
	}
	if len(b) >= 2 {
		out = append(out, Dim{Value: nn})
	}
	return out, nil
}

func inferGemm(n *Node) error {
	if err := checkType(n, 0, isNumericType, "a numeric type"); err != nil {
		return err
	}
	if err := checkSameType(n, 0, 1); err != nil {
		return err
	}
	if err := checkSameType(n, 0, 2); err != nil {
		return err
	}
	a, b := n.Inputs[0].Shape, n.Inputs[1].Shape
	if len(a) != 2 || len(b) != 2 {
		return fmt.Errorf("Gemm operands must be 2-D, have %v and %v", a, b)
	}
	m, k := a[0].Value, a[1].Value
	if n.AttrInt("transA") != 0 {
		m, k = k, m
	}
	k2, nn := b[0].Value, b[1].Value
	if n.AttrInt("transB") != 0 {
		k2, nn = nn, k2
	}
	if k != k2 {
		return fmt.Errorf("inner dimensions differ: A %v (transA=%d), B %v (transB=%d)", a, n.AttrInt("transA"), b, n.AttrInt("transB"))
	}
	out := Shape{{Value: m}, {Value: nn}}
	if c := n.Input(2); c != nil && !unidirectional(out, c.Shape) {
		return fmt.Errorf("C has shape %v, not broadcastable to %v", c.Shape, out)
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func inferDet(n *Node) error {
	if err := checkType(n, 0, isFloatType, "a floating-point type"); err != nil {
		return err
	}
	x := n.Inputs[0].Shape
	if len(x) < 2 || x[len(x)-1].Value != x[len(x)-2].Value {
		return fmt.Errorf("input shape %v is not a stack of square matrices", x)
	}
	setOut(n, 0, n.Inputs[0].DType, x[:len(x)-2].Clone())
	return nil
}

// workDet is an LU factorisation's 2/3 m^3 multiply-adds per matrix (not
// the contraction of a dense product).
func workDet(n *Node, out int64) (int64, bool) {
	_, x, ok := staticElems(n.Input(0))
	if !ok || len(x) < 2 {
		return 0, false
	}
	m := int64(x[len(x)-1])
	return out * 2 * m * m * m / 3, false
}
