package onnx_test

import (
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

// TestScatterImport checks that opset-10 Scatter imports as
// ScatterElements, is written back at opset 11, and that both models give
// ONNX's expected outputs on the Go executor.
func TestScatterImport(t *testing.T) {
	axes := map[string]int64{"test_scatter_with_axis": 1, "test_scatter_without_axis": 0}
	for name, axis := range axes {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(conformanceData, "node", name)
			m, err := onnx.ReadFile(filepath.Join(dir, "model.onnx"))
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Graph.Nodes) != 1 {
				t.Fatalf("%d nodes, want 1", len(m.Graph.Nodes))
			}
			n := m.Graph.Nodes[0]
			if n.Op != "ScatterElements" || n.IsOpaque() || n.AttrInt("axis") != axis {
				t.Fatalf("imported as %s (opaque %v) axis %d, want ScatterElements axis %d", n.Op, n.IsOpaque(), n.AttrInt("axis"), axis)
			}
			enc, err := onnx.Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			m2, err := onnx.Decode(enc, onnx.DecodeOptions{Source: name + " (exported)"})
			if err != nil {
				t.Fatal(err)
			}
			if o := m2.Opset(""); o < 11 {
				t.Errorf("exported at opset %d, want 11 or later", o)
			}
			for _, g := range [...]*graph.Model{m, m2} {
				if err := runDataSet(g.Graph, filepath.Join(dir, "test_data_set_0")); err != nil {
					t.Errorf("opset %d: %v", g.Opset(""), err)
				}
			}
		})
	}
}
