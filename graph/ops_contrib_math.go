package graph

import "fmt"

// contribMathOps are ONNX Runtime's com.microsoft activation and matrix
// product operators that fusions emit: GELU with its bias folded in, and
// MatMul with a scale and transposes folded in.
var contribMathOps = []OpSchema{
	{
		Op: "BiasGelu", Domain: MicrosoftDomain, MinOpset: 9, Work: workPerOutput, Infer: inferBiasAct,
		Inputs: ins("A", "B"), Outputs: ins("C"),
		Doc: "C = Gelu(A + B) with the exact (erf) Gelu, 0.5 x (1 + erf(x / sqrt 2)); B is 1-D, the size of A's last dimension.",
	},
	{
		Op: "FastGelu", Domain: MicrosoftDomain, MinOpset: 9, Work: workPerOutput, Infer: inferBiasAct,
		Inputs: []InputSpec{req("X"), opt("bias")}, Outputs: ins("Y"),
		Doc: "Y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) of x = X + bias, the tanh approximation of Gelu; bias is 1-D, the size of X's last dimension.",
	},
	{
		Op: "FusedMatMul", Domain: MicrosoftDomain, MinOpset: 9, Work: workFusedMatMul, Infer: inferFusedMatMul,
		Inputs: ins("A", "B"), Outputs: ins("Y"),
		Attrs: []AttrSpec{floatAttr("alpha", 1), intAttr("transA", 0), intAttr("transB", 0),
			intAttr("transBatchA", 0), intAttr("transBatchB", 0)},
		Doc: "Y = alpha * A' B' with MatMul's batch broadcasting, A' being A with its last two axes swapped when transA (likewise B'); " +
			"both operands have rank 2 or more; transBatchA and transBatchB must be 0.",
	},
}

// inferBiasAct checks BiasGelu's and FastGelu's operands: a float input
// and an optional 1-D bias the size of its last dimension. The output has
// the input's shape.
func inferBiasAct(n *Node) error {
	if err := checkFloatOperands(n, 1); err != nil {
		return err
	}
	x := n.Inputs[0]
	if len(x.Shape) == 0 {
		return fmt.Errorf("%s input must have rank >= 1", n.Op)
	}
	if b := n.Input(1); b != nil {
		if last := x.Shape[len(x.Shape)-1].Value; len(b.Shape) != 1 || b.Shape[0].Value != last {
			return fmt.Errorf("%s bias %v, want [%d] (the input's last dimension)", n.Op, b.Shape, last)
		}
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}

// MatMulDims are the sizes of each batch element's product of a
// FusedMatMul node, [M, K] by [K, N], and whether A and B are stored
// transposed.
type MatMulDims struct {
	M, N, K int
	TransA  bool
	TransB  bool
}

// FusedMatMulDims checks a FusedMatMul node's operands and attributes and
// returns the sizes of one product with the broadcast batch shape.
func FusedMatMulDims(n *Node) (MatMulDims, Shape, error) {
	var d MatMulDims
	a, b := n.Input(0), n.Input(1)
	if a == nil || b == nil {
		return d, nil, fmt.Errorf("FusedMatMul needs A and B")
	}
	if n.AttrInt("transBatchA") != 0 || n.AttrInt("transBatchB") != 0 {
		return d, nil, fmt.Errorf("FusedMatMul with transBatchA or transBatchB is not supported")
	}
	as, bs := a.Shape, b.Shape
	if len(as) < 2 || len(bs) < 2 {
		return d, nil, fmt.Errorf("FusedMatMul operands must have rank >= 2, have %v and %v", as, bs)
	}
	d.TransA, d.TransB = n.AttrInt("transA") != 0, n.AttrInt("transB") != 0
	m, ka := as[len(as)-2], as[len(as)-1]
	if d.TransA {
		m, ka = ka, m
	}
	kb, nn := bs[len(bs)-2], bs[len(bs)-1]
	if d.TransB {
		kb, nn = nn, kb
	}
	if ka.Value != kb.Value {
		return d, nil, fmt.Errorf("FusedMatMul inner dimensions differ: A %v, B %v (transA %v, transB %v)", as, bs, d.TransA, d.TransB)
	}
	batchA, batchB := as[:len(as)-2], bs[:len(bs)-2]
	out := make(Shape, max(len(batchA), len(batchB)), max(len(batchA), len(batchB))+2)
	if err := broadcastInto(out, batchA, batchB); err != nil {
		return d, nil, fmt.Errorf("FusedMatMul batch dimensions: %w", err)
	}
	d.M, d.N, d.K = int(m.Value), int(nn.Value), int(ka.Value)
	return d, append(out, m, nn), nil
}

func inferFusedMatMul(n *Node) error {
	if err := checkFloatOperands(n, 1); err != nil {
		return err
	}
	_, out, err := FusedMatMulDims(n)
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

// workFusedMatMul is 2 per multiply-accumulate of A' B'.
func workFusedMatMul(n *Node, out int64) (int64, bool) {
	d, _, err := FusedMatMulDims(n)
	if err != nil {
		return out, false
	}
	return 2 * out * int64(d.K), true
}
