package pipeline

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
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
// only when it changes the graph, its result folded); a changed graph is
// verified against the original model at the tuning shape and timed,
// interleaved on the default backend, against the model chosen so far
// (out at first), and it replaces that model only when it is measurably
// faster (the 99% confidence interval of after/before below 1) or, the
// trial ending undecided, leans faster (leansFaster; not for a layout
// pass), and every
// pass's step computes what the graph before it does, checked in float64
// then (checkSteps). It returns the models
// chosen in turn, out first and the model chosen last at the end, each
// verified at the tuning shape only: the other shapes and the user's
// inputs are checked once, for the model finally chosen (see
// verifiedEverywhere; on the corpus encoder they took 1.4 s a model, on
// ViT-B/16 most of a verification's time). A result that is the graph
// tried on the other base is not tried again. The layout passes
// (rewrite.Pass.Layout: rows-2d) are tried last and on their own, on the
// model chosen by then: on the GPT-2-style export the fusions with rows-2d
// measured 1.114x, without it 1.175x. A pass that fails is reported and
// skipped; a result whose check fails is reported and left out. allowed, when not empty, limits
// the passes to those it names (a --rules list). The trials made are
// returned beside them.
//
// A model of ShortLatency or more has its trials timed together
// (passTrials.joint): the results on both bases and out with the layout
// passes, each against out in one interleaved run, the fastest of those
// measurably faster kept (of those leaning faster, when none is); the
// layout passes are tried again on the model kept only when they changed
// nothing on out (retryLayouts). A shorter model's trials run one after
// the other.
func (s *Start) MeasuredPasses(w io.Writer, out *graph.Model, names, allowed []string, m Measurement, tol float64, seed uint64) ([]*graph.Model, []PassTrial, error) {
	named, err := PassesNamed(names)
	if err != nil {
		return nil, nil, fmt.Errorf("measured passes: %w", err)
	}
	t := &passTrials{s: s, w: w, m: m, tol: tol, seed: seed, chain: []*graph.Model{out}, tried: map[graph.Hash]bool{}, compareMany: measure.CompareMany}
	t.compare = func(a, b *graph.Model, m Measurement) (measure.Comparison, error) {
		return s.compareOnBench(a, b, m, seed)
	}
	for _, p := range named {
		switch {
		case len(allowed) > 0 && !slices.Contains(allowed, p.Name):
		case p.Layout:
			t.layouts = append(t.layouts, p)
		default:
			t.passes = append(t.passes, p)
		}
	}
	bases := []trialBase{{"the search's result", out.Graph, "", true}, {"the folded model", s.Model.Graph, "; the search's rewrites are not in it", false}}
	if s.Model.Graph.CanonicalHash() == out.Graph.CanonicalHash() {
		bases = bases[:1]
	}
	var cands []*passCandidate
	for _, b := range bases {
		c, err := t.build(b, t.passes)
		if err != nil {
			return nil, nil, err
		}
		if c != nil {
			cands = append(cands, c)
		}
	}
	// A model of ShortLatency or more times its trials together, with
	// out with the layout passes among them (layoutCand).
	joint := false
	var layoutCand *passCandidate
	if len(cands) > 1 || len(cands) == 1 && len(t.layouts) > 0 {
		lat, err := t.probe(out)
		if err != nil {
			return nil, nil, err
		}
		t.probed, joint = lat, lat >= jointTrialLatency
	}
	if joint && len(t.layouts) > 0 {
		c, err := t.build(trialBase{label: "the model chosen so far"}, t.layouts)
		if err != nil {
			return nil, nil, err
		}
		if c == nil {
			// The layout passes change nothing on out, or make a graph
			// tried already: not tried on it again.
			c = &passCandidate{}
		} else {
			cands = append(cands, c)
		}
		layoutCand = c
	}
	if joint && len(cands) > 1 {
		t.preload(cands)
	}
	var verified []*passCandidate
	for _, c := range cands {
		ok, err := t.verify(c)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			verified = append(verified, c)
		}
	}
	if joint && len(verified) > 1 {
		if err := t.joint(verified); err != nil {
			return nil, nil, err
		}
	} else {
		for _, c := range verified {
			if err := t.one(c); err != nil {
				return nil, nil, err
			}
		}
	}
	if len(t.layouts) > 0 && retryLayouts(layoutCand, t.chosen(), out) {
		// The layout passes on the model chosen.
		c, err := t.build(trialBase{label: "the model chosen so far"}, t.layouts)
		if err != nil {
			return nil, nil, err
		}
		if c != nil {
			ok, err := t.verify(c)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				if err := t.one(c); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	return t.chain, t.trials, nil
}

// retryLayouts reports whether the layout passes are tried on chosen, the
// model chosen by the other trials from out: always when they were not
// timed with those trials (layoutCand nil: a model under ShortLatency);
// when they were, only if they changed nothing on out (an empty
// layoutCand) and chosen is another model, on which they may. A layout
// result timed with the other trials and left out is not tried again on
// the model they chose: in the logs of twelve corpus checks, 125 runs
// tried rows-2d a second time that way after leaving it out, each a
// verification and a comparison of its own, and 2 kept it (after/before
// 0.980 and 0.986).
func retryLayouts(layoutCand *passCandidate, chosen, out *graph.Model) bool {
	if layoutCand == nil {
		return true
	}
	return layoutCand.model == nil && chosen != out
}

// jointTrialLatency is the latency from which MeasuredPasses times its
// trials together: measure.ShortLatency, under which a comparison runs
// over several session pairs (measure.SessionPairs), which
// measure.CompareMany does not. A variable for tests.
var jointTrialLatency = measure.ShortLatency

// trialBase is a graph the measured passes apply to: label names it in
// the report, note is said when a result of it is kept; a nil graph is
// the model chosen so far.
type trialBase struct {
	label string
	g     *graph.Graph
	note  string
	// searched marks the search's result: the passes on it are the
	// trial that gets PassTrialMaxTime (see capOf).
	searched bool
}

// passCandidate is a measured pass's result, verified at the tuning
// shape, waiting to be timed.
type passCandidate struct {
	base    trialBase
	applied []string
	what    string
	model   *graph.Model
	// steps are the passes' steps, checked in float64 only when the
	// result is to be kept (checkSteps).
	steps []passStep
}

// passTrials is the state of one MeasuredPasses call: the models chosen
// in turn, the trials made, the graphs tried and, once timed, the
// latency of the model chosen so far.
type passTrials struct {
	s               *Start
	w               io.Writer
	m               Measurement
	tol             float64
	seed            uint64
	passes, layouts []rewrite.Pass
	chain           []*graph.Model
	trials          []PassTrial
	tried           map[graph.Hash]bool
	// latency is the model chosen so far's, as the last trial timed it
	// (0 before the first); probed is a first reading of out's.
	latency, probed time.Duration
	// compare times a trial on its own (Start.compareOnBench),
	// compareMany trials together (measure.CompareMany); tests set others.
	compare     func(a, b *graph.Model, m Measurement) (measure.Comparison, error)
	compareMany func(a measure.Session, bs []measure.Session, in map[string]*graph.Tensor, opts []measure.MeasureOptions) ([]measure.Comparison, error)
}

// chosen returns the model chosen so far.
func (t *passTrials) chosen() *graph.Model { return t.chain[len(t.chain)-1] }

// build applies passes to b's graph (the model chosen so far when it
// has none) and folds the result; it returns nil, the trial recorded
// when there is one, when the passes change nothing or make a graph tried
// before.
func (t *passTrials) build(b trialBase, passes []rewrite.Pass) (*passCandidate, error) {
	if b.g == nil {
		b.g = t.chosen().Graph
	}
	g, applied, steps := applyPasses(t.w, passes, b.g)
	if len(applied) == 0 {
		return nil, nil
	}
	what := fmt.Sprintf("%s with %s", b.label, strings.Join(applied, ", "))
	h := g.CanonicalHash()
	if t.tried[h] {
		// The passes made one graph of both bases: timed once.
		fmt.Fprintf(t.w, "measured passes: %s is the graph tried before\n", what)
		t.trials = append(t.trials, PassTrial{Base: b.label, Passes: applied, Outcome: "the graph tried before"})
		return nil, nil
	}
	t.tried[h] = true
	m, err := t.s.finishGraph(t.w, g)
	if err != nil {
		return nil, err
	}
	return &passCandidate{base: b, applied: applied, what: what, model: m, steps: steps}, nil
}

// verify checks c's model against the original at the tuning shape on
// the trials' runtimes (trialRuntimes); false, the trial recorded, when
// it does not compute the same function.
func (t *passTrials) verify(c *passCandidate) (bool, error) {
	fmt.Fprintf(t.w, "measured passes: verifying %s\n", c.what)
	err := t.s.verifyOn(t.w, t.s.Orig, c.model, t.tol, t.seed, trialRuntimes())
	if errors.Is(err, ErrNotEquivalent) {
		fmt.Fprintf(t.w, "measured passes: %s left out: it did not verify\n", c.what)
		t.trials = append(t.trials, PassTrial{Base: c.base.label, Passes: c.applied, Outcome: "did not verify"})
		return false, nil
	}
	return err == nil, err
}

// preload loads the candidates' sessions on the run's backend, two at a
// time, and leaves them in the run's session pool for their verification
// and timing: ONNX Runtime optimises a graph as it loads it on one core,
// and ViT-B/16 took 0.5-0.7 s a load, two loads at once about as long.
// Without a pool, or on an error, nothing is loaded: the verification
// and the timing load what they need and report what fails.
func (t *passTrials) preload(cands []*passCandidate) {
	if t.s.sessions == nil {
		return
	}
	be, _, err := t.s.bench(t.m, t.seed)
	if err != nil {
		return
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, preloadWorkers)
	for _, c := range cands {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if sess, err := be.Load(c.model); err == nil {
				sess.Close()
			}
		}()
	}
	wg.Wait()
}

