package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/rules"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// TestAffineFoldsOnExports applies the affine folds ONNX Runtime does not
// make to PyTorch exports and checks that each removes a node and computes
// the same function (float64 execution; the folded weights are rounded to
// float32, hence the tolerance).
func TestAffineFoldsOnExports(t *testing.T) {
	set, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model, rule string
		bind        map[string][]int
	}{
		{"testdata/affine_mlp.onnx", "gemm-bn-fold", nil},
		{"testdata/affine_mlp.onnx", "gemm-mul-scalar-fold", nil},
		{"testdata/affine_stem.onnx", "bn-conv-bias-fold", nil},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			g := loadBoundFolded(t, tt.model, tt.bind)
			e, err := NewEngineChecked(set, Options{Rules: []string{tt.rule}, Eval: executor.Evaluate})
			if err != nil {
				t.Fatal(err)
			}
			cands, err := e.Candidates(g)
			if err != nil {
				t.Fatal(err)
			}
			if len(cands) != 1 {
				t.Fatalf("%d candidates, want 1", len(cands))
			}
			c, _, err := Fold(cands[0].Graph, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Nodes) >= len(g.Nodes) {
				t.Errorf("nodes %d -> %d, want fewer", len(g.Nodes), len(c.Nodes))
			}
			if rel, err := ruleverify.SameFunction(g, c, 3, 1, 1e-5); err != nil {
				t.Errorf("rel %g: %v", rel, err)
			}
		})
	}
}
