package cli

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/train"
)

// NewCmdEnv returns `xrl env` with its rollout and serve subcommands.
func NewCmdEnv(s IO) *cobra.Command {
	return group(&cobra.Command{Use: "env", Short: "Drive the reinforcement-learning environment directly"},
		NewCmdEnvRollout(s, nil), NewCmdEnvServe(s, nil))
}

type envRolloutOptions struct {
	execFlags
	IO            IO
	Model         string
	Agent         string
	Episodes      int
	Seed          uint64
	Horizon       int
	FeedbackEvery int
	MaxCandidates int
	CostCache     string
	Trace         string
}

// NewCmdEnvRollout returns `xrl env rollout MODEL.onnx`.
func NewCmdEnvRollout(s IO, runF func(*envRolloutOptions) error) *cobra.Command {
	opts := &envRolloutOptions{IO: s}
	c := leaf(&cobra.Command{
		Use:   "rollout MODEL.onnx",
		Short: "Run episodes of a baseline agent and print returns and speedups",
		Long: `rollout runs episodes of the graph-rewriting environment with a baseline agent:
"random" picks uniformly among the valid actions (No-Op included); "greedy" applies the
candidate with the lowest cost-model latency and stops when none improves. Rewards
follow X-RLflow's Eq. 2, with latency measured on --runtime every --feedback-every
steps and at the end of each episode.`,
		Args: cobra.ExactArgs(1),
	}, opts, func(c *cobra.Command, args []string) error {
		opts.Model = args[0]
		if opts.Agent != "random" && opts.Agent != "greedy" {
			return usagef("--agent %q: want random or greedy", opts.Agent)
		}
		if opts.Episodes < 1 || opts.Horizon < 1 || opts.FeedbackEvery < 1 || opts.MaxCandidates < 1 {
			return usagef("--episodes, --horizon, --feedback-every and --max-candidates must be positive")
		}
		return opts.Runtime.validate(true)
	}, runF, envRolloutRun)
	f := opts.bindExec(c, true)
	f.StringVar(&opts.Agent, "agent", "random", "agent: random or greedy")
	f.IntVar(&opts.Episodes, "episodes", 5, "number of episodes")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed of the first episode (episode i uses seed+i)")
	f.IntVar(&opts.Horizon, "horizon", env.DefaultHorizon, "steps after which an episode is truncated")
	f.IntVar(&opts.FeedbackEvery, "feedback-every", env.DefaultFeedbackEvery, "measure latency every N steps")
	f.IntVar(&opts.MaxCandidates, "max-candidates", env.DefaultMaxCandidates, "candidates shown per step")
	f.StringVar(&opts.CostCache, "cost-cache", "", "keep the cost model's per-op times in this JSON file (same times across runs)")
	f.StringVar(&opts.Trace, "trace", "", "write every step (episode, seed, action, reward, rule, ...) to this file as JSON lines")
	return c
}

func envRolloutRun(o *envRolloutOptions) error {
	sp, err := prepareStart(o.Model, &o.Shapes, nil)
	if err != nil {
		return err
	}
	start, engine, folded := sp.Model, sp.Engine, sp.Model.Graph
	name := o.Runtime.Runtime
	if name == "" {
		name = "cost"
	}
	lm, err := train.RewardLatency(name, o.Runtime.measurement(), o.CostCache)
	if err != nil {
		return err
	}
	e, err := env.New(env.Config{Model: start, Rewriter: engine, Latency: lm,
		Horizon: o.Horizon, FeedbackEvery: o.FeedbackEvery, MaxCandidates: o.MaxCandidates})
	if err != nil {
		return err
	}
	var agent env.Agent
	switch o.Agent {
	case "random":
		agent = env.NewRandomAgent(o.Seed)
	case "greedy":
		cost := lm
		if lm.Name() != "cost" {
			if cost, err = measure.NewLatencyModel("cost", o.Runtime.backendOptions(), o.Runtime.measureOptions()); err != nil {
				return err
			}
		}
		agent = &env.GreedyAgent{Env: e, Latency: cost}
	}
	var trace *traceAgent
	if o.Trace != "" {
		trace = &traceAgent{Agent: agent}
		agent = trace
	}
	w := o.IO.Out
	fmt.Fprintf(w, "%s: %d nodes, %s agent, %s latency\n", o.Model, len(folded.Nodes), o.Agent, lm.Name())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "EPISODE\tRETURN\tSTEPS\tSTOP\tLATENCY BEFORE\tBEST\tSPEEDUP\tTIME\t")
	var sumRet, sumSpeed float64
	for i := 0; i < o.Episodes; i++ {
		if trace != nil {
			trace.episode, trace.seed = i, o.Seed+uint64(i)
		}
		ep, err := env.Rollout(e, agent, o.Seed+uint64(i))
		if err != nil {
			return err
		}
		sumRet += ep.Return
		sumSpeed += ep.Speedup()
		fmt.Fprintf(tw, "%d\t%.2f\t%d\t%s\t%v\t%v\t%.3fx\t%v\t\n", i+1, ep.Return, ep.Steps, ep.StopReason,
			ep.InitialLatency.Round(time.Microsecond), ep.BestLatency.Round(time.Microsecond), ep.Speedup(), ep.Elapsed.Round(time.Millisecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if trace != nil {
		if err := trace.write(o.Trace); err != nil {
			return err
		}
	}
	n := float64(o.Episodes)
	fmt.Fprintf(w, "mean return %.2f, mean speedup %.3fx\n", sumRet/n, sumSpeed/n)
	return nil
}
