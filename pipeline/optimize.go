package pipeline

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/ppo/builtin"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/search"
)

// Config is one optimisation run: which model, how to improve it, how to
// check and where to write the result.
type Config struct {
	// Model is the input ONNX file; Shapes binds its inputs' dims.
	Model  string
	Shapes map[string][]int
	// Rules restricts the rule set to these names (empty: all rules).
	Rules []string
	// RulesFile adds the rules of a user's .rules file; every one must
	// pass verification or the run stops before it starts.
	RulesFile string
	// Output is the file the verified result is written to.
	Output string
	// Latency names the latency model that guides the search: "cost"
	// (default), "go" or "ort".
	Latency string
	// Measurement configures the backends that measure latency.
	Measurement Measurement
	// Search names the algorithm (see search.Algorithms; default "taso")
	// and Search options configure it (its Seed also seeds verification).
	Search        string
	SearchOptions search.Options
	// Agent, when set, is a trained policy checkpoint that rewrites the
	// graph instead of the search ("builtin": the agent embedded in the
	// binary, package ppo/builtin); Samples adds sampled rollouts.
	Agent   string
	Samples int
	// Patience ends each rollout after that many steps in a row without a
	// new best graph (0: only No-Op, no candidates or the horizon end it).
	Patience int
	// Tolerance is the largest relative error accepted by verification.
	Tolerance float64
	// Objective is what the search or agent minimises: measure.
	// ObjectiveLatency (default), ObjectiveMemory (the executor's planned
	// peak memory) or ObjectiveBoth (their geometric mean).
	Objective string
	// Specialize freezes the written model's interface to Shapes (every
	// symbolic dimension bound to its tuning size), as fixed-shape
	// superoptimisers do. Without it the written model keeps the
	// original's symbolic dimensions: Shapes is then only the tuning shape
	// that the cost model and the measurements use, every rewrite must
	// hold at every size, and the result is verified at other bindings
	// too (Start.VerifyShapes).
	Specialize bool
	// Sweep lists extra shapes never-slower decides on ("NAME=DIMS", see
	// Interface.ParseSweep); empty: Interface.DefaultSweep. Only for
	// models whose symbolic dimensions are kept.
	Sweep []string
	// MeasuredPasses are whole-graph passes tried on the result and kept
	// only when faster end to end, measurably or leaning so (see
	// Start.MeasuredPasses; DefaultMeasuredPasses is what xrl optimize
	// uses). Latency objective only.
	MeasuredPasses []string
	// Inputs are the user's own input sets (inputs.Read): the written
	// model is verified on them as well as on random inputs.
	Inputs []inputs.Set
	// ProfileOps profiles the original and the written model in ONNX
	// Runtime and reports the time per operator type (Report.OpProfile).
	ProfileOps bool
}

