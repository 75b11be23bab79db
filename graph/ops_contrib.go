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
			"per head softmax(scale * Q K^T + attention_bias + mask) V, heads concatenated (scale 0 means 1/sqrt(head size)); " +
			"mask is mask_filter_value where int32 mask_index excludes a key (MaskIndexForm) and, when unidirectional, " +
			"float32's lowest value where a key follows the query; no past state.",
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
	if n.Input(4) != nil {
		return d, fmt.Errorf("Attention with past state is not supported")
	}
	return d, checkAttentionMasks(n, 3, 5, d.Batch, d.Heads, d.Seq, d.Seq)
}

// checkAttentionMasks checks the int32 mask (input mask, MaskIndexForm)
// and the additive attention_bias (input bias, [1 or batch, 1 or heads,
// seq, total]) of an attention node, when present.
func checkAttentionMasks(n *Node, mask, bias, batch, heads, seq, total int) error {
	if _, err := MaskIndexForm(n, mask, batch, seq, total, n.Op == "Attention"); err != nil {
		return err
	}
	ab := n.Input(bias)
	if ab == nil {
		return nil
	}
	s := ab.Shape
	if len(s) != 4 || (s[0].Value != 1 && int(s[0].Value) != batch) || (s[1].Value != 1 && int(s[1].Value) != heads) ||
		int(s[2].Value) != seq || int(s[3].Value) != total {
		return fmt.Errorf("%s attention_bias %v, want [1 or %d, 1 or %d, %d, %d]", n.Op, s, batch, heads, seq, total)
	}
	return nil
}

// MaskForm is the layout of an attention node's int32 mask input, as ONNX
// Runtime reads it.
type MaskForm int

// The mask layouts.
const (
	// MaskNone: no mask input.
	MaskNone MaskForm = iota
	// MaskEnd is [batch]: keys at and after position mask[b] are excluded.
	MaskEnd
	// MaskEndStart is [2*batch]: as MaskEnd, and keys before position
	// mask[batch+b] are excluded too.
	MaskEndStart
	// MaskKeys is [batch, total]: key t is excluded where mask[b, t] <= 0.
	MaskKeys
	// MaskQueryKeys is [batch, seq, total]: query s does not see key t
	// where mask[b, s, t] <= 0.
	MaskQueryKeys
)

// MaskIndexForm returns the layout of input i of attention node n, an
// int32 mask over batch queries of seq and keys of total; endStart allows
// the [2*batch] form (Attention's mask_index, not MultiHeadAttention's
// key_padding_mask).
func MaskIndexForm(n *Node, i, batch, seq, total int, endStart bool) (MaskForm, error) {
	m := n.Input(i)
	if m == nil {
		return MaskNone, nil
	}
	if m.DType != Int32 {
		return MaskNone, fmt.Errorf("%s %s has dtype %v, want int32", n.Op, inputName(n, i), m.DType)
	}
	s := dimsOf(m.Shape)
	switch {
	case len(s) == 1 && s[0] == batch:
		return MaskEnd, nil
	case len(s) == 1 && s[0] == 2*batch && endStart:
		return MaskEndStart, nil
	case len(s) == 2 && s[0] == batch && s[1] == total:
		return MaskKeys, nil
	case len(s) == 3 && s[0] == batch && s[1] == seq && s[2] == total:
		return MaskQueryKeys, nil
	}
	return MaskNone, fmt.Errorf("%s %s %v, want [%d], [%d, %d] or [%d, %d, %d]", n.Op, inputName(n, i), m.Shape,
		batch, batch, total, batch, seq, total)
}

func inferAttention(n *Node) error {
	if err := checkFloatOperands(n, 1, 2, 5); err != nil {
		return err
	}
	d, err := AttentionShape(n)
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, Shape{{Value: int64(d.Batch)}, {Value: int64(d.Seq)}, {Value: int64(d.Hidden)}})
	return nil
}
