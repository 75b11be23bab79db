package ort_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/verify"
)

// TestRecurrentKernelsMatchORT runs ONNX's RNN, GRU and LSTM conformance
// models (peepholes, sequence lengths, initial biases) on random inputs
// in the Go executor and in ONNX Runtime and compares the outputs. ONNX
// Runtime does not run the batch-first layout (its conformance data
// checks the Go executor's).
func TestRecurrentKernelsMatchORT(t *testing.T) {
	goBE, ortBE := goAndORT(t)
	var paths []string
	for _, pat := range []string{"test_lstm_*", "test_gru_*", "test_rnn_*", "test_simple_rnn_*"} {
		found, err := filepath.Glob(filepath.Join("/usr/include/onnx/backend/test/data/node", pat, "model.onnx"))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, found...)
	}
	if len(paths) < 10 {
		t.Fatalf("found %d recurrent conformance models (install libonnx-testdata)", len(paths))
	}
	for _, p := range paths {
		if strings.Contains(p, "batchwise") {
			continue
		}
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) {
			m, err := onnx.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Graph.BindShapes(nil); err != nil {
				t.Fatal(err)
			}
			for _, n := range m.Graph.Nodes {
				if !graph.IsRecurrent(n) {
					t.Fatalf("%v is not read as a recurrent node the executor runs", n)
				}
			}
			res, err := verify.Pair(goBE, m, ortBE, m, verify.Options{Seeds: 3})
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK {
				t.Errorf("Go executor vs ONNX Runtime: %v\n%s", res, res.Details())
			}
		})
	}
}
