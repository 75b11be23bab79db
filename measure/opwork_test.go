package measure

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// staticVal is a float32 value of a static shape.
func staticVal(shape ...int) *graph.Value {
	v := &graph.Value{Name: "v"}
	v.SetStatic(graph.Float32, shape)
	return v
}

func TestOpWorkAttention(t *testing.T) {
	val := staticVal
	tests := []struct {
		name   string
		domain string
		class  string
		work   float64
	}{
		// 2*B*S*Din*3H + 4*B*S*S*H with B 1, S 8, Din 16, H 16.
		{name: "com.microsoft Attention", domain: graph.MicrosoftDomain, class: workFLOPs, work: 2*8*16*48 + 4*8*8*16},
		{name: "an Attention of another domain counts elements", domain: "com.example", class: workBytes, work: 1*8*16 + 16*48 + 1*8*16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &graph.Node{Op: "Attention", Domain: tt.domain, Inputs: []*graph.Value{val(1, 8, 16), val(16, 48)},
				Outputs: []*graph.Value{val(1, 8, 16)}, Attrs: graph.Attrs{"num_heads": graph.IntAttr(2)}}
			class, work := opWork(n)
			if class != tt.class || work != tt.work {
				t.Errorf("opWork = %s %g, want %s %g", class, work, tt.class, tt.work)
			}
		})
	}
}

// TestOpWorkFusedOps checks the cost model's classes for the fused
// com.microsoft operators: the contractions are priced by FLOPs, the
// normalisations and activations by the elements they move.
func TestOpWorkFusedOps(t *testing.T) {
	val := staticVal
	tests := []struct {
		name  string
		op    string
		attrs graph.Attrs
		ins   []*graph.Value
		class string
		work  float64
	}{
		// 2*B*S*L*(D+Dv) with B 2, S 4, L 6, D 8, Dv 4.
		{name: "MultiHeadAttention", op: "MultiHeadAttention", attrs: graph.Attrs{"num_heads": graph.IntAttr(2)},
			ins: []*graph.Value{val(2, 4, 8), val(2, 6, 8), val(2, 6, 4)}, class: workFLOPs, work: 2 * 2 * 4 * 6 * 12},
		// 2*M*N*K per batch element: 3 batches of 4x6 by 6x5.
		{name: "FusedMatMul", op: "FusedMatMul", attrs: graph.Attrs{"transB": graph.IntAttr(1)},
			ins: []*graph.Value{val(3, 4, 6), val(5, 6)}, class: workFLOPs, work: 2 * 3 * 4 * 5 * 6},
		{name: "SkipLayerNormalization", op: "SkipLayerNormalization",
			ins: []*graph.Value{val(2, 4, 8), val(2, 4, 8), val(8)}, class: workBytes, work: 64 + 64 + 8 + 64},
		{name: "BiasGelu", op: "BiasGelu", ins: []*graph.Value{val(4, 8), val(8)}, class: workBytes, work: 32 + 8 + 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &graph.Node{Name: "n", Op: tt.op, Domain: graph.MicrosoftDomain, Inputs: tt.ins, Attrs: tt.attrs,
				Outputs: []*graph.Value{{Name: "y"}}}
			if err := graph.InferNode(n); err != nil {
				t.Fatal(err)
			}
			class, work := opWork(n)
			if class != tt.class || work != tt.work {
				t.Errorf("opWork = %s %g, want %s %g", class, work, tt.class, tt.work)
			}
		})
	}
}
