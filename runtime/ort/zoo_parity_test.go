package ort_test

import (
	"testing"

	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/runtime"
	_ "github.com/xrl-dev/xrl/runtime/ort"
)

// TestZooParity checks that the Go executor and ONNX Runtime compute the
// same outputs for every zoo model at the cpu preset (relative error as
// defined by runtime.VerifyResult, bound 1e-4, two seeds).
func TestZooParity(t *testing.T) {
	goBE, err := runtime.NewBackend("go", runtime.BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ortBE, err := runtime.NewBackend("ort", runtime.BackendOptions{})
	if err != nil {
		t.Fatalf("ONNX Runtime must be installed (scripts/setup): %v", err)
	}
	names := models.Names()
	if len(names) != 12 {
		t.Errorf("zoo has %d models, want 12", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			m, err := models.Build(name, models.PresetCPU, models.Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := runtime.VerifyPair(goBE, m, ortBE, m, runtime.VerifyOptions{Seeds: 2, Tolerance: 1e-4})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %v", name, res)
			if !res.OK {
				t.Errorf("Go executor and ONNX Runtime disagree: %v", res)
			}
		})
	}
}
