package verify

import (
	"fmt"
	"strings"
)

// OutputError is the disagreement found on one output (over all input
// sets).
type OutputError struct {
	Name string
	// MaxAbs is the largest |a-b|.
	MaxAbs float64
	// Ratio is the largest |a-b| / (atol*s + rtol*|b|), s the output's
	// scale: at most 1 passes.
	Ratio float64
	// RelL2 is the largest ||a-b|| / max(||b||, (atol/rtol)*sqrt(n)) over
	// the input sets (n elements; the floor keeps an all-zero output
	// meaningful).
	RelL2 float64
	// Mismatched reports a NaN or Inf present in only one of the outputs.
	Mismatched bool
	// NonFinite reports an output that is NaN or infinite everywhere, in
	// both models, on every input set: it compares nothing, and fails.
	NonFinite bool
	// Constant reports an output of the first model that held the same
	// data on every input set (two or more): it does not depend on the
	// inputs, so comparing it cannot tell a wrong rewrite of what comes
	// before it from a right one (torchvision's ViT with its classifier
	// head still at zero gives 0 whatever the image). It is a warning,
	// not a failure.
	Constant bool
}

// SetError is the disagreement found on one input set.
type SetError struct {
	// Name names the set: "seed 3", or the user's file or directory.
	Name string
	// Worst names the output with the largest |a-b|/(atol*s+rtol*|b|) on
	// this set, and Ratio and RelL2 are that output's figures.
	Worst        string
	Ratio, RelL2 float64
}

// String renders the set's worst output as one line.
func (s SetError) String() string {
	return fmt.Sprintf("input set %s: worst output %q, |a-b|/(atol*s+rtol*|b|) %.3g, rel L2 error %.3g", s.Name, s.Worst, s.Ratio, s.RelL2)
}

// Result reports the largest disagreement found.
type Result struct {
	// RTol and ATol are the tolerances applied.
	RTol, ATol float64
	// MaxAbs is the largest absolute difference over all outputs and sets.
	MaxAbs float64
	// MaxRatio is the largest |a-b| / (atol*s + rtol*|b|) over all
	// elements, s the output's scale; OK needs it <= 1.
	MaxRatio float64
	// MaxRelL2 is the largest relative L2 error of an output; OK needs it
	// <= rtol.
	MaxRelL2 float64
	// Worst names the output (and input set) with the largest ratio, or
	// the output that is NaN or infinite everywhere.
	Worst string
	// Outputs holds the errors of each output, in graph order.
	Outputs []OutputError
	// Sets holds the worst output of each input set, in the order run.
	Sets []SetError
	// Branches says whether each If whose condition depends on the
	// inputs was taken both ways over the sets ("" when the first model
	// has no such If).
	Branches string
	// OK reports that every element is within tolerance, every output's
	// relative L2 error is within rtol, no NaN/Inf appears in only one
	// model, and no output is NaN or infinite everywhere.
	OK bool
}

// String summarises the result.
func (r Result) String() string {
	verdict := "equal within tolerance"
	if !r.OK {
		verdict = "DIFFERENT"
	}
	for _, o := range r.Outputs {
		if o.NonFinite {
			return fmt.Sprintf("NOT VERIFIED: output %q is NaN or infinite everywhere, in both models, on all %d input sets: there is nothing to compare", o.Name, len(r.Sets))
		}
	}
	s := fmt.Sprintf("%s (|a-b| <= %g*s + %g*|b|, s = max(1, RMS(b))): max abs error %.3g, max |a-b|/(atol*s+rtol*|b|) %.3g, max rel L2 error %.3g",
		verdict, r.ATol, r.RTol, r.MaxAbs, r.MaxRatio, r.MaxRelL2)
	if r.Worst != "" && r.MaxRatio > 0 {
		s += " (worst: " + r.Worst + ")"
	}
	for _, o := range r.Outputs {
		if o.Constant {
			s += fmt.Sprintf("; warning: output %q is the same on all %d input sets, so comparing it does not see the computation before it", o.Name, len(r.Sets))
		}
	}
	return s
}

// Details lists each output's errors, one line each, the worst output of
// each input set, and whether the Ifs were taken both ways.
func (r Result) Details() string {
	var b strings.Builder
	for _, o := range r.Outputs {
		fmt.Fprintf(&b, "  output %q: max abs error %.3g, max |a-b|/(atol*s+rtol*|b|) %.3g, rel L2 error %.3g", o.Name, o.MaxAbs, o.Ratio, o.RelL2)
		if o.Mismatched {
			b.WriteString(", NaN/Inf in only one model")
		}
		if o.NonFinite {
			b.WriteString(", NaN or infinite everywhere in both models")
		}
		if o.Constant {
			b.WriteString(", the same on every input set")
		}
		b.WriteString("\n")
	}
	for _, s := range r.Sets {
		fmt.Fprintf(&b, "  %v\n", s)
	}
	if r.Branches != "" {
		fmt.Fprintf(&b, "  %s\n", r.Branches)
	}
	return b.String()
}
