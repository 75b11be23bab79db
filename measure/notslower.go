package measure

import (
	"fmt"
	"time"

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

// FoldedMaxTime caps the timing of the folded model against the
// original, which DecideNotSlower does when the optimised model is not
// shown faster, within what the optimised model's comparison left of
// MaxTime: both share one budget. Folding alone seldom gains; a folded
// model of the PaddleOCR-sized MobileNetV3, within 1% of its original,
// ran to the 1,000-block cap (20 s) without a verdict. One gaining 2% or
// more shows it well within this time; an undecided one leaves the
// original written, as does a budget with less than minFoldedTime left.
const (
	FoldedMaxTime = 5 * time.Second
	minFoldedTime = time.Second
)

// DecideNotSlower implements "never slower": it times the optimised model
// against the original (its file when be can load one, see ModelFile),
// interleaved in be on the same inputs (Compare's sequential test), and
// chooses it only when the test shows it faster by a margin: the 99%
// confidence interval of its speedup, a ratio of medians, starts at least
// SingleGainMargin above 1 (ShortGainMargin over several session pairs;
// see shownFaster), a faster model being timed on until it does or the
// cap comes (MeasureOptions.GainMargin). Otherwise it tests the folded model
// (nil: none) the same way and chooses it under the same rule, else the
// original (the folded model timed for at most FoldedMaxTime, within
// what is left of opts.MaxTime). An
// interval within the equivalence margin of 1 is not enough:
// a model that is no faster than the original is not worth a different
// file. sameAsFolded tells that optimised and folded are one graph (no
// rewrite was applied), so it is measured once.
func DecideNotSlower(be Backend, orig ModelFile, folded, optimised *graph.Model, sameAsFolded bool, in map[string]*graph.Tensor, opts MeasureOptions) (Decision, error) {
	var d Decision
	// Time a faster model on until it shows the gain it is written for.
	opts.GainMargin = max(opts.GainMargin, SingleGainMargin)
	c, err := CompareModelFiles(be, orig, ModelFile{Model: optimised}, in, in, opts)
	if err != nil {
		return d, fmt.Errorf("timing the optimised model: %w", err)
	}
	d.Optimised = c
	if shownFaster(c) {
		d.Choice = ChooseOptimised
		d.Reason = "the optimised model is faster (" + speedupText(c) + ")"
		return d, nil
	}
	if folded != nil && !sameAsFolded {
		fopts := opts
		fopts.MaxTime = min(opts.withDefaults().MaxTime-c.Elapsed, FoldedMaxTime)
		if fopts.MaxTime < minFoldedTime {
			d.Choice = ChooseOriginal
			d.Reason = "the optimised model is not shown faster (" + speedupText(c) + "); the time for the folded one is spent"
			return d, nil
		}
		f, err := CompareModelFiles(be, orig, ModelFile{Model: folded}, in, in, fopts)
		if err != nil {
			return d, fmt.Errorf("timing the folded model: %w", err)
		}
		d.Folded = &f
		if shownFaster(f) {
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

// ShortGainMargin is the least speedup, at the low end of its 99%
// interval, for which DecideNotSlower writes a model other than the
// original when the comparison rotated through several session pairs (a
// model under ShortLatency, see SessionPairs). Separate processes time
// such models a few percent apart, beyond what the interval of one
// process covers: SqueezeNet 1.1 (255 µs) was printed 1.039x (99% CI
// 1.023-1.054) and 1.036x (1.020-1.051) by two runs and measured 0.989x
// and 1.001-1.010x by the independent check; MobileNetV2's written
// models, printed 1.01-1.03x, measured 0.994x; a folded
// squeezenet1_1_dyn printed 1.026x measured 0.997x (docs/perf.md).
// Rewrites that gain less than this on a sub-millisecond model are not
// worth a file that may run slower.
const ShortGainMargin = 0.03

// SingleGainMargin is ShortGainMargin for a comparison of one session
// pair (a model of a millisecond or more): separate sessions of such a
// model run it about a percent apart, which one pair's interval does not
// cover. efficientnet_b0 (1.67 ms a run) had its folded model written at
// 1.012x (99% CI 1.004-1.021) and at 1.025x (1.008-1.041); the
// independent check measured 0.989x and 0.994x, and its original
// against a copy of itself 0.989-1.014x. A gain of under a percent is not
// worth a file that another session may run slower.
const SingleGainMargin = 0.01

// shownFaster reports whether c shows B faster enough to write it: its
// verdict Faster and the low end of its speedup's interval at least 1 +
// SingleGainMargin, or 1 + ShortGainMargin over several session pairs.
func shownFaster(c Comparison) bool {
	return c.Verdict == Faster && c.showsGain(gainMargin(c))
}

// gainMargin returns the least gain, at the low end of c's interval, for
// which DecideNotSlower writes B.
func gainMargin(c Comparison) float64 { return minGain(SingleGainMargin, c.Sessions) }

// speedupText formats a comparison's speedup, interval and verdict:
// "speedup 1.232x, 99% CI 1.220-1.243, faster"; a faster model that
// shownFaster refuses says so.
func speedupText(c Comparison) string {
	lo, hi := c.SpeedupCI()
	s := fmt.Sprintf("speedup %.3fx, 99%% CI %.3f-%.3f, %v", c.Speedup(), lo, hi, c.Verdict)
	if c.Verdict == Faster && !shownFaster(c) {
		what := "a model"
		if c.Sessions > 1 {
			what = "a sub-millisecond model"
		}
		s += fmt.Sprintf(", but %s is written only when the interval starts %.0f%% above 1, what separate sessions time it apart", what, 100*gainMargin(c))
	}
	return s
}