// preloadWorkers is the number of sessions preload loads at once.
const preloadWorkers = 2

// probe returns a first reading of m's latency on the run's backend.
func (t *passTrials) probe(m *graph.Model) (time.Duration, error) {
	be, in, err := t.s.bench(t.m, t.seed)
	if err != nil {
		return 0, err
	}
	lat, err := measure.ProbeLatency(be, measure.ModelFile{Model: m}, in)
	if err != nil {
		return 0, fmt.Errorf("measured passes, timing the model chosen so far: %w", err)
	}
	return lat, nil
}

// one times c against the model chosen so far, which c replaces when it
// is measurably faster (or leans so, see keeps); a trial undecided at a
// later trial's cap but leaning faster is timed again (timedAgain).
func (t *passTrials) one(c *passCandidate) error {
	fmt.Fprintf(t.w, "measured passes: timing %s against the model chosen so far\n", c.what)
	capped := t.capOf(c)
	cmp, err := t.timeAgainst(c, capped)
	if err != nil {
		return err
	}
	if !t.keeps(c, cmp) && timedAgain(cmp, capped) {
		return t.again(c, cmp, capped)
	}
	t.settle(c, cmp)
	return nil
}

// timeAgainst times c against the model chosen so far, the trial capped
// at capped, and notes the chosen model's latency.
func (t *passTrials) timeAgainst(c *passCandidate, capped time.Duration) (measure.Comparison, error) {
	pm := passTrialMeasurement(t.m)
	pm.Measure.MaxTime = min(pm.Measure.MaxTime, capped)
	cmp, err := t.compare(t.chosen(), c.model, pm)
	if err != nil {
		return cmp, fmt.Errorf("measured passes, %s: %w", c.what, err)
	}
	t.latency = cmp.A.Median
	return cmp, nil
}

