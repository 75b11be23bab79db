package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

func TestRows2D(t *testing.T) {
	decoder := func(batch int) func(t *testing.T) *graph.Graph {
		return func(t *testing.T) *graph.Graph {
			return loadGzBoundFolded(t, "testdata/decoder_lm_small.onnx.gz", map[string][]int{"input_ids": {batch, 8}})
		}
	}
	encoder := func(t *testing.T) *graph.Graph {
		return loadBoundFolded(t, "testdata/encoder_classifier_small.onnx", map[string][]int{"input_ids": {1, 8}})
	}
	tests := []struct {
		name  string
		graph func(t *testing.T) *graph.Graph
		// then applies another pass to the result (nil: none) and wants
		// this many Attention nodes.
		then      func(*graph.Graph) (*graph.Graph, bool, error)
		attention int
		changed   bool
	}{
		{name: "exported GPT-style decoder, batch 1", graph: decoder(1), changed: true},
		{name: "exported GPT-style decoder, batch 2", graph: decoder(2), changed: false},
		{name: "exported encoder classifier, batch 1", graph: encoder, changed: true},
		{name: "decoder, then fuse-attention", graph: decoder(1), changed: true, then: FuseAttention, attention: 2},
		{
			name: "decoder after fuse-attention",
			graph: func(t *testing.T) *graph.Graph {
				g, ok, err := FuseAttention(decoder(1)(t))
				if err != nil || !ok {
					t.Fatalf("FuseAttention: %v %v", ok, err)
				}
				return g
			},
			changed: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.graph(t)
			before, out, changed := applyPass(t, "Rows2D", Rows2D, g)
			if changed != tt.changed {
				t.Fatalf("changed = %v, want %v", changed, tt.changed)
			}
			if !changed {
				return
			}
			if got, was := countOps(out, "Transpose"), countOps(before, "Transpose"); got >= was {
				t.Errorf("%d Transposes, was %d: the unit-axis ones should be gone", got, was)
			}
			for _, n := range out.Nodes {
				if n.Op == "LayerNormalization" || n.Op == "ReduceMean" {
					if s := shape(n.Outputs[0]); len(s) != 2 {
						t.Errorf("%v: output %v, want 2-D", n, s)
					}
				}
			}
			if tt.then != nil {
				next, ok, err := tt.then(out)
				if err != nil || !ok {
					t.Fatalf("second pass: changed %v, %v", ok, err)
				}
				out = next
				if got := countAttention(out); got != tt.attention {
					t.Errorf("%d Attention nodes, want %d", got, tt.attention)
				}
			}
			if _, err := ruleverify.SameFunction(before, out, 2, 1, 1e-9); err != nil {
				t.Fatalf("2-D graph differs: %v", err)
			}
		})
	}
}

// TestFuseAttention2D checks the shipped pass: attention fused and the
// residual stream 2-D in one candidate that computes what the export did.
func TestFuseAttention2D(t *testing.T) {
	g := loadGzBoundFolded(t, "testdata/decoder_lm_small.onnx.gz", map[string][]int{"input_ids": {1, 8}})
	out, changed, err := FuseAttention2D(g)
	if err != nil || !changed {
		t.Fatalf("changed %v, %v", changed, err)
	}
	if got := countAttention(out); got != 2 {
		t.Errorf("%d Attention nodes, want 2", got)
	}
	for _, n := range out.Nodes {
		if n.Op == "ReduceMean" && len(shape(n.Outputs[0])) != 2 {
			t.Errorf("%v: output %v, want 2-D", n, shape(n.Outputs[0]))
		}
	}
	if _, err := ruleverify.SameFunction(g, out, 2, 1, 1e-9); err != nil {
		t.Fatal(err)
	}
}