// Optimize runs the whole flow for cfg, printing progress lines to w:
// load, bind, fold, search (or the agent's rollouts), fold, verify,
// choose what to write (never slower), write. It returns the run's
// Report, whose summary (WriteText) follows the progress lines.
func Optimize(w io.Writer, cfg Config) (*Report, error) {
	t0 := time.Now()
	prepare := PrepareDynamic
	if cfg.Specialize {
		prepare = PrepareWith
	}
	s, err := prepare(cfg.Model, cfg.Shapes, RuleChoice{Names: cfg.Rules, File: cfg.RulesFile})
	if err != nil {
		return nil, err
	}
	if err := checkMemory(cfg, s); err != nil {
		return nil, err
	}
	if s.Interface.Dynamic() {
		s.Sweep, s.defaultSweep = s.Interface.DefaultSweep(), len(cfg.Sweep) == 0
		if len(cfg.Sweep) > 0 {
			if s.Sweep, err = s.Interface.ParseSweep(cfg.Sweep); err != nil {
				return nil, err
			}
		}
	} else if len(cfg.Sweep) > 0 {
		return nil, fmt.Errorf("--sweep: %s has no symbolic input dimensions to sweep (or --specialize fixed them)", cfg.Model)
	}
	pool, err := s.UseSessionPool(cfg.Model)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	log := newRunLog(w)
	w = log
	s.Inputs = cfg.Inputs
	reportInterface(w, s)
	rep := &Report{Model: cfg.Model, Output: cfg.Output, Interface: interfaceReport(s), MeasuredPasses: []PassTrial{}, Rules: []search.RuleStat{}}
	var times Times
	times.Prepare = time.Since(t0)
	// Every method starts by expanding the start graph; its first
	// expansion is the slowest (whole-graph passes are verified on the
	// executor and constants folded, then memoised), so it is done here
	// once and counted as shared time.
	tExpand := time.Now()
	if _, err := rewrite.CandidatesOfLazy(s.Engine, s.Model.Graph, false); err != nil {
		return nil, fmt.Errorf("%s: expanding the start graph: %w", cfg.Model, err)
	}
	times.Expand = time.Since(tExpand)
	tSearch := time.Now()
	best, err := s.rewrite(w, cfg, t0, rep)
	if err != nil {
		return nil, err
	}
	times.Search = time.Since(tSearch)
	tVerify := time.Now()
	verified, rejected, err := s.FinishOrFolded(w, best, cfg.Tolerance, cfg.SearchOptions.Seed)
	if err != nil {
		return nil, err
	}
	rep.Verification.Rejected = rejected
	if rejected {
		best, rep.Method.Best = s.Model.Graph, rep.Method.Initial
	}
	if m := rep.Method; m.Kind == methodSearch {
		fmt.Fprintf(w, "search: %s, stop reason %q, %d steps, %d latency queries, %v\n",
			m.Name, m.StopReason, m.Steps, m.Evaluations, m.Elapsed.Round(time.Millisecond))
	}
	times.Verify = time.Since(tVerify)
	tMeasure := time.Now()
	var everywhere *graph.Model
	if rejected {
		everywhere = verified
	}
	out, err := s.chooseOutput(w, cfg, rep, &times, best, verified, everywhere)
	if err != nil {
		return nil, err
	}
	rep.Memory = plannedMemory(s.Orig, out)
	if err := s.WriteModel(cfg.Output, cfg.Model, out); err != nil {
		return nil, err
	}
	rep.Copied = out == s.Orig
	rep.Nodes = Change{Before: len(s.Orig.Graph.Nodes), After: len(out.Graph.Nodes)}
	rep.Verification.Runtimes = log.runtimeChecks(out)
	if out != s.Orig && s.Interface.Dynamic() {
		for _, b := range s.Interface.VerifyBindings() {
			rep.Verification.Bindings = append(rep.Verification.Bindings, b.String())
		}
	}
	if cfg.ProfileOps {
		tProfile := time.Now()
		rep.OpProfile = s.ProfileOps(w, cfg.Model, cfg.Output, out, cfg.Measurement, cfg.SearchOptions.Seed)
		times.Profile = time.Since(tProfile)
	}
	times.Measure, times.Total = time.Since(tMeasure), time.Since(t0)
	rep.Times = times
	return rep, nil
}

