package graph

import "fmt"

// contribGroupQueryOps holds ONNX Runtime's GroupQueryAttention in the
// form of a whole prompt without a key/value cache, the form xrl's
// fusion writes for LLaMA-style decoders.
var contribGroupQueryOps = []OpSchema{
	{
		Op: "GroupQueryAttention", Domain: MicrosoftDomain, MinOpset: 9, Work: workGroupQuery, Infer: inferGroupQuery,
		Inputs: []InputSpec{req("query"), opt("key"), opt("value"), opt("past_key"), opt("past_value"),
			req("seqlens_k"), req("total_sequence_length"), opt("cos_cache"), opt("sin_cache"), opt("position_ids"),
			opt("attention_bias")},
		Outputs: []InputSpec{req("output"), opt("present_key"), opt("present_value")},
		Attrs: []AttrSpec{
			{Name: "num_heads", Kind: AttrInt, Required: true}, {Name: "kv_num_heads", Kind: AttrInt, Required: true},
			floatAttr("scale", 0), intAttr("causal", 1), intAttr("do_rotary", 0), intAttr("rotary_interleaved", 0),
			intAttr("local_window_size", -1), floatAttr("softcap", 0), intAttr("smooth_softmax", 0),
		},
		Doc: "Grouped-query attention over a whole prompt, causal unless causal is 0: query [batch, seq, num_heads*h] and key and value " +
			"[batch, seq, kv_num_heads*h], h a multiple of 8 (of 16 with rotary) (or one packed query [batch, seq, (num_heads+2*kv_num_heads)*h] without key " +
			"and value); with do_rotary, query and key rotated as rotate-half rotary embeddings at positions 0..seq-1 " +
			"from cos_cache and sin_cache [max positions, h/2]; query head i attends the key/value head " +
			"i/(num_heads/kv_num_heads), per head softmax(scale * Q K^T + attention_bias) V over the keys (when causal, those at or " +
			"before the query; attention_bias [batch or 1, num_heads or 1, seq, seq], optional) (scale 0 means 1/sqrt(h)); optionally present_key (rotated) and present_value [batch, kv_num_heads, seq, h]. " +
			"seqlens_k (int32 [batch]) must hold seq-1 and total_sequence_length (int32, one element) seq; " +
			"no past state, position_ids, interleaved rotary, local window, softcap or smooth softmax.",
	},
}

// GroupQueryDims are the sizes of a com.microsoft GroupQueryAttention
// node: batch, sequence, query heads, key/value heads, head size, rotary
// cache rows (0 without rotary), and whether query holds all three.
type GroupQueryDims struct {
	Batch, Seq, Heads, KVHeads, HeadSize, CacheRows int
	Packed                                          bool
}

// FLOPs returns the floating-point operations of the per-head products
// Q K^T and P V (causality not discounted, as the kernels compute them).
func (d GroupQueryDims) FLOPs() int64 {
	return 4 * int64(d.Batch) * int64(d.Heads) * int64(d.Seq) * int64(d.Seq) * int64(d.HeadSize)
}

// GroupQueryShape checks a GroupQueryAttention node's inputs and
// attributes against the supported form and returns its sizes.
func GroupQueryShape(n *Node) (GroupQueryDims, error) {
	var d GroupQueryDims
	q, k, v := n.Input(0), n.Input(1), n.Input(2)
	if q == nil || len(q.Shape) != 3 {
		return d, fmt.Errorf("GroupQueryAttention query must be 3-D [batch, seq, hidden]")
	}
	if (k == nil) != (v == nil) {
		return d, fmt.Errorf("GroupQueryAttention needs both key and value, or neither (packed query)")
	}
	d.Batch, d.Seq = int(q.Shape[0].Value), int(q.Shape[1].Value)
	d.Heads, d.KVHeads = int(n.AttrInt("num_heads")), int(n.AttrInt("kv_num_heads"))
	if d.Heads <= 0 || d.KVHeads <= 0 || d.Heads%d.KVHeads != 0 {
		return d, fmt.Errorf("GroupQueryAttention num_heads %d must be a positive multiple of kv_num_heads %d", d.Heads, d.KVHeads)
	}
	width := int(q.Shape[2].Value)
	d.Packed = k == nil
	heads := d.Heads
	if d.Packed {
		heads += 2 * d.KVHeads
	}
	if width%heads != 0 {
		return d, fmt.Errorf("GroupQueryAttention query width %d does not split into %d heads", width, heads)
	}
	d.HeadSize = width / heads
	if d.HeadSize%8 != 0 {
		return d, fmt.Errorf("GroupQueryAttention head size %d is not a multiple of 8 (ONNX Runtime's CPU kernel needs one)", d.HeadSize)
	}
	if !d.Packed {
		want := Shape{q.Shape[0], q.Shape[1], Dim{Value: int64(d.KVHeads * d.HeadSize)}}
		for _, x := range []*Value{k, v} {
			if len(x.Shape) != 3 || x.Shape[0].Value != want[0].Value || x.Shape[1].Value != want[1].Value || x.Shape[2].Value != want[2].Value {
				return d, fmt.Errorf("GroupQueryAttention key and value must be %v, have %v and %v", want, k.Shape, v.Shape)
			}
		}
	}
	if n.Input(3) != nil || n.Input(4) != nil {
		return d, fmt.Errorf("GroupQueryAttention with past state is not supported")
	}
	if sk := n.Input(5); sk.DType != Int32 || len(sk.Shape) != 1 || int(sk.Shape[0].Value) != d.Batch {
		return d, fmt.Errorf("GroupQueryAttention seqlens_k must be int32 [%d], is %v %v", d.Batch, sk.DType, sk.Shape)
	}
	if ts := n.Input(6); ts.DType != Int32 || NumElements(ts.Shape.Ints()) != 1 {
		return d, fmt.Errorf("GroupQueryAttention total_sequence_length must be one int32, is %v %v", ts.DType, ts.Shape)
	}
	if err := groupQueryRotary(n, &d); err != nil {
		return d, err
	}
	if n.Input(9) != nil {
		return d, fmt.Errorf("GroupQueryAttention with position_ids is not supported")
	}
	if err := checkAttentionMasks(n, -1, 10, d.Batch, d.Heads, d.Seq, d.Seq); err != nil {
		return d, err
	}
	if n.AttrInt("local_window_size") != -1 || n.AttrFloat("softcap") != 0 || n.AttrInt("smooth_softmax") != 0 {
		return d, fmt.Errorf("GroupQueryAttention with a local window, softcap or smooth softmax is not supported")
	}
	return d, nil
}

