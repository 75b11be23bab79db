package pipeline

import (
	"fmt"
	"io"

	"github.com/xrl-dev/xrl/measure"
)

// CompareReport is the outcome of CompareFiles: the runtime that timed two
// model files and their interleaved comparison.
type CompareReport struct {
	Runtime    string
	A, B       string
	Comparison measure.Comparison
	// Precision is the equivalence margin the comparison used.
	Precision float64
}

// CompareFiles loads the models at files a and b with the input shapes
// bind bound and times them on be, interleaved (measure.Compare), on
// random inputs drawn with seed.
func CompareFiles(be measure.Backend, a, b string, bind map[string][]int, seed uint64, opts measure.MeasureOptions) (*CompareReport, error) {
	ma, mb, err := LoadPair(a, b, bind)
	if err != nil {
		return nil, err
	}
	fa, err := SelfContained(a)
	if err != nil {
		return nil, err
	}
	fb, err := SelfContained(b)
	if err != nil {
		return nil, err
	}
	inA, err := measure.RandomInputs(ma.Graph, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a, err)
	}
	inB, err := measure.RandomInputs(mb.Graph, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b, err)
	}
	c, err := measure.CompareModelFiles(be, measure.ModelFile{Model: ma, File: fa}, measure.ModelFile{Model: mb, File: fb}, inA, inB, opts)
	if err != nil {
		return nil, err
	}
	return &CompareReport{Runtime: be.Name(), A: a, B: b, Comparison: c, Precision: opts.Precision}, nil
}

// Write prints the report to w: the runtime, each model's timings, the
// ratio, the medians and the verdict.
func (r *CompareReport) Write(w io.Writer) {
	c := r.Comparison
	fmt.Fprintf(w, "runtime %s\n", r.Runtime)
	fmt.Fprintf(w, "A %s: %v\n", r.A, c.A)
	fmt.Fprintf(w, "B %s: %v\n", r.B, c.B)
	fmt.Fprintf(w, "%v\n", c)
	fmt.Fprintf(w, "medians: %s\n", c.Summary())
	switch c.Verdict {
	case measure.Faster:
		fmt.Fprintf(w, "verdict: B is faster (%.1f%% less latency)\n", 100*(1-c.Ratio))
	case measure.Slower:
		fmt.Fprintf(w, "verdict: B is slower (%.1f%% more latency)\n", 100*(c.Ratio-1))
	case measure.Equivalent:
		fmt.Fprintf(w, "verdict: no difference beyond ±%.1f%% (the 99%% interval lies within it)\n", 100*r.Precision)
	case measure.NotSlower:
		fmt.Fprintf(w, "verdict: B is not slower by more than %.1f%% (the 99%% interval lies below it)\n", 100*r.Precision)
	default:
		fmt.Fprintln(w, "verdict: undecided: the time ran out before the 99% interval left 1 or came within the margin")
	}
}