// rewrite runs the search or the agent's rollouts that cfg asks for from
// s.Model, describes it and the rules it applied in rep and returns the
// best graph found.
func (s *Start) rewrite(w io.Writer, cfg Config, t0 time.Time, rep *Report) (*graph.Graph, error) {
	m := &rep.Method
	lmName := cfg.Latency
	if lmName == "" {
		lmName = "cost"
	}
	m.Objective = cfg.Objective
	if m.Objective == "" {
		m.Objective = measure.ObjectiveLatency
	}
	if cfg.Agent != "" && cfg.Search == "brkga" {
		// The trained policy biases BRKGA's decoding instead of acting.
		net, _, err := LoadPolicy(cfg.Agent)
		if err != nil {
			return nil, err
		}
		cfg.SearchOptions.Prior = net
		cfg.Agent = ""
	}
	if cfg.Agent != "" {
		net, pcfg, err := LoadPolicy(cfg.Agent)
		if err != nil {
			return nil, err
		}
		lm, err := objectiveModel(cfg.Objective, lmName, cfg.Measurement)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "optimising %s (%d nodes) with the policy %s minimising %s\n", cfg.Model, len(s.Orig.Graph.Nodes), cfg.Agent, scorerName(lm))
		if cfg.Agent == builtin.Name {
			_, prov, _ := builtin.Load()
			fmt.Fprintf(w, "built-in agent: trained by %q on %d models, %d episodes of %s rewards (commit %s, %s)\n",
				prov.Script, len(prov.Models), prov.Episodes, prov.Runtime, prov.Commit, prov.Date)
		}
		var deadline time.Time
		if cfg.SearchOptions.TimeLimit > 0 {
			deadline = t0.Add(cfg.SearchOptions.TimeLimit)
		}
		ar, err := s.RunPolicy(w, net, lm, PolicyOptions{Horizon: pcfg.Horizon, MaxCandidates: pcfg.MaxCandidates, CandidateGains: pcfg.CandidateGains, NoOpAfter: pcfg.NoOpAfter,
			Samples: cfg.Samples, Seed: cfg.SearchOptions.Seed, Deadline: deadline, Patience: cfg.Patience})
		if err != nil {
			return nil, err
		}
		if err := saveCostCache(lm); err != nil {
			return nil, err
		}
		*m = MethodReport{Kind: methodAgent, Name: cfg.Agent, Objective: m.Objective, LatencyModel: lm.Name(),
			StopReason: ar.Best.StopReason, Steps: ar.Steps, Rollouts: ar.Rollouts,
			Initial: ar.Best.InitialLatency, Best: ar.Best.BestLatency, Elapsed: ar.Elapsed}
		rep.Rules = append(rep.Rules, ruleCounts(ar.Best.Applied)...)
		return ar.Best.Best, nil
	}
	lm, err := objectiveModel(cfg.Objective, lmName, cfg.Measurement)
	if err != nil {
		return nil, err
	}
	alg := cfg.Search
	if alg == "" {
		alg = "taso"
	}
	fmt.Fprintf(w, "optimising %s (%d nodes) with %s search minimising %s\n", cfg.Model, len(s.Orig.Graph.Nodes), alg, scorerName(lm))
	sr, err := s.Search(alg, lm, cfg.SearchOptions)
	if err != nil {
		return nil, err
	}
	if err := saveCostCache(lm); err != nil {
		return nil, err
	}
	*m = MethodReport{Kind: methodSearch, Name: sr.Algorithm, Objective: m.Objective, LatencyModel: lm.Name(),
		StopReason: sr.StopReason, Steps: sr.Steps, Evaluations: sr.Evaluations,
		Initial: sr.InitialLatency, Best: sr.BestLatency, Elapsed: sr.Elapsed}
	rep.Rules = append(rep.Rules, sr.RuleStats()...)
	return sr.Best, nil
}

// chooseOutput picks the model to write from verified, the result of
// best verified at the tuning shape (everywhere: verified at every shape
// already, when it is the folded model FinishOrFolded fell back to): under
// the latency objective the measured passes and the never-slower decision
// choose it; under the others it is verified itself, measured for the
// progress lines. A model the never-slower decision picks is verified at
// the other shapes and on the user's inputs before it is written (see
// verifiedEverywhere; the model chosen before it is timed in its place when
// it fails there), and none is when the original is written. It fills rep's decision, measured passes, memory
// figures and rules, and the parts of times it measures.
func (s *Start) chooseOutput(w io.Writer, cfg Config, rep *Report, times *Times, best *graph.Graph, verified, everywhere *graph.Model) (*graph.Model, error) {
	m := &rep.Method
	if m.Objective != measure.ObjectiveLatency {
		m.InitialBytes, m.BestBytes = reportObjective(w, cfg.Objective, s.Model.Graph, best, m.Initial, m.Best)
		t0 := time.Now()
		out, err := s.checkEverywhere(w, cfg, rep, []*graph.Model{verified}, everywhere)
		times.Everywhere = time.Since(t0)
		if err != nil {
			return nil, err
		}
		return out, ReportMeasured(w, s.Orig, out, cfg.Measurement, cfg.SearchOptions.Seed)
	}
	fmt.Fprintf(w, "%s latency: %v -> %v (%.3fx)\n", m.LatencyModel, m.Initial.Round(time.Microsecond), m.Best.Round(time.Microsecond),
		float64(m.Initial)/float64(m.Best))
	chain := []*graph.Model{verified}
	t0 := time.Now()
	if len(cfg.MeasuredPasses) > 0 {
		var trials []PassTrial
		var err error
		if chain, trials, err = s.MeasuredPasses(w, verified, cfg.MeasuredPasses, cfg.Rules, cfg.Measurement, cfg.Tolerance, cfg.SearchOptions.Seed); err != nil {
			return nil, err
		}
		rep.MeasuredPasses = append(rep.MeasuredPasses, trials...)
	}
	// No pass is checked after this: the values kept for the checks go
	// (on ViT-B/16, a gigabyte).
	s.passChecks.forget()
	times.Passes = time.Since(t0)
	// Never slower: the measured decision picks what is written. The
	// model it picks is checked at the other shapes only then.
	check := s.everywhereCheck(w, cfg, rep, times, chain, everywhere)
	t0 = time.Now()
	out, d, err := s.ChooseNotSlower(w, cfg.Model, chain[len(chain)-1], cfg.Measurement, cfg.Tolerance, cfg.SearchOptions.Seed, check)
	times.Sweep = s.sweepTime
	times.NotSlower = time.Since(t0) - times.Sweep - times.Everywhere
	if err != nil {
		return nil, err
	}
	rep.Decision = newDecisionReport(measure.DefaultBackendName(), d)
	rep.Decision.Sweep = sweptTimings(s.swept)
	return out, nil
}

