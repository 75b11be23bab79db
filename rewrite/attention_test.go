package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// loadGzBoundFolded is loadBoundFolded for a gzip-compressed model.
func loadGzBoundFolded(t *testing.T, path string, bind map[string][]int) *graph.Graph {
	t.Helper()
	m, err := onnx.Decode(graphtest.Gunzip(t, path), onnx.DecodeOptions{Source: path})
	if err != nil {
		t.Fatal(err)
	}
	return bindFolded(t, m, bind)
}

// applyPass applies pass to g, failing t on an error or when the pass
// modified g; it returns a copy of g as it was, the result and whether the
// pass changed anything.
func applyPass(t *testing.T, name string, pass func(*graph.Graph) (*graph.Graph, bool, error), g *graph.Graph) (before, out *graph.Graph, changed bool) {
	t.Helper()
	before = g.Clone()
	out, changed, err := pass(g)
	if err != nil {
		t.Fatal(err)
	}
	if g.CanonicalHash() != before.CanonicalHash() {
		t.Fatalf("%s modified its argument", name)
	}
	return before, out, changed
}

// countAttention counts the fused attention nodes of g: com.microsoft
// Attention, and GroupQueryAttention, which causal blocks become.
func countAttention(g *graph.Graph) int {
	return countOps(g, "Attention") + countOps(g, "GroupQueryAttention")
}

func countOps(g *graph.Graph, op string) int {
	c := 0
	for _, n := range g.Nodes {
		if n.Op == op {
			c++
		}
	}
	return c
}

func TestFuseAttention(t *testing.T) {
	decoder := func(batch int) func(t *testing.T) *graph.Graph {
		return func(t *testing.T) *graph.Graph {
			return loadGzBoundFolded(t, "testdata/decoder_lm_small.onnx.gz", map[string][]int{"input_ids": {batch, 8}})
		}
	}
	tests := []struct {
		name  string
		graph func(t *testing.T) *graph.Graph
		// fused: Attention nodes expected (0: the pass changes nothing).
		fused int
	}{
		{name: "exported GPT-style decoder, batch 1", graph: decoder(1), fused: 2},
		{name: "exported GPT-style decoder, batch 2 (the heads of both sequences on one axis)", graph: decoder(2), fused: 2},
		{
			name: "exported encoder classifier, batch 1",
			graph: func(t *testing.T) *graph.Graph {
				return loadBoundFolded(t, "testdata/encoder_classifier_small.onnx", map[string][]int{"input_ids": {1, 8}})
			},
			fused: 2,
		},
		{
			name: "decoder whose first attention probabilities are also an output",
			graph: func(t *testing.T) *graph.Graph {
				g := decoder(1)(t)
				for _, n := range g.Nodes {
					if n.Op == "Softmax" {
						g.Outputs = append(g.Outputs, n.Outputs[0])
						break
					}
				}
				return g
			},
			fused: 1,
		},
		{
			name: "decoder whose scores are divided by 3 (no exact float32 scale)",
			graph: func(t *testing.T) *graph.Graph {
				g := decoder(1)(t)
				for _, n := range g.Nodes {
					if c, ok := scalarConst(n.Input(1)); n.Op == "Div" && ok && c == 4 {
						v := *n.Input(1)
						v.Const = graph.FromFloat32([]float32{3})
						n.Inputs[1] = &v
					}
				}
				return g
			},
			fused: 0,
		},
		{
			name: "encoder classifier with dead rows pruned first (the last layer keeps one query row)",
			graph: func(t *testing.T) *graph.Graph {
				g := loadBoundFolded(t, "testdata/encoder_classifier_small.onnx", map[string][]int{"input_ids": {1, 8}})
				p, changed, err := PruneDead(g)
				if err != nil || !changed {
					t.Fatalf("PruneDead: changed %v, %v", changed, err)
				}
				p, _, err = Fold(p, executor.Evaluate)
				if err != nil {
					t.Fatal(err)
				}
				return p
			},
			fused: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.graph(t)
			softmax := countOps(g, "Softmax")
			before, out, changed := applyPass(t, "FuseAttention", FuseAttention, g)
			if changed != (tt.fused > 0) {
				t.Fatalf("changed = %v, want %v", changed, tt.fused > 0)
			}
			if got := countAttention(out); got != tt.fused {
				t.Fatalf("%d Attention nodes, want %d", got, tt.fused)
			}
			if got := countOps(out, "Softmax"); got != softmax-tt.fused {
				t.Errorf("%d Softmax nodes left, want %d", got, softmax-tt.fused)
			}
			if !changed {
				return
			}
			for _, n := range out.Nodes {
				if (n.Op == "Attention" || n.Op == "GroupQueryAttention") && n.Domain != graph.MicrosoftDomain {
					t.Errorf("%v: domain %q", n, n.Domain)
				}
			}
			if _, err := ruleverify.SameFunction(before, out, 2, 1, 1e-9); err != nil {
				t.Fatalf("fused graph differs: %v", err)
			}
			// The fused node counts its products: FLOPs drop only by the
			// softmax and scaling work it absorbs.
			if f0, f1 := graph.FLOPs(before), graph.FLOPs(out); f1 > f0 || float64(f1) < 0.9*float64(f0) {
				t.Errorf("FLOPs %d -> %d after fusing, want within 10%% below", f0, f1)
			}
		})
	}
}
