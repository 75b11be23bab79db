package models_test

import (
	"math"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/models"
)

// TestExecuteCPUPresets runs every cpu preset once in the Go executor on
// seeded random inputs and checks that each output is finite, varies and
// has a moderate scale (root mean square within 1e-3 .. 1e3), i.e. the
// random weights neither blow up nor saturate the network.
func TestExecuteCPUPresets(t *testing.T) {
	for _, s := range models.List() {
		t.Run(s.Name, func(t *testing.T) {
			m, err := models.Build(s.Name, models.PresetCPU, models.Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			ex, err := executor.NewExecutor(m.Graph, executor.ExecOptions{})
			if err != nil {
				t.Fatal(err)
			}
			in, err := measure.RandomInputs(m.Graph, 1)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			out, err := ex.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s cpu: %v in the Go executor", s.Name, time.Since(start).Round(time.Millisecond))
			for _, v := range m.Graph.Outputs {
				o, ok := out[v.Name]
				if !ok {
					t.Fatalf("output %q missing", v.Name)
				}
				data, err := o.AsFloat64()
				if err != nil {
					t.Fatal(err)
				}
				var sum, sq float64
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, x := range data {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						t.Fatalf("output %q has a non-finite value", v.Name)
					}
					sum += x
					sq += x * x
					lo, hi = math.Min(lo, x), math.Max(hi, x)
				}
				rms := math.Sqrt(sq / float64(len(data)))
				t.Logf("output %q %v: mean %.4g rms %.4g range [%.4g, %.4g]", v.Name, o.Shape, sum/float64(len(data)), rms, lo, hi)
				if hi == lo {
					t.Errorf("output %q is constant (%g)", v.Name, lo)
				}
				if rms < 1e-3 || rms > 1e3 {
					t.Errorf("output %q has rms %g, want 1e-3..1e3", v.Name, rms)
				}
			}
		})
	}
}
