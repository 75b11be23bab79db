package measure

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// Choice names the model an optimiser writes.
type Choice int

// The choices of DecideNotSlower.
const (
	ChooseOriginal  Choice = iota // the model as given
	ChooseFolded                  // the model with its constants folded only
	ChooseOptimised               // the rewritten model
)

// String returns "original", "folded" or "optimised".
func (c Choice) String() string {
	return [...]string{"original", "folded", "optimised"}[c]
}

// Decision is the outcome of DecideNotSlower.
type Decision struct {
	Choice Choice
	// Optimised compares the original (A) with the optimised model (B).
	Optimised Comparison
	// Folded compares the original (A) with the folded model (B), when
	// that was measured (the optimised model was not shown faster and the
	// folded one differs from both).
	Folded *Comparison
	// Reason says why, in one sentence.
	Reason string
}

// Written returns the comparison of the chosen model with the original,
// nil when the original is chosen (nothing to compare: it is written as
// it was given).
func (d Decision) Written() *Comparison {
	switch d.Choice {
	case ChooseOptimised:
		return &d.Optimised
	case ChooseFolded:
		if d.Folded != nil {
			return d.Folded
		}
		return &d.Optimised
	}
	return nil
}

// DecideNotSlower implements "never slower": it times the optimised model
// against the original (its file when be can load one, see Original),
// interleaved in be on the same inputs (Compare's sequential test), and
// chooses it only when the test shows it faster:
// the 99% confidence interval of its latency ratio after/before, a ratio
// of medians, lies wholly below 1. Otherwise it tests the folded model
// (nil: none) the same way and chooses it under the same rule, else the
// original. An interval within the equivalence margin of 1 is not enough:
// a model that is no faster than the original is not worth a different
// file. sameAsFolded tells that optimised and folded are one graph (no
// rewrite was applied), so it is measured once.
func DecideNotSlower(be Backend, orig Original, folded, optimised *graph.Model, sameAsFolded bool, in map[string]*graph.Tensor, opts MeasureOptions) (Decision, error) {
	var d Decision
	c, err := compareWithOriginal(be, orig, optimised, in, opts)
	if err != nil {
		return d, fmt.Errorf("timing the optimised model: %w", err)
	}
	d.Optimised = c
	if c.Verdict == Faster {
		d.Choice = ChooseOptimised
		d.Reason = "the optimised model is faster (" + speedupText(c) + ")"
		return d, nil
	}
	if folded != nil && !sameAsFolded {
		f, err := compareWithOriginal(be, orig, folded, in, opts)
		if err != nil {
			return d, fmt.Errorf("timing the folded model: %w", err)
		}
		d.Folded = &f
		if f.Verdict == Faster {
			d.Choice = ChooseFolded
			d.Reason = "the optimised model is not shown faster (" + speedupText(c) + "); the folded model is faster (" + speedupText(f) + ")"
			return d, nil
		}
		d.Choice = ChooseOriginal
		d.Reason = "neither the optimised model (" + speedupText(c) + ") nor the folded one (" + speedupText(f) + ") is shown faster"
		return d, nil
	}
	d.Choice = ChooseOriginal
	d.Reason = "the optimised model is not shown faster (" + speedupText(c) + ")"
	return d, nil
}

// speedupText formats a comparison's speedup, interval and verdict:
// "speedup 1.232x, 99% CI 1.220-1.243, faster".
func speedupText(c Comparison) string {
	lo, hi := c.SpeedupCI()
	return fmt.Sprintf("speedup %.3fx, 99%% CI %.3f-%.3f, %v", c.Speedup(), lo, hi, c.Verdict)
}

// Original is the model never-slower protects: Model, read and bound for
// measurement, and File, the ONNX bytes it was read from (nil when there
// are none, or when they name external data files). A backend that can
// load serialised ONNX as given (a BytesLoader: ONNX Runtime) times File
// itself, so that the figure "before" is that of the file the user has:
// a bound copy can run at another speed (ONNX Runtime ran the corpus
// encoder's file, its sequence axis symbolic, about 10% faster).
type Original struct {
	Model *graph.Model
	File  []byte
}

// BytesLoader is implemented by backends that can load a model from its
// serialised ONNX as it is, m being that model as read and bound (it names
// the session's inputs and outputs).
type BytesLoader interface {
	LoadONNX(data []byte, m *graph.Model) (Session, error)
}

// Load loads the original in be: its file when be is a BytesLoader and
// there is one, else its model. A file the backend refuses as given (an
// old-opset model with a kernel ONNX Runtime no longer has, such as
// AveragePool-1, which xrl's reading converts to its current form) is
// timed as the model read from it.
func (o Original) Load(be Backend) (Session, error) {
	if bl, ok := be.(BytesLoader); ok && o.File != nil {
		if s, err := bl.LoadONNX(o.File, o.Model); err == nil {
			return s, nil
		}
	}
	return be.Load(o.Model)
}

// compareWithOriginal compares the original (A) with m (B) interleaved on
// inputs in (see CompareModels).
func compareWithOriginal(be Backend, orig Original, m *graph.Model, in map[string]*graph.Tensor, opts MeasureOptions) (Comparison, error) {
	sa, err := orig.Load(be)
	if err != nil {
		return Comparison{}, err
	}
	defer sa.Close()
	sb, err := be.Load(m)
	if err != nil {
		return Comparison{}, err
	}
	defer sb.Close()
	return Compare(sa, sb, in, in, opts)
}

// CompareModels loads a and b in be and compares them interleaved on
// inputs in (latency(b)/latency(a), see Compare).
func CompareModels(be Backend, a, b *graph.Model, in map[string]*graph.Tensor, opts MeasureOptions) (Comparison, error) {
	return compareWithOriginal(be, Original{Model: a}, b, in, opts)
}
