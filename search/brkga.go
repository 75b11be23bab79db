package search

import (
	"fmt"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/evolve"
)

// DefaultBRKGAEvaluations is BRKGA's default budget: decoded chromosomes
// (episodes), each ending in one latency query of its best graph at most
// every env.DefaultFeedbackEvery steps.
const DefaultBRKGAEvaluations = 200

// BRKGA runs evolve.BRKGA on an environment built from p (horizon and
// feedback at the environment's defaults, every candidate shown): Budget
// bounds the decoded chromosomes (default DefaultBRKGAEvaluations) and
// Options.Prior, when set, biases decoding, and Options.Keys switches to
// priority decoding with keys from that distribution. Path lists the rules of the
// best chromosome's episode up to the best graph; per-rule Candidates are
// not counted (decoding sees the environment, not the rewriter).
func BRKGA(p *Problem, o Options) (*Result, error) {
	e, err := env.New(env.Config{Model: p.Model, Rewriter: p.Rewriter, Latency: p.Latency, MaxCandidates: o.MaxCandidates})
	if err != nil {
		return nil, fmt.Errorf("brkga: %w", err)
	}
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultBRKGAEvaluations
	}
	cfg := evolve.BRKGAConfig{Evaluations: budget, Seed: o.Seed, EpisodeSeed: o.Seed, TimeLimit: o.TimeLimit, Keys: o.Keys}
	if o.Progress != nil {
		cfg.Progress = func(_, evals int, best time.Duration) { o.Progress(evals, best) }
	}
	r, err := evolve.BRKGA(e, o.Prior, cfg)
	if err != nil {
		return nil, fmt.Errorf("brkga: %w", err)
	}
	// Evaluations counts decoded chromosomes: each episode queries the
	// latency model every few steps, mostly answered from its cache.
	res := &Result{Algorithm: "brkga", Best: r.Best, InitialLatency: r.InitialLatency, BestLatency: r.BestLatency,
		Path: r.Applied, Steps: r.Generations, Evaluations: r.Evaluations, StopReason: r.StopReason, Elapsed: r.Elapsed,
		Rules: map[string]*RuleUse{}}
	if res.StopReason == "budget" {
		res.StopReason = StopBudget
	} else {
		res.StopReason = StopTimeLimit
	}
	for _, rule := range r.Applied {
		res.rule(rule).Applied++
	}
	return res, nil
}
