package pipeline

import (
	"testing"

	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rewrite"
)

// TestPassesNamedCanonicalFirst checks that the measured fusion passes
// run after canonicalisation: on PyTorch's tanh-GELU export, which
// FusionForms alone leaves as it is, ort-fusion-forms as PassesNamed
// gives it rewrites the GELU (cube-to-pow, gelu-tanh-half-first), while
// rows-2d, no fusion pass, is the shipped pass unchanged.
func TestPassesNamedCanonicalFirst(t *testing.T) {
	passes, err := PassesNamed([]string{"ort-fusion-forms", "rows-2d"})
	if err != nil {
		t.Fatal(err)
	}
	forms, rows := passes[0], passes[1]
	if rows.Fuses || rows.Tolerance != 0 {
		t.Errorf("rows-2d is wrapped: %+v", rows)
	}
	m, err := onnx.ReadFile("../testdata/fusion/gelu_nn_tanh_opset13.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Graph.InferShapes(); err != nil {
		t.Fatal(err)
	}
	if _, changed, err := rewrite.FusionForms(m.Graph); err != nil || changed {
		t.Fatalf("FusionForms alone: changed %v, %v; want no change", changed, err)
	}
	if forms.Tolerance < rewrite.FusionFormsTolerance {
		t.Errorf("ort-fusion-forms tolerance %g, want at least %g", forms.Tolerance, rewrite.FusionFormsTolerance)
	}
	g, changed, err := forms.Apply(m.Graph)
	if err != nil || !changed {
		t.Fatalf("ort-fusion-forms: changed %v, %v; want a change", changed, err)
	}
	ops := map[string]int{}
	for _, n := range g.Nodes {
		ops[n.Op]++
	}
	if ops["Pow"] != 1 {
		t.Errorf("ort-fusion-forms left %d Pow, want 1 (ops %v)", ops["Pow"], ops)
	}
}