// settle keeps c when its timing cmp does and its steps check in
// float64, and records the trial.
func (t *passTrials) settle(c *passCandidate, cmp measure.Comparison) {
	var failed error
	keep := t.keeps(c, cmp)
	if keep {
		failed = checkSteps(c.steps, measuredPassCheck(t.s, t.seed))
	}
	t.record(c, cmp, keep && failed == nil, "", failed)
}

// PassTrialExtendLean is the least gain at the medians with which a trial
// that ended undecided at a later trial's cap is timed again, for up to
// PassTrialMaxTime (timedAgain).
const PassTrialExtendLean = 0.03

// timedAgain reports whether a trial whose timing cmp, capped at capped,
// keeps nothing is timed again with PassTrialMaxTime: when it ran to a
// cap shorter than that, undecided (not stopped as futile, as gaining too
// little or as dominated), with its median ratio PassTrialExtendLean or
// more below 1. On the corpus's torch decoder the folded model with the
// fusions read 0.915 and 0.903 (99% CIs 0.852-1.027 and 0.782-1.028) at
// the later trials' 1.2 s cap in two of three runs, was left out, and the
// original was written, where the third run kept it and wrote a model
// 1.15x faster.
func timedAgain(cmp measure.Comparison, capped time.Duration) bool {
	return capped < PassTrialMaxTime && cmp.Verdict == measure.Undecided && !cmp.Futile && !cmp.SmallGain && !cmp.Dominated &&
		cmp.Ratio <= 1-PassTrialExtendLean
}

