package ort_test

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

const ms = graph.MicrosoftDomain

// TestGeluKernelsMatchORT checks BiasGelu and FastGelu.
func TestGeluKernelsMatchORT(t *testing.T) {
	v := newValues(1)
	tests := []struct {
		name string
		op   string
		ins  []*graph.Value
	}{
		{name: "BiasGelu 3-D", op: "BiasGelu", ins: []*graph.Value{v.input("x", 2, 3, 8), v.rand("b", 8)}},
		{name: "BiasGelu 2-D", op: "BiasGelu", ins: []*graph.Value{v.input("x", 5, 16), v.rand("b", 16)}},
		{name: "FastGelu with bias", op: "FastGelu", ins: []*graph.Value{v.input("x", 2, 4, 8), v.rand("b", 8)}},
		{name: "FastGelu without bias", op: "FastGelu", ins: []*graph.Value{v.input("x", 3, 10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			matchesORT(t, oneNodeModel(t, tt.op, ms, nil, tt.ins, true), 1e-4)
		})
	}
}

// TestFusedMatMulKernelMatchesORT checks FusedMatMul's scale, transposes
// and batch broadcasting.
func TestFusedMatMulKernelMatchesORT(t *testing.T) {
	v := newValues(2)
	tests := []struct {
		name  string
		a, b  *graph.Value
		attrs graph.Attrs
	}{
		{name: "2-D plain", a: v.input("a", 4, 6), b: v.rand("b", 6, 5), attrs: graph.Attrs{}},
		{name: "alpha and transB", a: v.input("a", 2, 4, 6), b: v.rand("b", 5, 6),
			attrs: graph.Attrs{"alpha": graph.FloatAttr(0.125), "transB": graph.IntAttr(1)}},
		{name: "transA and batch broadcast", a: v.input("a", 3, 1, 6, 4), b: v.rand("b", 2, 6, 5),
			attrs: graph.Attrs{"transA": graph.IntAttr(1), "alpha": graph.FloatAttr(-2)}},
		{name: "both transposed, 4-D by 4-D", a: v.input("a", 2, 3, 6, 4), b: v.input("b", 2, 3, 5, 6),
			attrs: graph.Attrs{"transA": graph.IntAttr(1), "transB": graph.IntAttr(1), "alpha": graph.FloatAttr(0.5)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			matchesORT(t, oneNodeModel(t, "FusedMatMul", ms, tt.attrs, []*graph.Value{tt.a, tt.b}, true), 1e-4)
		})
	}
}
