package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/xrl-dev/xrl/executor"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/ppo"
	"github.com/xrl-dev/xrl/rewrite"
)

// validateAgent checks the flags of `xrl optimize --agent`.
func (o *optimizeOptions) validateAgent(c *cobra.Command) error {
	if o.Agent == "" {
		if o.Samples != 0 {
			return usagef("--samples needs --agent")
		}
		return nil
	}
	if o.Samples < 0 {
		return usagef("--samples must not be negative, got %d", o.Samples)
	}
	for _, name := range []string{"search", "alpha", "budget"} {
		if c.Flags().Changed(name) {
			return usagef("--%s configures the search, which --agent replaces", name)
		}
	}
	return nil
}

// optimizeAgentRun rewrites the model with a trained policy: one greedy
// rollout (the most probable action at every step) plus --samples
// sampled ones; the fastest graph measured on any of them is folded,
// verified and written.
func optimizeAgentRun(o *optimizeOptions) error {
	start := time.Now()
	if err := checkOutputPath("-o", o.Output); err != nil {
		return err
	}
	sp, err := prepareStart(o.Model, &o.Shapes, o.Rules)
	if err != nil {
		return err
	}
	orig, startModel, engine := sp.Orig, sp.Start, sp.Engine
	net, cfg, err := ppo.LoadPolicy(o.Agent)
	if err != nil {
		return fmt.Errorf("--agent: %w", err)
	}
	lm, err := measure.NewLatencyModel(o.searchRuntime(), o.Runtime.backendOptions(), o.Runtime.measureOptions())
	if err != nil {
		return err
	}
	// Latency is measured after every step so that the best graph along
	// each rollout is found; the policy does not see rewards, so this does
	// not change its choices.
	e, err := env.New(env.Config{Model: startModel, Rewriter: engine, Latency: lm,
		Horizon: cfg.Horizon, MaxCandidates: cfg.MaxCandidates, FeedbackEvery: 1})
	if err != nil {
		return err
	}
	w := o.IO.Out
	fmt.Fprintf(w, "optimising %s (%d nodes) with the policy %s on the %s latency model\n", o.Model, len(orig.Graph.Nodes), o.Agent, lm.Name())
	var best env.Episode
	policyStart := time.Now()
	rollouts, steps := 0, 0
	for i := 0; i <= o.Samples; i++ {
		greedy := i == 0
		agent := gat.NewAgent(net, o.Seed+uint64(i), greedy)
		if o.TimeLimit > 0 && i > 0 && time.Since(start) > o.TimeLimit {
			break
		}
		ep, err := env.Rollout(e, agent, o.Seed+uint64(i))
		if err == nil {
			err = agent.Err
		}
		if err != nil {
			return fmt.Errorf("rollout %d: %w", i, err)
		}
		rollouts, steps = rollouts+1, steps+ep.Steps
		if i == 0 || ep.BestLatency < best.BestLatency {
			best = ep
		}
		kind := "greedy"
		if !greedy {
			kind = fmt.Sprintf("sample %d", i)
		}
		fmt.Fprintf(w, "%s rollout: %d steps (%s), best %v (%.3fx)\n", kind, ep.Steps, ep.StopReason,
			ep.BestLatency.Round(time.Microsecond), ep.Speedup())
	}
	fmt.Fprintf(w, "agent: %d rollouts, %d steps, %v\n", rollouts, steps, time.Since(policyStart).Round(time.Millisecond))
	bestG, _, err := rewrite.Fold(best.Best, executor.Evaluate)
	if err != nil {
		return fmt.Errorf("folding the optimised graph: %w", err)
	}
	out := *orig
	out.Graph = bestG
	if err := verifyModels(w, orig, &out, o.Tolerance, o.Seed); err != nil {
		return err
	}
	if err := onnx.WriteFile(o.Output, &out); err != nil {
		return fmt.Errorf("writing %s: %w", o.Output, err)
	}
	fmt.Fprintf(w, "%s latency: %v -> %v (%.3fx)\n", lm.Name(), best.InitialLatency.Round(time.Microsecond),
		best.BestLatency.Round(time.Microsecond), best.Speedup())
	if lm.Name() == "cost" {
		if err := reportMeasured(w, o, orig, &out); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "nodes: %d -> %d\n", len(orig.Graph.Nodes), len(bestG.Nodes))
	if len(best.Applied) > 0 {
		fmt.Fprintf(w, "rules applied in that rollout: %s\n", countRules(best.Applied))
	}
	fmt.Fprintf(w, "\nwrote %s in %v\n", o.Output, time.Since(start).Round(time.Millisecond))
	return nil
}

// countRules formats rule names with their counts, in order of first use:
// "conv-bn-fold x3, relu-concat".
func countRules(applied []string) string {
	count := map[string]int{}
	var order []string
	for _, r := range applied {
		if count[r] == 0 {
			order = append(order, r)
		}
		count[r]++
	}
	parts := make([]string, len(order))
	for i, r := range order {
		parts[i] = r
		if count[r] > 1 {
			parts[i] += fmt.Sprintf(" x%d", count[r])
		}
	}
	return strings.Join(parts, ", ")
}
