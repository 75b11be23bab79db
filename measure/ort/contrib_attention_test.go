package ort_test

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// attentionAttrs are the attributes of an attention node.
func attentionAttrs(heads int, unidirectional bool, filter float32) graph.Attrs {
	a := graph.Attrs{"num_heads": graph.IntAttr(int64(heads))}
	if unidirectional {
		a["unidirectional"] = graph.IntAttr(1)
	}
	if filter != 0 {
		a["mask_filter_value"] = graph.FloatAttr(filter)
	}
	return a
}

// TestAttentionMaskKernelMatchesORT checks Attention's mask_index in each
// layout ONNX Runtime reads on CPU, unidirectional (causal) masking alone
// and with a mask, and a mask_filter_value small enough that masked keys
// keep some weight (so the way masks combine is compared, not only that
// masked keys vanish). Batch row 1 of the 0/1 masks excludes every key;
// such masks are given with a small filter only, since s - 10000 in
// float32 keeps too few bits of the score s for the comparison. Every case
// has a bias: ONNX Runtime's CPU kernel crashes without one.
func TestAttentionMaskKernelMatchesORT(t *testing.T) {
	v := newValues(6)
	const b, s, din, hidden, heads = 2, 4, 8, 12, 3
	keys := v.ints("mask", []int32{1, 1, 0, 1, 0, 1, 1, 0}, b, s)
	noKeys := v.ints("mask", []int32{1, 1, 0, 1, 0, 0, 0, 0}, b, s)
	queryKeys := v.ints("mask", []int32{
		1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1,
		0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1}, b, s, s)
	tests := []struct {
		name   string
		mask   *graph.Value
		causal bool
		filter float32
	}{
		{name: "key lengths [batch]", mask: v.ints("mask", []int32{3, 1}, b)},
		{name: "key lengths [batch], none, filter -3", mask: v.ints("mask", []int32{3, 0}, b), filter: -3},
		{name: "end and start [2*batch]", mask: v.ints("mask", []int32{4, 3, 1, 2}, 2*b)},
		{name: "0/1 keys [batch, seq]", mask: keys},
		{name: "0/1 keys, none in row 1, filter -3", mask: noKeys, filter: -3},
		{name: "0/1 [batch, seq, seq], filter -2", mask: queryKeys, filter: -2},
		{name: "unidirectional", causal: true},
		{name: "unidirectional, filter -1.5", causal: true, filter: -1.5},
		{name: "unidirectional and 0/1 keys", mask: keys, causal: true},
		{name: "unidirectional and 0/1 keys, filter -3", mask: noKeys, causal: true, filter: -3},
		{name: "unidirectional and [batch, seq, seq], filter -2", mask: queryKeys, causal: true, filter: -2},
		{name: "unidirectional and key lengths", mask: v.ints("mask", []int32{2, 4}, b), causal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ins := []*graph.Value{v.input("x", b, s, din), v.rand("w", din, 3*hidden), v.rand("b", 3*hidden), tt.mask}
			m := oneNodeModel(t, "Attention", ms, attentionAttrs(heads, tt.causal, tt.filter), ins, true)
			matchesORT(t, m, 1e-4)
		})
	}
}

// TestMultiHeadAttentionKernelMatchesORT checks MultiHeadAttention on
// separate query, key and value, with and without bias, self- and cross-
// attention, value heads of another size, key_padding_mask layouts,
// attention_bias, scale and unidirectional masking.
func TestMultiHeadAttentionKernelMatchesORT(t *testing.T) {
	v := newValues(7)
	const b = 2
	tests := []struct {
		name           string
		s, l, d, dv, h int
		bias           bool
		mask, attnBias *graph.Value
		causal         bool
		scale, filter  float32
	}{
		{name: "self-attention, no bias", s: 5, l: 5, d: 8, dv: 8, h: 2},
		{name: "with bias and scale", s: 5, l: 5, d: 8, dv: 8, h: 2, bias: true, scale: 0.3},
		{name: "cross-attention, other value width", s: 3, l: 6, d: 12, dv: 6, h: 3, bias: true},
		{name: "key lengths [batch]", s: 4, l: 6, d: 8, dv: 8, h: 4, bias: true, mask: v.ints("kpm", []int32{6, 2}, b)},
		{name: "0/1 keys [batch, kv_seq], filter -3", s: 3, l: 4, d: 8, dv: 8, h: 2, filter: -3,
			mask: v.ints("kpm", []int32{1, 0, 1, 1, 0, 0, 0, 0}, b, 4)},
		{name: "0/1 [batch, seq, kv_seq]", s: 2, l: 3, d: 4, dv: 4, h: 1,
			mask: v.ints("kpm", []int32{1, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1}, b, 2, 3)},
		{name: "attention_bias per head", s: 4, l: 4, d: 8, dv: 8, h: 2, bias: true, attnBias: v.rand("ab", 1, 2, 4, 4)},
		{name: "attention_bias per batch with mask", s: 4, l: 5, d: 8, dv: 8, h: 2, attnBias: v.rand("ab", b, 1, 4, 5),
			mask: v.ints("kpm", []int32{1, 1, 1, 0, 1, 1, 1, 1, 1, 0}, b, 5)},
		{name: "unidirectional", s: 5, l: 5, d: 8, dv: 8, h: 2, bias: true, causal: true},
		{name: "unidirectional with mask, filter -2", s: 4, l: 4, d: 8, dv: 8, h: 2, causal: true, filter: -2,
			mask: v.ints("kpm", []int32{1, 1, 0, 1, 0, 0, 0, 0}, b, 4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ins := []*graph.Value{v.input("q", b, tt.s, tt.d), v.input("k", b, tt.l, tt.d), v.input("v", b, tt.l, tt.dv), nil, tt.mask, tt.attnBias}
			if tt.bias {
				ins[3] = v.rand("bias", 2*tt.d+tt.dv)
			}
			attrs := attentionAttrs(tt.h, tt.causal, tt.filter)
			if tt.scale != 0 {
				attrs["scale"] = graph.FloatAttr(tt.scale)
			}
			matchesORT(t, oneNodeModel(t, "MultiHeadAttention", ms, attrs, ins, true), 1e-4)
		})
	}
}