// again records c's first timing cmp, which ended undecided at capped
// leaning faster (timedAgain), then times c again against the model chosen
// so far with PassTrialMaxTime, and settles the trial on that timing
// alone.
func (t *passTrials) again(c *passCandidate, cmp measure.Comparison, capped time.Duration) error {
	timing := newTiming(cmp)
	fmt.Fprintf(t.w, "measured passes: %s leans faster at its %v cap (%s): timed again, for up to %v\n", c.what, capped, ratioLine(cmp), PassTrialMaxTime)
	t.trials = append(t.trials, PassTrial{Base: c.base.label, Passes: c.applied, Timing: &timing, Outcome: "undecided at its cap, leaning faster: timed again"})
	cmp, err := t.timeAgainst(c, PassTrialMaxTime)
	if err != nil {
		return err
	}
	t.settle(c, cmp)
	return nil
}

// keeps reports whether a trial's timing cmp keeps c: measurably faster
// (the 99% interval of after/before below 1), or, for a pass other than
// a layout pass, leaning faster (leansFaster).
func (t *passTrials) keeps(c *passCandidate, cmp measure.Comparison) bool {
	return cmp.RatioHi < 1 || !t.layoutOnly(c) && leansFaster(cmp)
}

// layoutOnly reports whether every pass c applied is a layout pass.
func (t *passTrials) layoutOnly(c *passCandidate) bool {
	for _, name := range c.applied {
		if !slices.ContainsFunc(t.layouts, func(p rewrite.Pass) bool { return p.Name == name }) {
			return false
		}
	}
	return len(c.applied) > 0
}

// PassTrialLean is the least gain at the medians with which a trial that
// ends undecided keeps a pass's result (leansFaster).
const PassTrialLean = 0.01

// leansFaster reports whether an undecided trial's timing cmp still
// favours the pass's result: its median at least PassTrialLean lower and
// its 99% interval ruling out a slowdown of PassTrialMargin, the trials'
// equivalence margin. A pass that gains 2-3% often ends its capped trial
// with an interval reaching just above 1 on a busy 2-core machine (on the
// corpus Swin, the folded model with the fusions at 0.980, 99% CI
// 0.952-1.014, in a run that wrote a model 1.117x faster than the
// original against 1.14-1.15x in the others; the corpus encoder's folded
// base with the fusions at 0.974, 0.948-1.001), and leaving it out then
// wrote a model a few percent slower. Never-slower still compares the model written with
// the original. Layout passes (rows-2d) are kept only when measurably
// faster: their trials mostly end at 0.99-1.00, with no gain to lean on.
func leansFaster(cmp measure.Comparison) bool {
	return cmp.Ratio <= 1-PassTrialLean && cmp.RatioHi < 1+PassTrialMargin
}

