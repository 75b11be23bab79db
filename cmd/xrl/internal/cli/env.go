package cli

import (
	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/env"
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
	bind, err := o.Shapes.bindings()
	if err != nil {
		return err
	}
	rep, err := train.Rollouts(train.RolloutConfig{Model: o.Model, Shapes: bind, Agent: o.Agent, Episodes: o.Episodes, Seed: o.Seed,
		Horizon: o.Horizon, FeedbackEvery: o.FeedbackEvery, MaxCandidates: o.MaxCandidates,
		Runtime: o.Runtime.Runtime, Measurement: o.Runtime.measurement(), CostCache: o.CostCache, Trace: o.Trace, Log: o.IO.Out})
	if rep == nil {
		return err
	}
	if werr := rep.Write(o.IO.Out); werr != nil {
		return werr
	}
	return err
}
