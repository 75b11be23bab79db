package ort_test

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// TestSkipNormKernelsMatchORT checks SkipLayerNormalization and
// SkipSimplifiedLayerNormalization with and without beta and bias, skip
// broadcast, 2-D and 3-D inputs and the input_skip_bias_sum output.
func TestSkipNormKernelsMatchORT(t *testing.T) {
	v := newValues(3)
	eps := func(e float32) graph.Attrs { return graph.Attrs{"epsilon": graph.FloatAttr(e)} }
	tests := []struct {
		name  string
		op    string
		attrs graph.Attrs
		ins   []*graph.Value
		sum   bool
	}{
		{name: "full, 3-D", op: "SkipLayerNormalization", attrs: eps(1e-12),
			ins: []*graph.Value{v.input("x", 2, 5, 16), v.input("skip", 2, 5, 16), v.rand("g", 16), v.rand("beta", 16), v.rand("bias", 16)}},
		{name: "no beta or bias, default epsilon, sum output", op: "SkipLayerNormalization", sum: true,
			ins: []*graph.Value{v.input("x", 2, 5, 16), v.input("skip", 2, 5, 16), v.rand("g", 16)}},
		{name: "2-D, bias only, epsilon 1e-5", op: "SkipLayerNormalization", attrs: eps(1e-5), sum: true,
			ins: []*graph.Value{v.input("x", 7, 12), v.input("skip", 7, 12), v.rand("g", 12), nil, v.rand("bias", 12)}},
		{name: "skip [1, seq, hidden]", op: "SkipLayerNormalization",
			ins: []*graph.Value{v.input("x", 3, 4, 8), v.input("skip", 1, 4, 8), v.rand("g", 8), v.rand("beta", 8)}},
		{name: "skip [seq, hidden]", op: "SkipLayerNormalization",
			ins: []*graph.Value{v.input("x", 3, 4, 8), v.input("skip", 4, 8), v.rand("g", 8), v.rand("beta", 8)}},
		{name: "simplified, 3-D", op: "SkipSimplifiedLayerNormalization", attrs: eps(1e-6),
			ins: []*graph.Value{v.input("x", 2, 5, 16), v.input("skip", 2, 5, 16), v.rand("g", 16)}},
		{name: "simplified with bias, sum output", op: "SkipSimplifiedLayerNormalization", sum: true,
			ins: []*graph.Value{v.input("x", 2, 5, 16), v.input("skip", 2, 5, 16), v.rand("g", 16), v.rand("bias", 16)}},
		{name: "simplified, 2-D", op: "SkipSimplifiedLayerNormalization", attrs: eps(1e-5),
			ins: []*graph.Value{v.input("x", 6, 8), v.input("skip", 6, 8), v.rand("g", 8)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			matchesORT(t, oneNodeModel(t, tt.op, ms, tt.attrs, tt.ins, true, false, false, tt.sum), 1e-4)
		})
	}
}

// TestSimplifiedLayerNormKernelMatchesORT checks ONNX Runtime's RMS
// normalisation over one and over several trailing axes.
func TestSimplifiedLayerNormKernelMatchesORT(t *testing.T) {
	v := newValues(4)
	tests := []struct {
		name  string
		attrs graph.Attrs
		x, s  *graph.Value
	}{
		{name: "last axis", x: v.input("x", 2, 5, 16), s: v.rand("s", 16), attrs: graph.Attrs{}},
		{name: "2-D, epsilon 1e-6", x: v.input("x", 7, 12), s: v.rand("s", 12), attrs: graph.Attrs{"epsilon": graph.FloatAttr(1e-6)}},
		{name: "axis 1 of 3", x: v.input("x", 3, 4, 5), s: v.rand("s", 4, 5), attrs: graph.Attrs{"axis": graph.IntAttr(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			matchesORT(t, oneNodeModel(t, "SimplifiedLayerNormalization", "", tt.attrs, []*graph.Value{tt.x, tt.s}, true), 1e-4)
		})
	}
}

// TestEmbedLayerNormKernelMatchesORT checks EmbedLayerNormalization with
// and without segments, mask and position ids, and its three outputs. The
// ids are constants; the embedding tables are the random inputs.
func TestEmbedLayerNormKernelMatchesORT(t *testing.T) {
	v := newValues(5)
	const b, s, h = 2, 5, 8
	wordIDs := v.ints("ids", []int32{3, 0, 9, 4, 4, 1, 2, 8, 7, 5}, b, s)
	segIDs := v.ints("seg", []int32{0, 0, 1, 1, 1, 0, 1, 0, 0, 1}, b, s)
	mask := v.ints("mask", []int32{1, 1, 1, 0, 0, 1, 1, 1, 1, 2}, b, s)
	tests := []struct {
		name  string
		attrs graph.Attrs
		ins   []*graph.Value
	}{
		{name: "BERT: segments and mask", attrs: graph.Attrs{"epsilon": graph.FloatAttr(1e-12)},
			ins: []*graph.Value{wordIDs, segIDs, v.input("word", 10, h), v.input("pos", 6, h), v.input("segE", 2, h),
				v.rand("g", h), v.rand("beta", h), mask}},
		{name: "no segments or mask", attrs: graph.Attrs{"epsilon": graph.FloatAttr(1e-5)},
			ins: []*graph.Value{wordIDs, nil, v.input("word", 10, h), v.input("pos", s, h), nil, v.rand("g", h), v.rand("beta", h)}},
		{name: "position ids per batch", ins: []*graph.Value{wordIDs, segIDs, v.input("word", 10, h), v.input("pos", 9, h),
			v.input("segE", 2, h), v.rand("g", h), v.rand("beta", h), mask, v.ints("pid", []int32{8, 7, 6, 5, 4, 0, 2, 4, 6, 8}, b, s)}},
		{name: "position ids broadcast", ins: []*graph.Value{wordIDs, nil, v.input("word", 10, h), v.input("pos", 9, h),
			nil, v.rand("g", h), v.rand("beta", h), nil, v.ints("pid", []int32{1, 3, 5, 7, 8}, 1, s)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			matchesORT(t, oneNodeModel(t, "EmbedLayerNormalization", ms, tt.attrs, tt.ins, true, true, true), 1e-4)
		})
	}
}