// groupQueryRotary checks the rotary caches: present exactly when
// do_rotary is set, [rows, head size/2] each, rows covering the sequence.
func groupQueryRotary(n *Node, d *GroupQueryDims) error {
	cos, sin := n.Input(7), n.Input(8)
	if n.AttrInt("do_rotary") == 0 {
		if cos != nil || sin != nil {
			return fmt.Errorf("GroupQueryAttention cos_cache and sin_cache without do_rotary")
		}
		return nil
	}
	if n.AttrInt("rotary_interleaved") != 0 {
		return fmt.Errorf("GroupQueryAttention with interleaved rotary is not supported")
	}
	if d.HeadSize%16 != 0 {
		return fmt.Errorf("GroupQueryAttention rotary needs a head size that is a multiple of 16 (ONNX Runtime's CPU kernel), not %d", d.HeadSize)
	}
	if cos == nil || sin == nil || len(cos.Shape) != 2 || !cos.Shape.Equal(sin.Shape) ||
		int(cos.Shape[1].Value) != d.HeadSize/2 {
		return fmt.Errorf("GroupQueryAttention rotary caches must both be [rows, %d]", d.HeadSize/2)
	}
	d.CacheRows = int(cos.Shape[0].Value)
	if d.CacheRows < d.Seq {
		return fmt.Errorf("GroupQueryAttention rotary caches hold %d positions, the sequence has %d", d.CacheRows, d.Seq)
	}
	return nil
}

func inferGroupQuery(n *Node) error {
	if err := checkFloatOperands(n, 1, 2, 7, 8, 10); err != nil {
		return err
	}
	d, err := GroupQueryShape(n)
	if err != nil {
		return err
	}
	q := n.Inputs[0]
	setOut(n, 0, q.DType, Shape{q.Shape[0], q.Shape[1], Dim{Value: int64(d.Heads * d.HeadSize)}})
	present := Shape{q.Shape[0], Dim{Value: int64(d.KVHeads)}, q.Shape[1], Dim{Value: int64(d.HeadSize)}}
	setOut(n, 1, q.DType, present)
	setOut(n, 2, q.DType, present.Clone())
	return nil
}

// workGroupQuery counts both per-head products (GroupQueryDims.FLOPs),
// or one per output element when the node is not in the supported form.
func workGroupQuery(n *Node, out int64) (int64, bool) {
	d, err := GroupQueryShape(n)
	if err != nil {
		return out, false
	}
	return d.FLOPs(), true
}

// symGroupQuery labels GroupQueryAttention's outputs: batch and sequence
// are the query's.
func symGroupQuery(n *Node) {
	q := n.Inputs[0]
	if n.Domain != MicrosoftDomain || len(q.Shape) != 3 {
		return
	}
	for i, o := range n.Outputs {
		switch {
		case o == nil:
		case i == 0 && len(o.Shape) == 3:
			labelShape(o, []Dim{q.Shape[0], q.Shape[1], o.Shape[2]})
		case len(o.Shape) == 4:
			labelShape(o, []Dim{q.Shape[0], o.Shape[1], q.Shape[1], o.Shape[3]})
		}
	}
}
