package graph

import "fmt"

// contribAttentionOps holds ONNX Runtime's MultiHeadAttention, the
// attention of separate query, key and value projections.
var contribAttentionOps = []OpSchema{
	{
		Op: "MultiHeadAttention", Domain: MicrosoftDomain, MinOpset: 9, Work: workMultiHeadAttention, Infer: inferMultiHeadAttention,
		Inputs: []InputSpec{req("query"), req("key"), req("value"), opt("bias"), opt("key_padding_mask"), opt("attention_bias"),
			opt("past_key"), opt("past_value")},
		Outputs: []InputSpec{req("output"), opt("present_key"), opt("present_value")},
		Attrs: []AttrSpec{
			{Name: "num_heads", Kind: AttrInt, Required: true},
			floatAttr("scale", 0), floatAttr("mask_filter_value", -10000), intAttr("unidirectional", 0),
		},
		Doc: "Multi-head attention of query [batch, seq, hidden] over key [batch, kv_seq, hidden] and value [batch, kv_seq, v_hidden], " +
			"each plus its part of bias [2*hidden + v_hidden] and split into num_heads heads; per head " +
			"softmax(scale * Q K^T + attention_bias + mask) V, heads concatenated (scale 0 means 1/sqrt(head size)); mask is " +
			"mask_filter_value where int32 key_padding_mask excludes a key and, when unidirectional, float32's lowest value where " +
			"a key follows the query; " +
			"no packed or 4-D inputs, no past or present state.",
	},
}

// MultiHeadAttentionDims are the sizes of a com.microsoft
// MultiHeadAttention node: batch, query and key sequences, hidden sizes of
// Q and K and of V, heads.
type MultiHeadAttentionDims struct {
	Batch, Seq, KVSeq, Hidden, VHidden, Heads int
}

// FLOPs returns the floating-point operations of the per-head products
// Q K^T and P V.
func (d MultiHeadAttentionDims) FLOPs() int64 {
	return 2 * int64(d.Batch) * int64(d.Seq) * int64(d.KVSeq) * int64(d.Hidden+d.VHidden)
}

// MultiHeadAttentionShape checks a MultiHeadAttention node's inputs and
// attributes against the supported form and returns its sizes.
func MultiHeadAttentionShape(n *Node) (MultiHeadAttentionDims, error) {
	var d MultiHeadAttentionDims
	q, k, v := n.Input(0), n.Input(1), n.Input(2)
	if q == nil || k == nil || v == nil {
		return d, fmt.Errorf("MultiHeadAttention needs query, key and value (packed forms are not supported)")
	}
	if len(q.Shape) != 3 || len(k.Shape) != 3 || len(v.Shape) != 3 {
		return d, fmt.Errorf("MultiHeadAttention query, key and value must be 3-D, have %v, %v and %v", q.Shape, k.Shape, v.Shape)
	}
	d.Batch, d.Seq, d.Hidden = int(q.Shape[0].Value), int(q.Shape[1].Value), int(q.Shape[2].Value)
	d.KVSeq, d.VHidden = int(k.Shape[1].Value), int(v.Shape[2].Value)
	if int(k.Shape[0].Value) != d.Batch || int(v.Shape[0].Value) != d.Batch || int(k.Shape[2].Value) != d.Hidden ||
		int(v.Shape[1].Value) != d.KVSeq {
		return d, fmt.Errorf("MultiHeadAttention key %v and value %v do not match query %v", k.Shape, v.Shape, q.Shape)
	}
	d.Heads = int(n.AttrInt("num_heads"))
	if d.Heads <= 0 || d.Hidden%d.Heads != 0 || d.VHidden%d.Heads != 0 {
		return d, fmt.Errorf("MultiHeadAttention num_heads %d does not divide hidden sizes %d and %d", d.Heads, d.Hidden, d.VHidden)
	}
	if b := n.Input(3); b != nil && (len(b.Shape) != 1 || int(b.Shape[0].Value) != 2*d.Hidden+d.VHidden) {
		return d, fmt.Errorf("MultiHeadAttention bias %v, want [%d]", b.Shape, 2*d.Hidden+d.VHidden)
	}
	if n.Input(6) != nil || n.Input(7) != nil || n.Output(1) != nil || n.Output(2) != nil {
		return d, fmt.Errorf("MultiHeadAttention with past or present state is not supported")
	}
	return d, checkAttentionMasks(n, 4, 5, d.Batch, d.Heads, d.Seq, d.KVSeq)
}

func inferMultiHeadAttention(n *Node) error {
	if err := checkFloatOperands(n, 1, 2, 3, 5); err != nil {
		return err
	}
	if _, err := MultiHeadAttentionShape(n); err != nil {
		return err
	}
	q, v := n.Inputs[0], n.Inputs[2]
	setOut(n, 0, q.DType, Shape{q.Shape[0], q.Shape[1], v.Shape[2]})
	return nil
}

// workMultiHeadAttention counts both per-head products
// (MultiHeadAttentionDims.FLOPs), or one per output element when the node
// is not in the supported form.
func workMultiHeadAttention(n *Node, out int64) (int64, bool) {
	d, err := MultiHeadAttentionShape(n)
	if err != nil {
		return out, false
	}
	return d.FLOPs(), true
}
