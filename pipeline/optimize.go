package pipeline

import (
	"fmt"
	"io"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/onnx"
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
	// MeasuredPasses are whole-graph passes tried on the result and kept
	// only when measurably faster end to end (see Start.MeasuredPasses;
	// DefaultMeasuredPasses is what xrl optimize uses). Latency objective
	// only.
	MeasuredPasses []string
}

// Result is what an optimisation run did.
type Result struct {
	Start *Start
	// Out is the verified model that was written.
	Out *graph.Model
	// LatencyName names the latency model of the search or rollouts;
	// Initial and Best are its latencies of the start and written graphs.
	LatencyName   string
	Initial, Best time.Duration
	Search        *search.Result // nil with an agent
	Agent         *PolicyResult  // nil with a search
	Elapsed       time.Duration
	// Times splits Elapsed into the search or rollouts and the work every
	// method shares.
	Times Times

	// InitialBytes and BestBytes are the planned peak memory of the start
	// and best graphs under the memory and both objectives (0 under the
	// latency objective, or when the executor cannot plan the model).
	InitialBytes, BestBytes measure.Bytes
}

// Optimize runs the whole flow for cfg, printing progress and the report
// to w: load, bind, fold, search (or the agent's rollouts), fold, verify,
// write, and the before/after report with the per-rule table.
func Optimize(w io.Writer, cfg Config) (*Result, error) {
	t0 := time.Now()
	s, err := PrepareWith(cfg.Model, cfg.Shapes, RuleChoice{Names: cfg.Rules, File: cfg.RulesFile})
	if err != nil {
		return nil, err
	}
	if err := checkMemory(cfg, s); err != nil {
		return nil, err
	}
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
	lmName := cfg.Latency
	if lmName == "" {
		lmName = "cost"
	}
	res := &Result{Start: s}
	var best *graph.Graph
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
		res.Agent, res.LatencyName = ar, lm.Name()
		res.Initial, res.Best, best = ar.Best.InitialLatency, ar.Best.BestLatency, ar.Best.Best
	} else {
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
		res.Search, res.LatencyName = sr, lm.Name()
		res.Initial, res.Best, best = sr.InitialLatency, sr.BestLatency, sr.Best
	}
	times.Search = time.Since(tSearch)
	tVerify := time.Now()
	verified, rejected, err := s.FinishOrFolded(w, best, cfg.Tolerance, cfg.SearchOptions.Seed)
	if err != nil {
		return nil, err
	}
	if rejected {
		best, res.Best = s.Model.Graph, res.Initial
	}
	if res.Search != nil {
		sr := res.Search
		fmt.Fprintf(w, "search: %s, stop reason %q, %d steps, %d latency queries, %v\n",
			sr.Algorithm, sr.StopReason, sr.Steps, sr.Evaluations, sr.Elapsed.Round(time.Millisecond))
	}
	times.Verify = time.Since(tVerify)
	tMeasure := time.Now()
	latencyObjective := cfg.Objective == "" || cfg.Objective == measure.ObjectiveLatency
	if latencyObjective {
		fmt.Fprintf(w, "%s latency: %v -> %v (%.3fx)\n", res.LatencyName, res.Initial.Round(time.Microsecond), res.Best.Round(time.Microsecond),
			float64(res.Initial)/float64(res.Best))
		if len(cfg.MeasuredPasses) > 0 {
			if verified, err = s.MeasuredPasses(w, verified, cfg.MeasuredPasses, cfg.Rules, cfg.Measurement, cfg.Tolerance, cfg.SearchOptions.Seed); err != nil {
				return nil, err
			}
		}
		// Never slower: the measured decision picks what is written.
		if res.Out, err = s.ChooseNotSlower(w, verified, cfg.Measurement, cfg.Tolerance, cfg.SearchOptions.Seed); err != nil {
			return nil, err
		}
	} else {
		res.InitialBytes, res.BestBytes = reportObjective(w, cfg.Objective, s.Model.Graph, best, res.Initial, res.Best)
		res.Out = verified
		if err := ReportMeasured(w, s.Orig, res.Out, cfg.Measurement, cfg.SearchOptions.Seed); err != nil {
			return nil, err
		}
	}
	if err := ReportMemory(w, s.Orig, res.Out); err != nil {
		return nil, err
	}
	if err := onnx.WriteFile(cfg.Output, res.Out); err != nil {
		return nil, fmt.Errorf("writing %s: %w", cfg.Output, err)
	}
	fmt.Fprintf(w, "nodes: %d -> %d\n", len(s.Orig.Graph.Nodes), len(res.Out.Graph.Nodes))
	if rejected {
		fmt.Fprintln(w, "the rules below led to the graph that failed verification; none of them is in the written model")
	}
	if res.Search != nil {
		fmt.Fprintln(w)
		if err := res.Search.WriteRuleTable(w); err != nil {
			return nil, err
		}
	} else if applied := res.Agent.Best.Applied; len(applied) > 0 {
		fmt.Fprintf(w, "rules applied in that rollout: %s\n", CountRules(applied))
	}
	res.Elapsed = time.Since(t0)
	times.Measure, times.Total = time.Since(tMeasure), res.Elapsed
	res.Times = times
	fmt.Fprintf(w, "\n%s\n", times)
	fmt.Fprintf(w, "wrote %s in %v\n", cfg.Output, res.Elapsed.Round(time.Millisecond))
	return res, nil
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