// joint times cands together against the model chosen so far
// (measure.CompareMany), each with the cap a trial of its own would have
// (capOf), and keeps the fastest of those measurably faster; one shown
// slower than another shown faster is timed no further
// (measure.MeasureOptions.StopDominated). When none is kept, the one
// leaning furthest faster at a cap shorter than PassTrialMaxTime is timed
// again on its own (timedAgain).
func (t *passTrials) joint(cands []*passCandidate) error {
	be, in, err := t.s.bench(t.m, t.seed)
	if err != nil {
		return err
	}
	whats := make([]string, len(cands))
	for i, c := range cands {
		whats[i] = c.what
	}
	fmt.Fprintf(t.w, "measured passes: timing %s against the model chosen so far, together\n", strings.Join(whats, "; "))
	a, err := be.Load(t.chosen())
	if err != nil {
		return fmt.Errorf("measured passes: loading the model chosen so far: %w", err)
	}
	var bs []measure.Session
	// The sessions go back to the run's pool before a trial is timed
	// again, which then reuses them instead of loading two more.
	release := sync.OnceFunc(func() {
		a.Close()
		measure.CloseAll(bs)
	})
	defer release()
	opts := make([]measure.MeasureOptions, len(cands))
	for i, c := range cands {
		b, err := be.Load(c.model)
		if err != nil {
			return fmt.Errorf("measured passes, %s: %w", c.what, err)
		}
		bs = append(bs, b)
		pm := passTrialMeasurement(t.m)
		pm.Measure.MaxTime = min(pm.Measure.MaxTime, t.capOf(c))
		// Only the fastest of those shown faster is kept: one shown
		// slower than another that is shown faster stops.
		pm.Measure.StopDominated = true
		opts[i] = pm.Measure
	}
	cmps, err := t.compareMany(a, bs, in, opts)
	if err != nil {
		return fmt.Errorf("measured passes, timing %s: %w", strings.Join(whats, "; "), err)
	}
	// The fastest of those measurably faster whose steps check in
	// float64 is kept; with none, the fastest of those leaning faster.
	var faster, leaning []int
	for i, c := range cmps {
		switch {
		case c.RatioHi < 1:
			faster = append(faster, i)
		case t.keeps(cands[i], c):
			leaning = append(leaning, i)
		}
	}
	if len(faster) == 0 {
		faster = leaning
	}
	slices.SortStableFunc(faster, func(i, j int) int { return cmp.Compare(cmps[i].Ratio, cmps[j].Ratio) })
	best := -1
	failed := make([]error, len(cands))
	for _, i := range faster {
		if failed[i] = checkSteps(cands[i].steps, measuredPassCheck(t.s, t.seed)); failed[i] == nil {
			best = i
			break
		}
	}
	// With none kept, the one leaning furthest faster at a later
	// trial's cap is timed again (timedAgain).
	again := -1
	for i, c := range cmps {
		if best >= 0 {
			break
		}
		if timedAgain(c, opts[i].MaxTime) && (again < 0 || c.Ratio < cmps[again].Ratio) {
			again = i
		}
	}
	t.latency = cmps[0].A.Median
	for i, c := range cands {
		why := ""
		if best >= 0 && i != best && slices.Contains(faster, i) && failed[i] == nil {
			why = fmt.Sprintf("%s was faster still", cands[best].what)
		}
		if i != again {
			t.record(c, cmps[i], i == best, why, failed[i])
		}
	}
	if again >= 0 {
		release()
		return t.again(cands[again], cmps[again], opts[again].MaxTime)
	}
	return nil
}

// record reports c's timing cmp against the model chosen so far and
// makes c the model chosen when kept; why, when not empty, says why a
// measurably faster c was not, failed that its steps did not check in
// float64.
func (t *passTrials) record(c *passCandidate, cmp measure.Comparison, kept bool, why string, failed error) {
	timing := newTiming(cmp)
	trial := PassTrial{Base: c.base.label, Passes: c.applied, Timing: &timing}
	line := ratioLine(cmp)
	how := "measurably faster"
	if cmp.RatioHi >= 1 {
		how = fmt.Sprintf("faster at the medians by %.0f%% or more, not shown slower by %.0f%%", 100*PassTrialLean, 100*PassTrialMargin)
	}
	switch {
	case failed != nil:
		fmt.Fprintf(t.w, "measured passes: %s left out: %s (%s), but a pass's result does not compute what the graph before it does: %v\n", c.what, how, line, failed)
		trial.Outcome = "a pass's result did not verify in float64"
	case kept:
		fmt.Fprintf(t.w, "measured passes: %s kept: %s (%s)%s\n", c.what, how, line, c.base.note)
		trial.Kept, trial.Outcome = true, how
		t.chain = append(t.chain, c.model)
	case why != "":
		fmt.Fprintf(t.w, "measured passes: %s left out: %s, but %s (%s)\n", c.what, how, why, line)
		trial.Outcome = how + ", but another was faster still"
	case cmp.Dominated:
		fmt.Fprintf(t.w, "measured passes: %s left out: slower than another shown faster, timed no further (%s)\n", c.what, line)
		trial.Outcome = "slower than another shown faster"
	default:
		fmt.Fprintf(t.w, "measured passes: %s left out: not measurably faster (%s)\n", c.what, line)
		trial.Outcome = "not measurably faster"
	}
	t.trials = append(t.trials, trial)
}

