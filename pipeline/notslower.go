package pipeline

import (
	"fmt"
	"io"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// ChooseNotSlower times the optimised model against the original (and,
// when needed, the folded one) on the default backend, interleaved, prints
// the measurement and the decision to w, and returns the model to write:
// never one that is measurably slower than the original (see
// measure.DecideNotSlower). A chosen folded model is verified first.
func (s *Start) ChooseNotSlower(w io.Writer, optimised *graph.Model, m Measurement, tol float64, seed uint64) (*graph.Model, error) {
	name := measure.DefaultBackendName()
	be, err := measure.NewBackend(name, m.Backend)
	if err != nil {
		return nil, err
	}
	in, err := measure.RandomInputs(s.Orig.Graph, seed)
	if err != nil {
		return nil, err
	}
	same := s.Model.Graph.CanonicalHash() == optimised.Graph.CanonicalHash()
	d, err := measure.DecideNotSlower(be, s.Orig, s.Model, optimised, same, in, m.Measure)
	if err != nil {
		return nil, err
	}
	c := d.Optimised
	fmt.Fprintf(w, "%s latency (measured, interleaved): %v -> %v (speedup %.3fx; after/before ratio %.3f, 99%% CI %.3f-%.3f)\n", name,
		c.A.Median.Round(time.Microsecond), c.B.Median.Round(time.Microsecond), 1/c.Ratio, c.Ratio, c.RatioLo, c.RatioHi)
	if f := d.Folded; f != nil {
		fmt.Fprintf(w, "folded only (measured, interleaved): after/before ratio %.3f, 99%% CI %.3f-%.3f\n", f.Ratio, f.RatioLo, f.RatioHi)
	}
	fmt.Fprintf(w, "writing the %s model: %s\n", d.Choice, d.Reason)
	switch d.Choice {
	case measure.ChooseOptimised:
		return optimised, nil
	case measure.ChooseFolded:
		if same {
			return optimised, nil
		}
		if err := Verify(w, s.Orig, s.Model, tol, seed); err != nil {
			return nil, err
		}
		if err := s.VerifyShapes(w, s.Model, tol, seed); err != nil {
			return nil, err
		}
		if err := s.VerifyInputs(w, s.Model, tol); err != nil {
			return nil, err
		}
		return s.Model, nil
	}
	return s.Orig, nil
}
