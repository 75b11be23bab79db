package rewrite_test

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	_ "github.com/xrl-dev/xrl/measure/ort"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules"
	"github.com/xrl-dev/xrl/rules/ruleverify"
	"github.com/xrl-dev/xrl/verify"
)

// ortBackend returns ONNX Runtime with one thread and every optimisation.
func ortBackend(t *testing.T) measure.Backend {
	t.Helper()
	be, err := measure.NewBackend("ort", measure.BackendOptions{Threads: 1})
	if err != nil {
		t.Fatalf("ONNX Runtime must be installed (scripts/setup): %v", err)
	}
	return be
}

// ortOps counts the operators ONNX Runtime executes for m after its own
// graph optimisation (read from its profile of one run).
func ortOps(t *testing.T, be measure.Backend, m *graph.Model) map[string]int {
	t.Helper()
	pb, ok := be.(interface {
		Profile(*graph.Model, int, int) (*measure.Profile, error)
	})
	if !ok {
		t.Fatal("the ONNX Runtime backend cannot profile")
	}
	p, err := pb.Profile(m, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, n := range p.Nodes {
		ops[n.Op]++
	}
	return ops
}

// loadFolded reads a test export, infers its shapes and folds constants,
// as the optimiser does before rewriting.
func loadFolded(t *testing.T, path string) *graph.Model {
	t.Helper()
	m, err := onnx.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Graph.InferShapes(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if m.Graph, _, err = rewrite.Fold(m.Graph, executor.Evaluate); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// fusionFormsPass returns the pass ort-fusion-forms as xrl optimize runs
// it: after Canonicalize with the shipped canonicalisation rules.
func fusionFormsPass(t *testing.T) rewrite.Pass {
	t.Helper()
	set, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rewrite.Passes {
		if p.Name == "ort-fusion-forms" {
			return rewrite.CanonicalFirst(p, set, executor.Evaluate)
		}
	}
	t.Fatal("no pass ort-fusion-forms")
	return rewrite.Pass{}
}

// checkFusionForms applies ort-fusion-forms (canonicalisation, then
// FusionForms) to m and checks that the result is the same function
// (float64 within FusionFormsTolerance, and ONNX Runtime's float32 outputs
// within verification tolerance) and that ONNX Runtime then forms fused,
// which it did not form before.
func checkFusionForms(t *testing.T, be measure.Backend, m *graph.Model, fused string) {
	t.Helper()
	if n := ortOps(t, be, m)[fused]; n != 0 {
		t.Fatalf("ONNX Runtime already forms %d %s before the rewrite: the test checks nothing", n, fused)
	}
	g, changed, err := fusionFormsPass(t).Apply(m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	if !changed {
		t.Fatal("ort-fusion-forms changed nothing")
	}
	if g, _, err = rewrite.Fold(g, executor.Evaluate); err != nil {
		t.Fatal(err)
	}
	if _, err := ruleverify.SameFunction(m.Graph, g, 2, 1, rewrite.FusionFormsTolerance); err != nil {
		t.Fatalf("the rewritten graph computes something else: %v", err)
	}
	out := &graph.Model{Graph: g, Opsets: m.Opsets, IRVersion: m.IRVersion}
	if n := ortOps(t, be, out)[fused]; n != 1 {
		t.Errorf("after the rewrite ONNX Runtime forms %d %s, want 1 (ops %v)", n, fused, ortOps(t, be, out))
	}
	res, err := verify.Pair(be, m, be, out, verify.Options{Seeds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Errorf("ONNX Runtime's outputs differ after the rewrite: %v", res)
	}
}

// TestFusionFormsOnExports checks each near-miss form PyTorch 1.13 exports
// (testdata/fusion, see its README): ONNX Runtime does not fuse it as
// exported and does after FusionForms.
func TestFusionFormsOnExports(t *testing.T) {
	be := ortBackend(t)
	tests := []struct {
		file, fused string
	}{
		{"gelu_mul_opset13.onnx", "Gelu"},
		{"gelu_mul_opset17.onnx", "Gelu"},
		{"gelu_mul_late_half_opset13.onnx", "Gelu"},
		{"gelu_nn_tanh_opset13.onnx", "FastGelu"},
		{"gelu_nn_tanh_opset17.onnx", "FastGelu"},
		{"ln_muldd_opset13.onnx", "LayerNormalization"},
		{"ln_muldd_opset17.onnx", "LayerNormalization"},
		{"rms_muldd_opset13.onnx", "SimplifiedLayerNormalization"},
		{"rms_muldd_opset17.onnx", "SimplifiedLayerNormalization"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			checkFusionForms(t, be, loadFolded(t, "../testdata/fusion/"+tt.file), tt.fused)
		})
	}
}

// TestFusionFormsUndoScaleOut checks the GELUs that xrl's rules break:
// matmul-scale-left-out moves GELU's 0.5 past the next MatMul, and
// matmul-scale-into-right then folds it into the MatMul's weights. ONNX
// Runtime fuses the export's GELU, not the rules' result, and again after
// FusionForms.
func TestFusionFormsUndoScaleOut(t *testing.T) {
	be := ortBackend(t)
	set, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, steps := range [][]string{
		{"matmul-scale-left-out"},
		{"matmul-scale-left-out", "matmul-scale-into-right"},
	} {
		t.Run(steps[len(steps)-1], func(t *testing.T) {
			m := loadFolded(t, "../testdata/fusion/gelu_nn_opset13.onnx")
			if n := ortOps(t, be, m)["Gelu"]; n != 1 {
				t.Fatalf("ONNX Runtime forms %d Gelu on the export, want 1", n)
			}
			g := m.Graph
			for _, rule := range steps {
				e := rewrite.NewEngine(set, rewrite.Options{Rules: []string{rule}, Eval: executor.Evaluate})
				cands, err := e.Candidates(g)
				if err != nil {
					t.Fatal(err)
				}
				if len(cands) != 1 {
					t.Fatalf("%s gives %d candidates, want 1", rule, len(cands))
				}
				g = cands[0].Graph
			}
			checkFusionForms(t, be, &graph.Model{Graph: g, Opsets: m.Opsets, IRVersion: m.IRVersion}, "Gelu")
		})
	}
}

// TestFusionFormsLeavesExactForms checks that exports ONNX Runtime already
// fuses are left alone, by FusionForms and by the canonicalisation before
// it.
func TestFusionFormsLeavesExactForms(t *testing.T) {
	for _, f := range []string{"gelu_nn_opset13.onnx", "gelu_nn_opset17.onnx"} {
		m := loadFolded(t, "../testdata/fusion/"+f)
		if _, changed, err := rewrite.FusionForms(m.Graph); err != nil || changed {
			t.Errorf("%s: FusionForms changed %v, err %v; want no change", f, changed, err)
		}
		if _, changed, err := fusionFormsPass(t).Apply(m.Graph); err != nil || changed {
			t.Errorf("%s: ort-fusion-forms after canonicalisation changed %v, err %v; want no change", f, changed, err)
		}
	}
}
