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
	// that was measured (the optimised model was not faster and the folded
	// one differs from both).
	Folded *Comparison
	// Reason says why, in one sentence.
	Reason string
}

// DecideNotSlower implements "never slower": it times the optimised model
// against the original, interleaved in be on the same inputs, and chooses
// the optimised one only when it is measurably faster (the upper end of
// the 99% confidence interval of the after/before ratio below 1).
// Otherwise it times the folded model (nil: none) the same way and chooses
// it when it is not slower (a median ratio of at most 1 and no measurable
// slowdown), else the original. sameAsFolded tells that optimised and
// folded are one graph (no rewrite was applied), so it is measured once.
func DecideNotSlower(be Backend, orig, folded, optimised *graph.Model, sameAsFolded bool, in map[string]*graph.Tensor, opts MeasureOptions) (Decision, error) {
	var d Decision
	c, err := CompareModels(be, orig, optimised, in, opts)
	if err != nil {
		return d, fmt.Errorf("timing the optimised model: %w", err)
	}
	d.Optimised = c
	if c.RatioHi < 1 {
		d.Choice = ChooseOptimised
		d.Reason = fmt.Sprintf("the optimised model is measurably faster (after/before %.3f, 99%% CI %.3f-%.3f)", c.Ratio, c.RatioLo, c.RatioHi)
		return d, nil
	}
	if folded != nil && !sameAsFolded {
		if c, err = CompareModels(be, orig, folded, in, opts); err != nil {
			return d, fmt.Errorf("timing the folded model: %w", err)
		}
		d.Folded = &c
	}
	if c.Ratio <= 1 && c.RatioLo <= 1 && folded != nil {
		d.Choice = ChooseFolded
		d.Reason = fmt.Sprintf("the optimised model is not measurably faster (after/before %.3f, 99%% CI %.3f-%.3f); the folded model is not slower (%.3f, %.3f-%.3f)",
			d.Optimised.Ratio, d.Optimised.RatioLo, d.Optimised.RatioHi, c.Ratio, c.RatioLo, c.RatioHi)
		return d, nil
	}
	d.Choice = ChooseOriginal
	d.Reason = fmt.Sprintf("the optimised model is not measurably faster (after/before %.3f, 99%% CI %.3f-%.3f), nor is folding alone", d.Optimised.Ratio, d.Optimised.RatioLo, d.Optimised.RatioHi)
	return d, nil
}

// CompareModels loads a and b in be and compares them interleaved on
// inputs in (latency(b)/latency(a), see Compare).
func CompareModels(be Backend, a, b *graph.Model, in map[string]*graph.Tensor, opts MeasureOptions) (Comparison, error) {
	sa, err := be.Load(a)
	if err != nil {
		return Comparison{}, err
	}
	defer sa.Close()
	sb, err := be.Load(b)
	if err != nil {
		return Comparison{}, err
	}
	defer sb.Close()
	return Compare(sa, sb, in, in, opts)
}
