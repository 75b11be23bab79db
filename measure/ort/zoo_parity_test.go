package ort_test

import (
	"testing"

	"github.com/xrl-dev/xrl/measure"
	_ "github.com/xrl-dev/xrl/measure/ort"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/verify"
)

// TestZooParity checks that the Go executor and ONNX Runtime compute the
// same outputs for every zoo model at the cpu preset (relative error as
// defined by verify.Result, bound 1e-4, two seeds).
func TestZooParity(t *testing.T) {
	goBE, ortBE := goAndORT(t)
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
			res, err := verify.Pair(goBE, m, ortBE, m, verify.Options{Seeds: 2, Tolerance: 1e-4})
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

// goAndORT returns the Go executor and ONNX Runtime backends with default
// options; ONNX Runtime must be installed.
func goAndORT(t *testing.T) (goBE, ortBE measure.Backend) {
	t.Helper()
	goBE, err := measure.NewBackend("go", measure.BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ortBE, err = measure.NewBackend("ort", measure.BackendOptions{})
	if err != nil {
		t.Fatalf("ONNX Runtime must be installed (scripts/setup): %v", err)
	}
	return goBE, ortBE
}
