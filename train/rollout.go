package train

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/pipeline"
)

// RolloutConfig configures Rollouts: episodes of a baseline agent in the
// environment of one model.
type RolloutConfig struct {
	Model  string
	Shapes map[string][]int
	// Agent is "random" (uniform among the valid actions, No-Op included)
	// or "greedy" (the candidate with the lowest cost-model latency, until
	// none improves).
	Agent string
	// Episodes is the number of episodes; episode i starts from seed
	// Seed+i.
	Episodes int
	Seed     uint64
	// Horizon, FeedbackEvery and MaxCandidates configure the environment.
	Horizon, FeedbackEvery, MaxCandidates int
	// Runtime names the latency model of the rewards ("" is cost), with
	// Measurement's settings; the cost model keeps its per-op times in
	// CostCache when that is set.
	Runtime     string
	Measurement pipeline.Measurement
	CostCache   string
	// Trace, if set, is a file that receives every step as a JSON line.
	Trace string
	// Log, if set, receives the line that describes the rollouts before
	// they start.
	Log io.Writer
}

// RolloutReport holds the episodes of Rollouts, without their graphs.
type RolloutReport struct {
	Episodes []env.Episode
}

// Rollouts runs cfg's episodes and returns their outcome. When only the
// trace cannot be written, the report comes with the error.
func Rollouts(cfg RolloutConfig) (*RolloutReport, error) {
	sp, err := pipeline.Prepare(cfg.Model, cfg.Shapes, nil)
	if err != nil {
		return nil, err
	}
	name := cfg.Runtime
	if name == "" {
		name = "cost"
	}
	lm, err := RewardLatency(name, cfg.Measurement, cfg.CostCache)
	if err != nil {
		return nil, err
	}
	e, err := env.New(env.Config{Model: sp.Model, Rewriter: sp.Engine, Latency: lm,
		Horizon: cfg.Horizon, FeedbackEvery: cfg.FeedbackEvery, MaxCandidates: cfg.MaxCandidates})
	if err != nil {
		return nil, err
	}
	agent, err := baseline(cfg, e, lm)
	if err != nil {
		return nil, err
	}
	var trace *traceAgent
	if cfg.Trace != "" {
		trace = &traceAgent{Agent: agent}
		agent = trace
	}
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "%s: %d nodes, %s agent, %s latency\n", cfg.Model, len(sp.Model.Graph.Nodes), cfg.Agent, lm.Name())
	}
	rep := &RolloutReport{}
	for i := 0; i < cfg.Episodes; i++ {
		if trace != nil {
			trace.episode, trace.seed = i, cfg.Seed+uint64(i)
		}
		ep, err := env.Rollout(e, agent, cfg.Seed+uint64(i))
		if err != nil {
			return nil, err
		}
		ep.Best = nil
		rep.Episodes = append(rep.Episodes, ep)
	}
	if trace != nil {
		if err := trace.write(cfg.Trace); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// baseline returns the agent cfg names; the greedy agent ranks candidates
// with the cost model (lm when that is the cost model).
func baseline(cfg RolloutConfig, e *env.Env, lm measure.LatencyModel) (env.Agent, error) {
	switch cfg.Agent {
	case "random":
		return env.NewRandomAgent(cfg.Seed), nil
	case "greedy":
		cost := lm
		if lm.Name() != "cost" {
			var err error
			if cost, err = measure.NewLatencyModel("cost", cfg.Measurement.Backend, cfg.Measurement.Measure); err != nil {
				return nil, err
			}
		}
		return &env.GreedyAgent{Env: e, Latency: cost}, nil
	}
	return nil, fmt.Errorf("agent %q: want random or greedy", cfg.Agent)
}

// Write prints the episodes as a table, then the mean return and
// speedup.
func (r *RolloutReport) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "EPISODE\tRETURN\tSTEPS\tSTOP\tLATENCY BEFORE\tBEST\tSPEEDUP\tTIME\t")
	var sumRet, sumSpeed float64
	for i, ep := range r.Episodes {
		sumRet += ep.Return
		sumSpeed += ep.Speedup()
		fmt.Fprintf(tw, "%d\t%.2f\t%d\t%s\t%v\t%v\t%.3fx\t%v\t\n", i+1, ep.Return, ep.Steps, ep.StopReason,
			ep.InitialLatency.Round(time.Microsecond), ep.BestLatency.Round(time.Microsecond), ep.Speedup(), ep.Elapsed.Round(time.Millisecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	n := float64(len(r.Episodes))
	_, err := fmt.Fprintf(w, "mean return %.2f, mean speedup %.3fx\n", sumRet/n, sumSpeed/n)
	return err
}
