package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules"
	"github.com/xrl-dev/xrl/rules/ruleverify"
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
	// editConst replaces, in the first node of op that reads a constant
	// equal to old, that constant by one holding new.
	editConst := func(g *graph.Graph, op string, old, new float64) {
		for _, n := range g.Nodes {
			for i, v := range n.Inputs {
				if n.Op == op && isIntScalar(v, old) {
					c := *v
					c.Name, c.Const = v.Name+"_edited", v.Const.Clone()
					switch d := c.Const.Data.(type) {
					case []int64:
						d[0] = int64(new)
					case []float32:
						d[0] = float32(new)
					}
					n.Inputs[i] = &c
					return
				}
			}
		}
		t.Fatalf("no %s reads the constant %v", op, old)
	}
	// edited returns canonicalOf(export, input) with edit applied.
	edited := func(export, input string, edit func(g *graph.Graph)) func(t *testing.T) (*graph.Model, *graph.Graph) {
		return func(t *testing.T) (*graph.Model, *graph.Graph) {
			d, c := canonicalOf(export, input)(t)
			edit(c)
			return d, c
		}
	}
	tests := []struct {
		name  string
		graph func(t *testing.T) (*graph.Model, *graph.Graph)
		input string // the token input (input_ids when empty)
		fused int
		// attention is the com.microsoft Attention nodes expected (a block
		// whose mask is not causal stays one).
		attention int
	}{
		{name: "exported LLaMA-style decoder", graph: canonical, fused: 2},
		// Causal multi-head attention fused as com.microsoft Attention
		// first: a causal mask built by Where over Trilu (gpt_decoder_dyn),
		// sliced from a constant to min(512, seq) (gpt2_hf).
		{name: "GPT-style decoder", graph: canonicalOf("gpt_decoder_dyn", "ids"), input: "ids", fused: 2},
		{name: "GPT-2 style decoder", graph: canonicalOf("gpt2_hf", "input_ids"), fused: 3},
		// A -inf triu buffer sliced to [:seq, :seq], sequence-first.
		{name: "decoder written with nn.TransformerEncoder", graph: canonicalOf("decoder_torch", "input_ids"), fused: 3},
		// Masks that let a query see the key after it are not causal, at
		// any length: LLaMA's j < i+2 (one mask for both layers), a Trilu
		// from the second diagonal (the first layer's; the second's is
		// causal).
		{name: "LLaMA-style mask j < i+2", graph: edited("llama_decoder", "input_ids", func(g *graph.Graph) { editConst(g, "Add", 1, 2) })},
		{name: "GPT-style mask from Trilu k = 2", graph: edited("gpt_decoder_dyn", "ids", func(g *graph.Graph) { editConst(g, "Trilu", 1, 2) }),
			input: "ids", fused: 1, attention: 1},
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
			before, out, changed := applyPass(t, "FuseAttentionRounded", FuseAttentionRounded, g)
			if changed != (tt.fused+tt.attention > 0) {
				t.Fatalf("changed = %v, want %v", changed, tt.fused+tt.attention > 0)
			}
			if !changed {
				return
			}
			var packed int
			for _, n := range out.Nodes {
				if n.Op == "GroupQueryAttention" && n.Input(1) == nil && n.Input(2) == nil {
					packed++
				}
				if n.Op == "Softmax" || n.Op == "Neg" || n.Op == "Where" && tt.attention == 0 {
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
			if got := countOps(out, "Attention"); got != tt.attention {
				t.Errorf("%d com.microsoft Attention, want %d (every causal block as GroupQueryAttention)", got, tt.attention)
			}
			in := tt.input
			if in == "" {
				in = "input_ids"
			}
			if tt.attention > 0 {
				// An edited export: compared with the graph before the pass.
				if _, err := ruleverify.SameFunction(before, out, 2, 1, FusionFormsTolerance); err != nil {
					t.Fatal(err)
				}
				return
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
