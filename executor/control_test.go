package executor

import (
	"math"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

// TestControlFlow runs a Loop with a scan output and a reversed Scan
// (testdata/controlflow/make_models.py) in both precisions against values
// computed here.
func TestControlFlow(t *testing.T) {
	x := []float32{1, -2, 3, 0.5, 4, -1}
	X := []float32{1, 2, 3, 4, 10, 20, 30, 40}
	tests := []struct {
		model string
		in    map[string]*graph.Tensor
		want  map[string][]float64
	}{
		{"loop_scan", map[string]*graph.Tensor{"x": graph.FromFloat32(x, 2, 3)}, map[string][]float64{
			"y": scaled(x, 5),
			"s": append(append(append(scaled(x, 4), scaled(x, 6)...), scaled(x, 8)...), scaled(x, 10)...),
		}},
		{"scan_reverse", map[string]*graph.Tensor{"acc": graph.FromFloat32([]float32{100, 200}, 2), "X": graph.FromFloat32(X, 2, 4)},
			map[string][]float64{
				"acc_final": {110, 300},
				// Row r holds the running sums of X[r] read from the end,
				// stacked in reading order.
				"steps": {104, 107, 109, 110, 240, 270, 290, 300},
			}},
	}
	for _, tc := range tests {
		for _, prec := range []graph.DType{graph.Float32, graph.Float64} {
			t.Run(tc.model+"/"+prec.String(), func(t *testing.T) {
				m, err := onnx.ReadFile("testdata/controlflow/" + tc.model + ".onnx")
				if err != nil {
					t.Fatal(err)
				}
				if err := m.Graph.InferShapes(); err != nil {
					t.Fatal(err)
				}
				ex, err := NewExecutor(m.Graph, ExecOptions{Precision: prec})
				if err != nil {
					t.Fatal(err)
				}
				got, err := ex.Run(tc.in)
				if err != nil {
					t.Fatal(err)
				}
				for name, want := range tc.want {
					g, err := got[name].AsFloat64()
					if err != nil || len(g) != len(want) {
						t.Fatalf("%s: %v, %d elements, want %d", name, err, len(g), len(want))
					}
					for i := range want {
						if math.Abs(g[i]-want[i]) > 1e-5 {
							t.Errorf("%s[%d] = %g, want %g", name, i, g[i], want[i])
						}
					}
				}
			})
		}
	}
}

// scaled returns k*x as float64s.
func scaled(x []float32, k float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = k * float64(v)
	}
	return out
}
