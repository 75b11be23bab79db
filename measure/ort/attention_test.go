package ort_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	_ "github.com/xrl-dev/xrl/measure/goexec" // registers the "go" backend
	_ "github.com/xrl-dev/xrl/measure/ort"
	"github.com/xrl-dev/xrl/verify"
)

// attentionModel is one com.microsoft Attention node over an input
// [batch, seq, din] with constant weights, bias and attention_bias of
// the given shape (nil: none); causal puts -inf above the diagonal.
func attentionModel(t *testing.T, batch, seq, din, hidden, heads int, scale float32, biasShape []int, causal bool) *graph.Model {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(seq), uint64(heads)))
	randT := func(shape ...int) *graph.Tensor {
		d := make([]float32, graph.NumElements(shape))
		for i := range d {
			d[i] = float32(r.NormFloat64())
		}
		return graph.FromFloat32(d, shape...)
	}
	cst := func(name string, t *graph.Tensor) *graph.Value {
		v := &graph.Value{Name: name, Const: t}
		v.SetStatic(t.DType, t.Shape)
		return v
	}
	x := &graph.Value{Name: "x"}
	x.SetStatic(graph.Float32, []int{batch, seq, din})
	ins := []*graph.Value{x, cst("w", randT(din, 3*hidden)), cst("b", randT(3*hidden)), nil, nil, nil}
	if biasShape != nil {
		ab := randT(biasShape...)
		d := ab.Float32s()
		for i := range d {
			if q, k := (i/seq)%seq, i%seq; causal && k > q {
				d[i] = float32(math.Inf(-1))
			}
		}
		ins[5] = cst("mask", ab)
	} else {
		ins = ins[:3]
	}
	y := &graph.Value{Name: "y"}
	n := &graph.Node{Name: "attention", Op: "Attention", Domain: graph.MicrosoftDomain, Inputs: ins, Outputs: []*graph.Value{y},
		Attrs: graph.Attrs{"num_heads": graph.IntAttr(int64(heads)), "scale": graph.FloatAttr(scale)}}
	if err := graph.InferNode(n); err != nil {
		t.Fatal(err)
	}
	g := &graph.Graph{Name: "attention", Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{n}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return &graph.Model{Graph: g, Opsets: []graph.OpsetID{{Domain: "", Version: 17}}}
}

// TestAttentionKernelMatchesORT checks the Go executor's com.microsoft
// Attention against ONNX Runtime's own kernel.
func TestAttentionKernelMatchesORT(t *testing.T) {
	goBE, ortBE := goAndORT(t)
	tests := []struct {
		name                           string
		batch, seq, din, hidden, heads int
		scale                          float32
		bias                           []int
		causal                         bool
	}{
		{name: "causal mask as attention_bias", batch: 1, seq: 7, din: 12, hidden: 12, heads: 3, scale: 0.5, bias: []int{1, 1, 7, 7}, causal: true},
		{name: "no attention_bias, default scale", batch: 2, seq: 5, din: 8, hidden: 16, heads: 4},
		{name: "bias per batch and head", batch: 2, seq: 4, din: 6, hidden: 8, heads: 2, scale: 0.25, bias: []int{2, 2, 4, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := attentionModel(t, tt.batch, tt.seq, tt.din, tt.hidden, tt.heads, tt.scale, tt.bias, tt.causal)
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
