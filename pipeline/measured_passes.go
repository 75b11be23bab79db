package pipeline

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/defaults"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/rewrite"
)

// DefaultMeasuredPasses are the whole-graph passes tried on the result of
// every search or rollout and kept only when measurement says so: their
// worth depends on which fusions ONNX Runtime then forms (its Attention
// kernel, plain 2-D Gemm and LayerNormalization instead of its 3-D
// SkipLayerNormalization), which no cost model here can see. The fusion
// passes among them run on the graph canonicalised by the rules of
// rules.CanonicalFile (see PassesNamed). prune-dead-rows comes first so
// that the folded base is pruned too: the agent's rollout, whose choices
// follow the cost model's timings of the moment, sometimes misses the
// pruning and the fusions (HF BERT written at 1.12x in one run of
// several at 1.27-1.30x), and the folded base then has them.
var DefaultMeasuredPasses = []string{"prune-dead-rows", "ort-fusion-forms", "fuse-attention", "rows-2d"}

// MeasuredPasses tries the named whole-graph passes on two graphs: the
// verified model out (the search's or rollout's result) and the folded
// start graph, since the rewrites a cost model chose may undo the
// fusions the passes enable. On each, the passes apply in order (each
// only when it changes the graph, its result folded and checked in float64
// against the graph before it); a changed graph is verified against the
// original model at the tuning shape and timed, interleaved on the
// default backend, against the model chosen so far (out at first), and it
// replaces that model only when it is measurably faster (the 99%
// confidence interval of after/before below 1). It returns the models
// chosen in turn, out first and the model chosen last at the end, each
// verified at the tuning shape only: the other shapes and the user's
// inputs are checked once, for the model finally chosen (see
// verifiedEverywhere; on the corpus encoder they took 1.4 s a model, on
// ViT-B/16 most of a verification's time). A result that is the graph
// tried on the other base is not tried again. The layout passes
// (rewrite.Pass.Layout: rows-2d) are tried last and on their own, on the
// model chosen by then: on the GPT-2-style export the fusions with rows-2d
// measured 1.114x, without it 1.175x. A pass that fails or whose
// result differs is reported and skipped. allowed, when not empty, limits
// the passes to those it names (a --rules list). The trials made are
// returned beside them.
func (s *Start) MeasuredPasses(w io.Writer, out *graph.Model, names, allowed []string, m Measurement, tol float64, seed uint64) ([]*graph.Model, []PassTrial, error) {
	named, err := PassesNamed(names)
	if err != nil {
		return nil, nil, fmt.Errorf("measured passes: %w", err)
	}
	var passes, layouts []rewrite.Pass
	for _, p := range named {
		switch {
		case len(allowed) > 0 && !slices.Contains(allowed, p.Name):
		case p.Layout:
			layouts = append(layouts, p)
		default:
			passes = append(passes, p)
		}
	}
	type base struct {
		label string
		g     *graph.Graph
		note  string
		// layout: the base is the model chosen so far, tried with the
		// layout passes.
		layout bool
	}
	bases := []base{{"the search's result", out.Graph, "", false}, {"the folded model", s.Model.Graph, "; the search's rewrites are not in it", false}}
	if s.Model.Graph.CanonicalHash() == out.Graph.CanonicalHash() {
		bases = bases[:1]
	}
	if len(layouts) > 0 {
		bases = append(bases, base{"the model chosen so far", nil, "", true})
	}
	chain := []*graph.Model{out}
	var trials []PassTrial
	tried := map[graph.Hash]bool{}
	var latency time.Duration // the model chosen so far, as the last trial timed it
	for _, base := range bases {
		use := passes
		if base.layout {
			base.g, use = chain[len(chain)-1].Graph, layouts
		}
		g, applied := applyPasses(w, use, base.g, s.passCheck(seed))
		if len(applied) == 0 {
			continue
		}
		what := fmt.Sprintf("%s with %s", base.label, strings.Join(applied, ", "))
		h := g.CanonicalHash()
		if tried[h] {
			// The passes made one graph of both bases: timed once.
			fmt.Fprintf(w, "measured passes: %s is the graph tried before\n", what)
			trials = append(trials, PassTrial{Base: base.label, Passes: applied, Outcome: "the graph tried before"})
			continue
		}
		tried[h] = true
		fmt.Fprintf(w, "measured passes: verifying %s and timing it against the model chosen so far\n", what)
		cand, err := s.finishAtTuningOn(w, g, tol, seed, trialRuntimes())
		if errors.Is(err, ErrNotEquivalent) {
			fmt.Fprintf(w, "measured passes: %s left out: it did not verify\n", what)
			trials = append(trials, PassTrial{Base: base.label, Passes: applied, Outcome: "did not verify"})
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		pm := passTrialMeasurement(m)
		pm.Measure.MaxTime = min(pm.Measure.MaxTime, trialMaxTime(latency))
		c, err := s.compareOnBench(chain[len(chain)-1], cand, pm, seed)
		if err != nil {
			return nil, nil, fmt.Errorf("measured passes, %s: %w", what, err)
		}
		latency = c.A.Median
		timing := newTiming(c)
		trial := PassTrial{Base: base.label, Passes: applied, Timing: &timing}
		line := fmt.Sprintf("%v -> %v, after/before %.3f, 99%% CI %.3f-%.3f", c.A.Median.Round(time.Microsecond), c.B.Median.Round(time.Microsecond), c.Ratio, c.RatioLo, c.RatioHi)
		if c.RatioHi < 1 {
			fmt.Fprintf(w, "measured passes: %s kept: measurably faster (%s)%s\n", what, line, base.note)
			trial.Kept, trial.Outcome = true, "measurably faster"
			trials = append(trials, trial)
			chain = append(chain, cand)
			continue
		}
		fmt.Fprintf(w, "measured passes: %s left out: not measurably faster (%s)\n", what, line)
		trial.Outcome = "not measurably faster"
		trials = append(trials, trial)
	}
	return chain, trials, nil
}

// PassTrialMargin is the equivalence margin of a measured pass's timing:
// a trial whose 99% interval lies within ±2% of 1 (and not below 1)
// stops there, the pass left out, where never-slower's margin is
// --precision (1%). On ViT-B/16 a trial at 0.995 (99% CI 0.982-1.007)
// ran to the time cap to narrow its interval to ±1%; a pass gaining
// less than that is not worth the wait, and a pass shown faster is kept
// as before.
const PassTrialMargin = 0.02

// PassTrialMaxTime caps the timing of one measured pass: a pass not
// shown faster by then is left out, as one shown not faster is. A pass
// worth keeping (2% or more) shows it within a few seconds on the corpus
// transformers.
const PassTrialMaxTime = 5 * time.Second

// LaterTrialMaxTime caps the timing of every trial after the first (the
// folded base's and the layout passes'), which mostly confirm the model
// chosen by then: on the corpus encoder the folded model with the passes
// measured within 1% of it (0.98-1.04) and rows-2d on top of the fusions
// 0.99-1.01, each running to its cap every time, where a gain worth
// keeping shows in less: rows-2d's 5% on the GPT-2 style decoder, the
// folded BERT's 10% when the agent's rollout missed the fusions. At
// 1.2 s a model of a few milliseconds gets one look of the sequential
// test (12 blocks of 8 runs of each); at 2 s the encoder's two later
// trials took 4.6 s of its 19 s. A model slow enough that
// laterTrialPairs pairs take longer gets that long (at most
// PassTrialMaxTime): at 2 s, ViT-B/16's folded base (90 ms a run, 3%
// faster) was left undecided.
const LaterTrialMaxTime = 1200 * time.Millisecond

// laterTrialPairs is the least number of pairs of runs LaterTrialMaxTime
// leaves a trial.
const laterTrialPairs = 40

// trialMaxTime returns the cap of a measured pass's trial: PassTrialMaxTime
// for the first (latency 0: nothing timed yet), else LaterTrialMaxTime or
// the time of laterTrialPairs pairs of runs of latency, whichever is
// longer, within PassTrialMaxTime.
func trialMaxTime(latency time.Duration) time.Duration {
	if latency <= 0 {
		return PassTrialMaxTime
	}
	return min(PassTrialMaxTime, max(LaterTrialMaxTime, time.Duration(2*laterTrialPairs)*latency))
}

// Futility is the slowdown at which a measured pass's timing, or
// never-slower's, stops before its first look (measure.MeasureOptions.Futility):
// a model 5% slower after a third of that look's runs is not going to be
// shown faster.
const Futility = 0.05

// passTrialMeasurement returns m with its equivalence margin at least
// PassTrialMargin, its least gain worth timing for (MinGain) that
// margin, its time cap at most PassTrialMaxTime and Futility set.
func passTrialMeasurement(m Measurement) Measurement {
	m.Measure.Precision = max(m.Measure.Precision, PassTrialMargin)
	m.Measure.MinGain = PassTrialMargin
	m.Measure.Futility = Futility
	m.Measure.MaxTime = min(defaults.Positive(m.Measure.MaxTime, PassTrialMaxTime), PassTrialMaxTime)
	return m
}

// applyPasses applies passes to g in order and returns the result and the
// names of the passes that changed it; a pass that fails or whose result
// is not the same function (check) is reported to w and skipped.
func applyPasses(w io.Writer, passes []rewrite.Pass, g *graph.Graph, check rewrite.Checker) (*graph.Graph, []string) {
	var applied []string
	for _, p := range passes {
		next, err := applyChecked(p, g, check)
		if err != nil {
			fmt.Fprintf(w, "measured pass %s: not applied: %v\n", p.Name, err)
			continue
		}
		if next != nil {
			g, applied = next, append(applied, p.Name)
		}
	}
	return g, applied
}

// applyChecked applies p to g and returns the folded result when it
// changed g and computes what g does in float64 (check: the check the
// search's passes get); nil when p changed nothing.
func applyChecked(p rewrite.Pass, g *graph.Graph, check rewrite.Checker) (*graph.Graph, error) {
	next, changed, err := p.Apply(g)
	if err != nil || !changed {
		return nil, err
	}
	if err := rewrite.SameOutputShapes(g, next); err != nil {
		return nil, err
	}
	next, _, err = rewrite.Fold(next, executor.Evaluate)
	if err != nil {
		return nil, fmt.Errorf("folding: %w", err)
	}
	if err := check(g, next, p.Tolerance); err != nil {
		return nil, err
	}
	return next, nil
}

// passCheck returns the run's pass check of seed (passCheck's, sharing
// the float64 runs of the graphs it checks with the engine's passes).
func (s *Start) passCheck(seed uint64) rewrite.Checker {
	if s.passChecks == nil {
		return passCheck(seed)
	}
	return s.passChecks.check(seed)
}

// compareOnBench times a against b on the run's backend, interleaved, on
// its inputs (Start.bench).
func (s *Start) compareOnBench(a, b *graph.Model, m Measurement, seed uint64) (measure.Comparison, error) {
	be, in, err := s.bench(m, seed)
	if err != nil {
		return measure.Comparison{}, err
	}
	return measure.CompareModels(be, a, b, in, m.Measure)
}

// PassesNamed returns the shipped whole-graph passes with these names, in
// the given order (the fusion passes preceded by canonicalisation, see
// canonicalFirst), or an error naming the first unknown one and the known
// ones.
func PassesNamed(names []string) ([]rewrite.Pass, error) {
	var out []rewrite.Pass
	for _, name := range names {
		i := slices.IndexFunc(rewrite.Passes, func(p rewrite.Pass) bool { return p.Name == name })
		if i < 0 {
			known := make([]string, len(rewrite.Passes))
			for j, p := range rewrite.Passes {
				known[j] = p.Name
			}
			return nil, fmt.Errorf("unknown pass %q (known: %s)", name, strings.Join(known, ", "))
		}
		out = append(out, rewrite.Passes[i])
	}
	return canonicalFirst(out)
}