// ratioLine formats a trial's timing for its progress line.
func ratioLine(cmp measure.Comparison) string {
	return fmt.Sprintf("%v -> %v, after/before %.3f, 99%% CI %.3f-%.3f", cmp.A.Median.Round(time.Microsecond), cmp.B.Median.Round(time.Microsecond), cmp.Ratio, cmp.RatioLo, cmp.RatioHi)
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

// LaterTrialMaxTime caps the timing of every trial but the search's
// result's (the folded base's and the layout passes'; capOf), which
// mostly confirm the model chosen by then: on the corpus encoder the folded model with the passes
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

// capOf returns the time cap of c's trial: PassTrialMaxTime for the
// passes on the search's result, and for the others (the folded base's,
// the layout passes'), which mostly confirm the model chosen,
// trialMaxTime of the latency known of the model chosen so far
// (LaterTrialMaxTime when none is). The folded base's trial had the first
// trial's cap whenever the passes changed nothing on the search's result
// (its rollout had made the fusions itself): on the corpus encoder it
// then ran to 5 s, within 1% of the model chosen, in most runs.
func (t *passTrials) capOf(c *passCandidate) time.Duration {
	if c.base.searched {
		return PassTrialMaxTime
	}
	if lat := cmp.Or(t.latency, t.probed); lat > 0 {
		return trialMaxTime(lat)
	}
	return LaterTrialMaxTime
}

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

// applyPasses applies passes to g in order and returns the result, the
// names of the passes that changed it and the steps they made, each to be
// checked in float64 (checkSteps) before the result is kept; a pass that
// fails, or changes the output shapes, is reported to w and skipped.
func applyPasses(w io.Writer, passes []rewrite.Pass, g *graph.Graph) (*graph.Graph, []string, []passStep) {
	var applied []string
	var steps []passStep
	for _, p := range passes {
		next, err := applyFolded(p, g)
		if err != nil {
			fmt.Fprintf(w, "measured pass %s: not applied: %v\n", p.Name, err)
			continue
		}
		if next != nil {
			steps = append(steps, passStep{pass: p, before: g, after: next})
			g, applied = next, append(applied, p.Name)
		}
	}
	return g, applied, steps
}

// applyFolded applies p to g and returns the folded result when it
// changed g, with the output shapes it had; nil when p changed nothing.
func applyFolded(p rewrite.Pass, g *graph.Graph) (*graph.Graph, error) {
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
	return next, nil
}

// measuredPassCheck returns the check of a measured pass's steps: the
// run's pass check of seed (Start.passCheck). A variable for tests.
var measuredPassCheck = (*Start).passCheck

// passStep is one pass's application: the graph it rewrote and its
// folded result.
type passStep struct {
	pass          rewrite.Pass
	before, after *graph.Graph
}

// checkSteps checks that every step computes what the graph before it
// does, in float64 (check: the check the search's passes get), and
// returns the first that does not, named. The measured passes check the
// steps of a result only once it is to be kept: on ViT-B/16 the checks of
// three candidates took 5.6 s, and none was kept.
func checkSteps(steps []passStep, check rewrite.Checker) error {
	for _, st := range steps {
		if err := check(st.before, st.after, st.pass.Tolerance); err != nil {
			return fmt.Errorf("%s: %w", st.pass.Name, err)
		}
	}
	return nil
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
