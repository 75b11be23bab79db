package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// chooseNotSlower times the optimised model against the original (and,
// when needed, the folded one) in the default runtime, interleaved, prints
// the measurement and the decision, and returns the model to write: never
// one that is measurably slower than the original (measure.DecideNotSlower).
func chooseNotSlower(w io.Writer, o *optimizeOptions, orig, folded, optimised *graph.Model) (*graph.Model, error) {
	name := measure.DefaultBackendName()
	be, err := measure.NewBackend(name, o.Runtime.backendOptions())
	if err != nil {
		return nil, err
	}
	in, err := measure.RandomInputs(orig.Graph, o.Seed)
	if err != nil {
		return nil, err
	}
	same := folded.Graph.CanonicalHash() == optimised.Graph.CanonicalHash()
	d, err := measure.DecideNotSlower(be, orig, folded, optimised, same, in, o.Runtime.measureOptions())
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
		return folded, nil
	}
	return orig, nil
}
