package ort_test

import (
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/verify"
)

// groupQueryModel is one com.microsoft GroupQueryAttention node over a
// whole prompt: query, key and value inputs (or one packed query), the
// constant seqlens_k and total_sequence_length of the prompt, with
// rotary caches of cacheRows positions when cacheRows is not 0, not causal
// but with a random attention_bias of shape bias when bias is set. Its
// outputs are the attention and, when present is set, both present states
// (ONNX Runtime's CPU kernel then takes another path, its flash kernel).
func groupQueryModel(t *testing.T, batch, seq, heads, kvHeads, h, cacheRows int, packed, present bool, scale float32, bias []int) *graph.Model {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(seq), uint64(heads*10+kvHeads)))
	cst := func(name string, tn *graph.Tensor) *graph.Value {
		v := &graph.Value{Name: name, Const: tn}
		v.SetStatic(tn.DType, tn.Shape)
		return v
	}
	in := func(name string, width int) *graph.Value {
		v := &graph.Value{Name: name}
		v.SetStatic(graph.Float32, []int{batch, seq, width})
		return v
	}
	var inputs []*graph.Value
	if packed {
		inputs = []*graph.Value{in("qkv", (heads+2*kvHeads)*h), nil, nil}
	} else {
		inputs = []*graph.Value{in("q", heads*h), in("k", kvHeads*h), in("v", kvHeads*h)}
	}
	lens := make([]int32, batch)
	for i := range lens {
		lens[i] = int32(seq - 1)
	}
	ins := append(append([]*graph.Value(nil), inputs...), nil, nil,
		cst("seqlens_k", graph.FromInt32(lens, batch)), cst("total", graph.FromInt32([]int32{int32(seq)}, 1)))
	attrs := graph.Attrs{"num_heads": graph.IntAttr(int64(heads)), "kv_num_heads": graph.IntAttr(int64(kvHeads)),
		"scale": graph.FloatAttr(scale)}
	if cacheRows > 0 {
		table := func() *graph.Tensor {
			d := make([]float32, cacheRows*h/2)
			for i := range d {
				d[i] = float32(r.Float64()*2 - 1)
			}
			return graph.FromFloat32(d, cacheRows, h/2)
		}
		ins = append(ins, cst("cos", table()), cst("sin", table()))
		attrs["do_rotary"] = graph.IntAttr(1)
	}
	if bias != nil {
		// Not causal, an additive bias instead.
		d := make([]float32, graph.NumElements(bias))
		for i := range d {
			d[i] = float32(r.NormFloat64())
		}
		ins = append(ins, make([]*graph.Value, 10-len(ins))...)
		ins = append(ins, cst("bias", graph.FromFloat32(d, bias...)))
		attrs["causal"] = graph.IntAttr(0)
	}
	outs := []*graph.Value{{Name: "y"}}
	if present {
		outs = append(outs, &graph.Value{Name: "present_key"}, &graph.Value{Name: "present_value"})
	}
	n := &graph.Node{Name: "gqa", Op: "GroupQueryAttention", Domain: graph.MicrosoftDomain, Inputs: ins, Outputs: outs, Attrs: attrs}
	if err := graph.InferNode(n); err != nil {
		t.Fatal(err)
	}
	var graphIns []*graph.Value
	for _, v := range inputs {
		if v != nil {
			graphIns = append(graphIns, v)
		}
	}
	g := &graph.Graph{Name: "gqa", Inputs: graphIns, Outputs: outs, Nodes: []*graph.Node{n}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return &graph.Model{Graph: g, Opsets: []graph.OpsetID{{Domain: "", Version: 17}}}
}

// TestGroupQueryKernelMatchesORT checks the Go executor's
// com.microsoft GroupQueryAttention (output, and both present states
// where asked for) against ONNX Runtime's own kernel.
func TestGroupQueryKernelMatchesORT(t *testing.T) {
	goBE, ortBE := goAndORT(t)
	tests := []struct {
		name                                string
		batch, seq, heads, kvHeads, h, rows int
		packed, present                     bool
		scale                               float32
		bias                                []int
	}{
		{name: "rotary, two query heads per key head, batch 2", batch: 2, seq: 5, heads: 4, kvHeads: 2, h: 16, rows: 16},
		{name: "rotary, two query heads per key head, batch 2, present states", batch: 2, seq: 5, heads: 4, kvHeads: 2, h: 16, rows: 16, present: true},
		{name: "packed query, rotary, one key head", batch: 1, seq: 7, heads: 4, kvHeads: 1, h: 32, rows: 7, packed: true},
		{name: "packed query, rotary, present states", batch: 1, seq: 9, heads: 2, kvHeads: 1, h: 16, rows: 9, packed: true, present: true},
		{name: "no rotary, as many key heads as query heads, own scale", batch: 1, seq: 6, heads: 2, kvHeads: 2, h: 8, scale: 0.3},
		{name: "one position", batch: 2, seq: 1, heads: 2, kvHeads: 1, h: 16, rows: 4},
		{name: "not causal, a bias per head", batch: 1, seq: 6, heads: 2, kvHeads: 2, h: 8, bias: []int{1, 2, 6, 6}},
		{name: "not causal, packed, a bias per batch", batch: 2, seq: 5, heads: 4, kvHeads: 4, h: 8, packed: true, bias: []int{2, 1, 5, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := groupQueryModel(t, tt.batch, tt.seq, tt.heads, tt.kvHeads, tt.h, tt.rows, tt.packed, tt.present, tt.scale, tt.bias)
			res, err := verify.Pair(goBE, m, ortBE, m, verify.Options{Seeds: 2, Tolerance: 1e-4})
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK {
				t.Errorf("Go executor and ONNX Runtime disagree: %v", res)
			}
		})
	}
}
