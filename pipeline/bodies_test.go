package pipeline

import (
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	_ "github.com/xrl-dev/xrl/measure/ort" // registers the "ort" backend
	"github.com/xrl-dev/xrl/onnx"
)

// TestOptimizeBodies rewrites inside the bodies of torch-exported If and
// Loop models (a Gemm followed by a Mul by 0.5 in every body folds into the
// Gemm), writes the result, checks it with onnx.checker and compares it
// with the original in ONNX Runtime on inputs that take each branch.
func TestOptimizeBodies(t *testing.T) {
	tests := []struct {
		model  string
		shapes map[string][]int
		runs   []map[string]*graph.Tensor // the shaped inputs besides x
		folds  int                        // gemm-mul-scalar-fold applications inside bodies
	}{
		{"vad_if", map[string][]int{"x": {2, 512}}, []map[string]*graph.Tensor{
			{"sr": graph.FromInt64([]int64{16000})}, {"sr": graph.FromInt64([]int64{8000})}}, 2},
		{"loop_mlp", map[string][]int{"x": {4, 32}}, []map[string]*graph.Tensor{
			{"steps": graph.FromInt64([]int64{0})}, {"steps": graph.FromInt64([]int64{3})}}, 1},
		// An If inside the Loop body: both branches are rewritten.
		{"loop_if", map[string][]int{"x": {3, 16}}, []map[string]*graph.Tensor{
			{"steps": graph.FromInt64([]int64{1})}, {"steps": graph.FromInt64([]int64{6})}}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			s, err := Prepare(filepath.Join("../testdata/controlflow", tc.model+".onnx"), tc.shapes, nil)
			if err != nil {
				t.Fatal(err)
			}
			best, st, err := OptimizeBodies(s.Model.Graph, s.Engine)
			if err != nil {
				t.Fatal(err)
			}
			if st.Rewritten == 0 || st.NodesAfter >= st.NodesBefore {
				t.Fatalf("bodies not rewritten: %+v", st)
			}
			if got := countRule(st.Applied, "gemm-mul-scalar-fold"); got != tc.folds {
				t.Errorf("gemm-mul-scalar-fold applied %d times inside bodies, want %d (applied: %v)", got, tc.folds, st.Applied)
			}
			noMulInBodies(t, best)
			if hasEditedBody(s.Model.Graph) || hasEditedBody(s.Orig.Graph) {
				t.Fatal("OptimizeBodies modified its input")
			}
			out, err := s.Finish(io.Discard, s.Model.Graph, 1e-4, 1)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), tc.model+".onnx")
			if err := onnx.WriteFile(path, out); err != nil {
				t.Fatal(err)
			}
			checkModel(t, path)
			written, err := LoadBound(path, tc.shapes)
			if err != nil {
				t.Fatal(err)
			}
			noMulInBodies(t, written.Graph)
			// The Gemm weights the bodies read from the main graph are
			// folded into the bodies: the main graph no longer holds them.
			if a, b := len(s.Orig.Graph.Initializers), len(written.Graph.Initializers); b >= a {
				t.Errorf("main graph has %d initializers after, %d before: unread outer weights were kept", b, a)
			}
			for _, in := range tc.runs {
				x, err := measure.RandomInputs(s.Orig.Graph, 7)
				if err != nil {
					t.Fatal(err)
				}
				for k, v := range in {
					x[k] = v
				}
				ref := compareInORT(t, s.Orig, written, x)
				for _, prec := range []graph.DType{graph.Float32, graph.Float64} {
					for _, m := range []*graph.Model{s.Orig, written} {
						ex, err := executor.NewExecutor(m.Graph, executor.ExecOptions{Precision: prec})
						if err != nil {
							t.Fatalf("Go executor (%v): %v", prec, err)
						}
						got, err := ex.Run(x)
						if err != nil {
							t.Fatalf("Go executor (%v): %v", prec, err)
						}
						closeOutputs(t, ref, got, 1e-4)
					}
				}
			}
		})
	}
}

// countRule counts name in applied.
func countRule(applied []string, name string) int {
	c := 0
	for _, a := range applied {
		if a == name {
			c++
		}
	}
	return c
}

// hasEditedBody reports whether a body of g is marked edited.
func hasEditedBody(g *graph.Graph) bool {
	edited := false
	g.WalkBodies(func(_ *graph.Node, b *graph.Body) { edited = edited || b.Edited })
	return edited
}

// compareInORT runs a and b in ONNX Runtime on in, requires every output
// to agree within 1e-5 + 1e-4|a| and returns a's outputs.
func compareInORT(t *testing.T, a, b *graph.Model, in map[string]*graph.Tensor) map[string]*graph.Tensor {
	t.Helper()
	be, err := measure.NewBackend("ort", measure.BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var outs [2]map[string]*graph.Tensor
	for i, m := range []*graph.Model{a, b} {
		s, err := be.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		outs[i], err = s.Run(in)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	closeOutputs(t, outs[0], outs[1], 1e-4)
	return outs[0]
}

// closeOutputs requires every output of want to be matched in got within
// 1e-5 + rtol|want|.
func closeOutputs(t *testing.T, want, got map[string]*graph.Tensor, rtol float64) {
	t.Helper()
	for name, tw := range want {
		x, _ := tw.AsFloat64()
		tg := got[name]
		if tg == nil {
			t.Fatalf("output %s is missing", name)
		}
		y, err := tg.AsFloat64()
		if err != nil || len(x) != len(y) {
			t.Fatalf("output %s: %v (%d vs %d elements)", name, err, len(x), len(y))
		}
		for i := range x {
			if math.Abs(x[i]-y[i]) > 1e-5+rtol*math.Abs(x[i]) {
				t.Fatalf("output %s[%d]: %g vs %g", name, i, x[i], y[i])
			}
		}
	}
}

// checkModel runs onnx.checker (full check) on the model at path.
func checkModel(t *testing.T, path string) {
	t.Helper()
	cmd := exec.Command("/usr/bin/python3", "-c", "import sys, onnx; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)", path)
	cmd.Env = append(os.Environ(), "PYTHONWARNINGS=ignore")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("onnx.checker rejects %s: %v\n%s", path, err, out)
	}
}

// noMulInBodies requires that no body of g holds a Mul.
func noMulInBodies(t *testing.T, g *graph.Graph) {
	t.Helper()
	g.WalkBodies(func(_ *graph.Node, b *graph.Body) {
		for _, bn := range b.Graph.Nodes {
			if bn.Op == "Mul" {
				t.Errorf("body %s still has %v", b.Attr, bn)
			}
		}
	})
}
