package graph_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

// nodeTestDir holds the ONNX backend node tests (Debian libonnx-testdata).
const nodeTestDir = "/usr/share/libonnx-testdata/data/node"

// TestONNXNodeConformance infers every ONNX backend node test whose ops
// are all in the schema table and compares the result with the output
// types recorded in the model. Small inputs are fed as constants from
// test_data_set_0, so shape-carrying inputs (Reshape's shape, Slice's
// starts ...) are known.
func TestONNXNodeConformance(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(nodeTestDir, "test_*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no ONNX node tests under %s (install libonnx-testdata): %v", nodeTestDir, err)
	}
	checked := 0
	for _, d := range dirs {
		name := filepath.Base(d)
		m, err := onnx.ReadFile(filepath.Join(d, "model.onnx"))
		if err != nil || !tensorOnly(m.Graph) {
			continue // opsets before 9, ops outside the table, sequence types
		}
		g := m.Graph
		for i, in := range g.Inputs {
			data, err := os.ReadFile(filepath.Join(d, "test_data_set_0", fmt.Sprintf("input_%d.pb", i)))
			if err != nil {
				continue
			}
			tt, _, err := onnx.DecodeTensor(data)
			// Some files store a declared bfloat16 input as uint16
			// (test_castlike_FLOAT_to_BFLOAT16): keep the declared type.
			if err == nil && tt.Len() <= 64 && (in.DType == graph.Undefined || tt.DType == in.DType) {
				in.Const = tt
			}
		}
		want := make(map[*graph.Value]string)
		for _, o := range g.Outputs {
			if o.ShapeKnown && o.Shape.Static() {
				want[o] = typeString(o)
			}
			o.ShapeKnown, o.DType, o.Shape = false, graph.Undefined, nil
		}
		if err := g.InferShapes(); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for o, w := range want {
			if got := typeString(o); got != w {
				t.Errorf("%s: output %q inferred %s, model says %s", name, o.Name, got, w)
			}
		}
		checked++
	}
	// Guard against the test passing vacuously (e.g. if every model were
	// imported as opaque).
	if checked < 300 {
		t.Errorf("only %d node tests checked, want at least 300", checked)
	}
	t.Logf("%d ONNX node tests checked", checked)
}

// tensorOnly reports whether g has only schema-table nodes and tensor
// inputs.
func tensorOnly(g *graph.Graph) bool {
	for _, n := range g.Nodes {
		if n.IsOpaque() {
			return false
		}
	}
	for _, in := range g.Inputs {
		if !in.DType.Valid() || !in.ShapeKnown {
			return false
		}
	}
	return true
}

func typeString(v *graph.Value) string { return v.DType.String() + "[" + v.Shape.String() + "]" }
