package graph

import "fmt"

// Operators of ONNX Runtime's com.microsoft domain that rewrites emit for
// ONNX Runtime on CPU. Only the forms the rewrites produce are accepted;
// anything else is an inference error, so such a node is never executed
// or exported with semantics xrl does not implement.

// MicrosoftDomain is the domain of ONNX Runtime's contributed operators.
const MicrosoftDomain = "com.microsoft"

// contribOps are the rows of this file.
var contribOps = []OpSchema{
	{
		Op:     "Attention",
		Domain: MicrosoftDomain,
		Doc: "Multi-head self-attention: QKV = input x weights + bias, split into Q, K, V and each into num_heads heads; " +
			"per head softmax(scale * Q K^T + attention_bias) V, heads concatenated (scale 0 means 1/sqrt(head size)); " +
			"no mask_index, past state or unidirectional masking.",
		Inputs: []InputSpec{
			{Name: "input"}, {Name: "weights"}, {Name: "bias", Optional: true},
			{Name: "mask_index", Optional: true}, {Name: "past", Optional: true}, {Name: "attention_bias", Optional: true},
		},
		Outputs: []InputSpec{{Name: "output"}},
		Attrs: []AttrSpec{
			{Name: "num_heads", Kind: AttrInt, Required: true},
			{Name: "scale", Kind: AttrFloat, Default: defFloat(0)},
			{Name: "unidirectional", Kind: AttrInt, Default: defInt(0)},
			{Name: "mask_filter_value", Kind: AttrFloat, Default: defFloat(-10000)},
		},
		// Any default-domain opset the codec writes (the domain itself is
		// imported at version 1).
		MinOpset: 9,
		Work:     workAttention,
		Infer:    inferAttention,
	},
}

// AttentionDims are the sizes of a com.microsoft Attention node: batch,
// sequence, input hidden size, hidden size (of Q, K and V each), heads.
type AttentionDims struct {
	Batch, Seq, In, Hidden, Heads int
}

// FLOPs returns the floating-point operations of an Attention of these
// sizes: the packed Q/K/V projection, then Q K^T and P V for every head.
func (d AttentionDims) FLOPs() int64 {
	bs := int64(d.Batch) * int64(d.Seq)
	return 2*bs*int64(d.In)*int64(3*d.Hidden) + 4*bs*int64(d.Seq)*int64(d.Hidden)
}

// AttentionShape checks an Attention node's inputs and attributes against
// the supported form and returns its sizes.
func AttentionShape(n *Node) (AttentionDims, error) {
	var d AttentionDims
	x, w := n.Input(0), n.Input(1)
	if x == nil || w == nil {
		return d, fmt.Errorf("Attention needs input and weights")
	}
	if len(x.Shape) != 3 || len(w.Shape) != 2 {
		return d, fmt.Errorf("Attention input must be 3-D [batch, seq, hidden] and weights 2-D, have %v and %v", x.Shape, w.Shape)
	}
	d.Batch, d.Seq, d.In = int(x.Shape[0].Value), int(x.Shape[1].Value), int(x.Shape[2].Value)
	if int(w.Shape[0].Value) != d.In || w.Shape[1].Value%3 != 0 {
		return d, fmt.Errorf("Attention weights %v do not map hidden size %d to three equal parts", w.Shape, d.In)
	}
	d.Hidden = int(w.Shape[1].Value) / 3
	d.Heads = int(n.AttrInt("num_heads"))
	if d.Heads <= 0 || d.Hidden%d.Heads != 0 {
		return d, fmt.Errorf("Attention num_heads %d does not divide hidden size %d", d.Heads, d.Hidden)
	}
	if b := n.Input(2); b != nil && (len(b.Shape) != 1 || int(b.Shape[0].Value) != 3*d.Hidden) {
		return d, fmt.Errorf("Attention bias %v, want [%d]", b.Shape, 3*d.Hidden)
	}
	if n.Input(3) != nil || n.Input(4) != nil {
		return d, fmt.Errorf("Attention with mask_index or past state is not supported")
	}
	if n.AttrInt("unidirectional") != 0 {
		return d, fmt.Errorf("Attention with unidirectional masking is not supported (pass the mask as attention_bias)")
	}
	if ab := n.Input(5); ab != nil {
		s := ab.Shape
		if len(s) != 4 || (s[0].Value != 1 && int(s[0].Value) != d.Batch) || (s[1].Value != 1 && int(s[1].Value) != d.Heads) ||
			int(s[2].Value) != d.Seq || int(s[3].Value) != d.Seq {
			return d, fmt.Errorf("Attention attention_bias %v, want [1 or %d, 1 or %d, %d, %d]", s, d.Batch, d.Heads, d.Seq, d.Seq)
		}
	}
	return d, nil
}

func inferAttention(n *Node) error {
	if err := checkType(n, 0, isFloatType, "a floating-point type"); err != nil {
		return err
	}
	for _, i := range []int{1, 2, 5} {
		if n.Input(i) != nil {
			if err := checkSameType(n, 0, i); err != nil {
				return err
			}
		}
	}
	d, err := AttentionShape(n)
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, Shape{{Value: int64(d.Batch)}, {Value: int64(d.Seq)}, {Value: int64(d.Hidden)}})
	return nil
}
