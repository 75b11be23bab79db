package onnx_test

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// TestContribOpsDecodeAsIR writes one node of each contributed operator of
// the op-schema table, in the forms its rows implement (Attention with
// each mask form, attention_bias and unidirectional masking included),
// reads the file back and checks that the node is an IR node with its
// attributes, which the Go executor runs as it ran the node written. A
// node with past state stays opaque.
func TestContribOpsDecodeAsIR(t *testing.T) {
	const ms = graph.MicrosoftDomain
	type node struct {
		op, domain string
		attrs      graph.Attrs
		ins        []*graph.Value
		outs       int
	}
	x := func() *graph.Value { return input("x", graph.Float32, 2, 4, 8) }
	ids := func(name string, shape ...int) *graph.Value { return input(name, graph.Int32, shape...) }
	attention := func(attrs graph.Attrs, mask, past, bias *graph.Value) node {
		attrs["num_heads"] = graph.IntAttr(2)
		return node{"Attention", ms, attrs, []*graph.Value{x(), weights("w", 8, 24), weights("b", 24), mask, past, bias}, 1}
	}
	tests := []struct {
		name   string
		node   node
		opaque bool
	}{
		{name: "Attention, key mask, unidirectional",
			node: attention(graph.Attrs{"unidirectional": graph.IntAttr(1)}, ids("mask", 2, 4), nil, nil)},
		{name: "Attention, end positions and attention_bias",
			node: attention(graph.Attrs{"scale": graph.FloatAttr(0.25)}, ids("mask", 2), nil, weights("ab", 1, 1, 4, 4))},
		{name: "Attention, query-key mask and mask_filter_value",
			node: attention(graph.Attrs{"mask_filter_value": graph.FloatAttr(-1e9)}, ids("mask", 2, 4, 4), nil, nil)},
		{name: "Attention with past state", opaque: true,
			node: attention(graph.Attrs{}, nil, input("past", graph.Float32, 2, 2, 2, 3, 4), nil)},
		{name: "MultiHeadAttention, key_padding_mask", node: node{"MultiHeadAttention", ms, graph.Attrs{"num_heads": graph.IntAttr(2)},
			[]*graph.Value{x(), input("k", graph.Float32, 2, 5, 8), input("v", graph.Float32, 2, 5, 8), weights("b", 24), ids("mask", 2, 5)}, 1}},
		{name: "SkipLayerNormalization", node: node{"SkipLayerNormalization", ms, graph.Attrs{"epsilon": graph.FloatAttr(1e-5)},
			[]*graph.Value{x(), input("skip", graph.Float32, 2, 4, 8), weights("g", 8), weights("beta", 8), weights("bias", 8)}, 1}},
		{name: "SkipSimplifiedLayerNormalization", node: node{"SkipSimplifiedLayerNormalization", ms, graph.Attrs{},
			[]*graph.Value{x(), input("skip", graph.Float32, 2, 4, 8), weights("g", 8)}, 1}},
		{name: "SimplifiedLayerNormalization", node: node{"SimplifiedLayerNormalization", "", graph.Attrs{"epsilon": graph.FloatAttr(1e-6)},
			[]*graph.Value{x(), weights("g", 8)}, 1}},
		{name: "EmbedLayerNormalization", node: node{"EmbedLayerNormalization", ms, graph.Attrs{},
			[]*graph.Value{ids("ids", 2, 4), nil, weights("word", 10, 8), weights("pos", 6, 8), nil, weights("g", 8), weights("beta", 8),
				ids("mask", 2, 4)}, 2}},
		{name: "BiasGelu", node: node{"BiasGelu", ms, graph.Attrs{}, []*graph.Value{x(), weights("b", 8)}, 1}},
		{name: "FastGelu", node: node{"FastGelu", ms, graph.Attrs{}, []*graph.Value{x(), weights("b", 8)}, 1}},
		{name: "FusedMatMul", node: node{"FusedMatMul", ms, graph.Attrs{"transB": graph.IntAttr(1), "alpha": graph.FloatAttr(0.5)},
			[]*graph.Value{x(), weights("w", 6, 8)}, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &graph.Node{Name: "n", Op: tt.node.op, Domain: tt.node.domain, Attrs: tt.node.attrs, Inputs: tt.node.ins}
			for i := 0; i < tt.node.outs; i++ {
				n.Outputs = append(n.Outputs, &graph.Value{Name: "out" + string(rune('0'+i))})
			}
			if err := graph.InferNode(n); err != nil && !tt.opaque {
				t.Fatal(err)
			}
			g := &graph.Graph{Nodes: []*graph.Node{n}, Outputs: n.Outputs}
			for _, in := range n.Inputs {
				if in != nil && !in.IsConst() {
					g.Inputs = append(g.Inputs, in)
				}
			}
			if tt.opaque {
				for _, o := range n.Outputs {
					o.SetStatic(graph.Float32, []int{2, 4, 8})
				}
			}
			enc, err := onnx.Encode(&graph.Model{Graph: g})
			if err != nil {
				t.Fatal(err)
			}
			m, err := onnx.Decode(enc, onnx.DecodeOptions{Source: tt.name})
			if err != nil {
				t.Fatal(err)
			}
			d := m.Graph.Nodes[0]
			if d.IsOpaque() != tt.opaque {
				t.Fatalf("decoded node opaque = %v, want %v", d.IsOpaque(), tt.opaque)
			}
			if tt.opaque {
				return
			}
			if d.Op != n.Op || d.Domain != n.Domain || len(d.Attrs) != len(n.Attrs) {
				t.Fatalf("decoded %s (%q) with %v, want %s (%q) with %v", d.Op, d.Domain, d.Attrs, n.Op, n.Domain, n.Attrs)
			}
			for name, a := range n.Attrs {
				if d.Attrs[name].Format() != a.Format() {
					t.Errorf("attribute %s = %v, want %v", name, d.Attrs[name], a)
				}
			}
			if _, err := ruleverify.SameFunction(g, m.Graph, 2, 1, 0); err != nil {
				t.Errorf("decoded node computes another function: %v", err)
			}
		})
	}
}

// input returns a graph input of the given type and static shape.
func input(name string, dt graph.DType, shape ...int) *graph.Value {
	v := &graph.Value{Name: name}
	v.SetStatic(dt, shape)
	return v
}

// weights returns a float32 constant of the given shape holding small
// values that differ from element to element.
func weights(name string, shape ...int) *graph.Value {
	data := make([]float32, graph.NumElements(shape))
	for i := range data {
		data[i] = float32((i*7)%11-5) / 8
	}
	v := &graph.Value{Name: name, Const: graph.FromFloat32(data, shape...)}
	v.SetStatic(graph.Float32, shape)
	return v
}
