package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules"
)

// TestFuseGroupQuery fuses the LLaMA-style export's attention (rotary,
// four query heads per key/value head, a causal mask built from the
// length) into GroupQueryAttention, with the three projections packed
// into the query, turns the causal Attention of GPT-style exports into
// GroupQueryAttention too, and checks that forms it must not fuse stay.
func TestFuseGroupQuery(t *testing.T) {
	set, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	canonicalOf := func(export, input string) func(t *testing.T) (*graph.Model, *graph.Graph) {
		return func(t *testing.T) (*graph.Model, *graph.Graph) {
			declared, g := loadSymbolic(t, "../testdata/corpus/"+export+".onnx", idsBinding(input, 1, 16))
			c, _, err := Canonicalize(g, set, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			return declared, c
		}
	}
	canonical := canonicalOf("llama_decoder", "input_ids")
	// eachConst calls edit on every float constant of g read by an op.
	eachConst := func(g *graph.Graph, op string, edit func(v *graph.Value) *graph.Value) {
		for _, n := range g.Nodes {
			for i, v := range n.Inputs {
				if n.Op == op && v != nil && v.IsConst() && v.DType == graph.Float32 {
					n.Inputs[i] = edit(v)
				}
			}
		}
	}
	tests := []struct {
		name  string
		graph func(t *testing.T) (*graph.Model, *graph.Graph)
		input string // the token input (input_ids when empty)
		fused int
	}{
		{name: "exported LLaMA-style decoder", graph: canonical, fused: 2},
		// Causal multi-head attention fused as com.microsoft Attention
		// first: a causal mask built by Where over Trilu (gpt_decoder_dyn),
		// sliced from a constant to min(512, seq) (gpt2_hf).
		{name: "GPT-style decoder", graph: canonicalOf("gpt_decoder_dyn", "ids"), input: "ids", fused: 2},
		{name: "GPT-2 style decoder", graph: canonicalOf("gpt2_hf", "input_ids"), fused: 3},
		{
			name: "projections in rows (rows-2d first)",
			graph: func(t *testing.T) (*graph.Model, *graph.Graph) {
				d, c := canonical(t)
				r, changed, err := Rows2D(c)
				if err != nil || !changed {
					t.Fatalf("Rows2D: changed %v, %v", changed, err)
				}
				return d, r
			},
			fused: 2,
		},
		{
			name: "rotary tables whose rows do not repeat their first half",
			graph: func(t *testing.T) (*graph.Model, *graph.Graph) {
				d, c := canonical(t)
				eachConst(c, "Slice", func(v *graph.Value) *graph.Value {
					w := *v
					w.Const = v.Const.Clone()
					if f := w.Const.Float32s(); len(f) > 32 {
						f[1] += 0.5
					}
					return &w
				})
				return d, c
			},
			fused: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			declared, g := tt.graph(t)
			_, out, changed := applyPass(t, "FuseAttentionRounded", FuseAttentionRounded, g)
			if changed != (tt.fused > 0) {
				t.Fatalf("changed = %v, want %v", changed, tt.fused > 0)
			}
			if !changed {
				return
			}
			var packed int
			for _, n := range out.Nodes {
				if n.Op == "GroupQueryAttention" && n.Input(1) == nil && n.Input(2) == nil {
					packed++
				}
				if n.Op == "Softmax" || n.Op == "Neg" || n.Op == "Where" {
					t.Errorf("%v left after fusing", n)
				}
			}
			if got := countOps(out, "GroupQueryAttention"); got != tt.fused || packed != tt.fused {
				t.Fatalf("%d GroupQueryAttention nodes (%d with a packed query), want %d packed", got, packed, tt.fused)
			}
			if err := out.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := SameOutputShapes(g, out); err != nil {
				t.Fatal(err)
			}
			if countOps(out, "Attention") != 0 {
				t.Errorf("%d com.microsoft Attention left, want every causal block as GroupQueryAttention", countOps(out, "Attention"))
			}
			in := tt.input
			if in == "" {
				in = "input_ids"
			}
			at := []map[string][]int{idsBinding(in, 1, 16), idsBinding(in, 3, 5), idsBinding(in, 1, 1)}
			sameAtShapesTol(t, declared, out, at, FusionFormsTolerance)
		})
	}
}

// TestCausalConst accepts a constant mask only when it keeps every key at
// or before its query and masks every later one.
func TestCausalConst(t *testing.T) {
	const lowest = -3.4028234663852886e38
	tests := []struct {
		name string
		data []float32
		want bool
	}{
		{name: "causal, float32's lowest above the diagonal", data: []float32{0, lowest, lowest, 0, 0, lowest, 0, 0, 0}, want: true},
		{name: "causal with -1e4", data: []float32{0, -1e4, -1e4, 0, 0, -1e4, 0, 0, 0}, want: true},
		{name: "a key after its query kept", data: []float32{0, 0, lowest, 0, 0, lowest, 0, 0, 0}},
		{name: "too mild above the diagonal", data: []float32{0, -100, -100, 0, 0, -100, 0, 0, 0}},
		{name: "a bias below the diagonal", data: []float32{0, lowest, lowest, 0.5, 0, lowest, 0, 0, 0}},
	}
	for _, tt := range tests {
		if got := causalConst(graph.FromFloat32(tt.data, 1, 1, 3, 3)); got != tt.want {
			t.Errorf("%s: causalConst = %v, want %v", tt.name, got, tt.want)
		}
	}
}