// everywhereCheck returns the check ChooseNotSlower makes of the model it
// picks: checkEverywhere on chain up to that model (the model itself when
// chain does not hold it), a model it returned before returned as it is;
// its time is added to times.Everywhere.
func (s *Start) everywhereCheck(w io.Writer, cfg Config, rep *Report, times *Times, chain []*graph.Model, everywhere *graph.Model) func(*graph.Model) (*graph.Model, error) {
	done := map[*graph.Model]bool{}
	return func(m *graph.Model) (*graph.Model, error) {
		if done[m] {
			return m, nil
		}
		t0 := time.Now()
		defer func() { times.Everywhere += time.Since(t0) }()
		upTo := []*graph.Model{m}
		if i := slices.Index(chain, m); i >= 0 {
			upTo = chain[:i+1]
		}
		out, err := s.checkEverywhere(w, cfg, rep, upTo, everywhere)
		done[out] = true
		return out, err
	}
}

// checkEverywhere is verifiedEverywhere on chain, the models chosen in
// turn, reporting in rep the measured passes' results it dropped and, when
// it dropped the search's result, that the search's result was rejected.
func (s *Start) checkEverywhere(w io.Writer, cfg Config, rep *Report, chain []*graph.Model, everywhere *graph.Model) (*graph.Model, error) {
	out, dropped, rejected, err := s.verifiedEverywhere(w, chain, everywhere, cfg.Tolerance, cfg.SearchOptions.Seed)
	if err != nil {
		return nil, err
	}
	for i := len(rep.MeasuredPasses) - 1; i >= 0 && dropped > 0; i-- {
		if t := &rep.MeasuredPasses[i]; t.Kept {
			t.Kept, t.Outcome = false, "did not verify at the other shapes"
			dropped--
		}
	}
	if rejected {
		rep.Verification.Rejected, rep.Method.Best = true, rep.Method.Initial
	}
	return out, nil
}

// interfaceReport describes the interface s writes.
func interfaceReport(s *Start) InterfaceReport {
	if s.Interface == nil {
		return InterfaceReport{Specialised: true}
	}
	if !s.Interface.Dynamic() {
		return InterfaceReport{}
	}
	return InterfaceReport{Symbolic: true, Tuning: ShapeBinding(s.Interface.Symbols)}
}

// Search runs the named algorithm (a key of search.Algorithms) from
// s.Model with the latency model lm.
func (s *Start) Search(algorithm string, lm measure.LatencyModel, opts search.Options) (*search.Result, error) {
	run, ok := search.Algorithms[algorithm]
	if !ok {
		return nil, fmt.Errorf("no search algorithm named %q", algorithm)
	}
	res, err := run(&search.Problem{Model: s.Model, Rewriter: s.Engine, Latency: lm, NodeTimes: nodeTimes(lm)}, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return res, nil
}
