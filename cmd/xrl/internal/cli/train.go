package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/xrl-dev/xrl/egrl"
	"github.com/xrl-dev/xrl/ppo"
	"github.com/xrl-dev/xrl/train"
)

type trainOptions struct {
	execFlags
	IO IO
	// Models are the model files: the arguments, then the files of
	// --corpus.
	Models []string
	Corpus string
	PPO    ppo.Config
	// Algo is "ppo" or "egrl"; EGRL holds EGRL's settings.
	Algo      string
	EGRL      egrl.Config
	Out       string
	Resume    bool
	ExpName   string
	Rules     []string
	Tolerance float64
	// set holds the flags given on the command line.
	set map[string]bool
}

// NewCmdTrain returns `xrl train MODEL.onnx`.
func NewCmdTrain(s IO, runF func(*trainOptions) error) *cobra.Command {
	opts := &trainOptions{IO: s, PPO: ppo.DefaultConfig(), EGRL: egrl.DefaultConfig()}
	c := leaf(&cobra.Command{
		Use:   "train MODEL.onnx... | --corpus DIR",
		Short: "Train a rewriting agent on one model or several with PPO",
		Long: `train runs X-RLflow's reinforcement learning on one model: a graph-attention policy
picks one verified rewrite per step and is trained with PPO (clipped objective, GAE,
defaults from the paper: 1000 episodes, an update every 10, lr 5e-4).

The per-step reward measures latency with --runtime: "cost" (the default: per-op times
measured once on the default backend and summed; fast) or end-to-end measurement on
"ort" or "go" (what the paper does; slow). At the end the fastest graph found is folded,
verified against the original and written as best.onnx, and its latency is measured
end to end on the default backend.

The run directory (--out, default runs/MODEL__EXP__SEED__UNIXTIME) receives
metrics.jsonl (CleanRL's metric names), agent.ckpt (rewritten atomically after every
update), config.json, best.onnx and return.png, speedup.png and rules.png. A run that
was stopped (Ctrl-C, a crash, a reboot) continues with --out DIR --resume and appends
to the same metric stream; --episodes may then extend it.

The paper's 1000 episodes take hours on a large model; the progress line on stderr
shows the time left. Try --episodes 50 first.

Several model files, or --corpus DIR (every .onnx file in DIR), train one agent
across models: episode i draws a model round robin (or at random with
--random-models), the reward of X-RLflow's Eq. 2 is relative to that model's start
latency so large models do not dominate, metrics.jsonl names each episode's model
and speedup.png draws one line per model. No best.onnx is written; the report lists
each model's best speedup. --resume refuses another set of models.`,
		Args: cobra.ArbitraryArgs,
	}, opts, func(c *cobra.Command, args []string) error {
		models, err := modelArgs(args, opts.Corpus)
		if err != nil {
			return err
		}
		opts.Models = models
		opts.set = map[string]bool{}
		c.Flags().Visit(func(f *pflag.Flag) { opts.set[f.Name] = true })
		if err := opts.PPO.Validate(); err != nil {
			return usagef("%v", err)
		}
		if err := opts.validateAlgo(); err != nil {
			return err
		}
		if opts.Resume && opts.Out == "" {
			return usagef("--resume needs --out: the run directory to continue")
		}
		if opts.Resume {
			for _, name := range ppo.FlagNames() {
				if opts.set[name] && name != "episodes" {
					return usagef("--%s cannot change on --resume: the run continues with the configuration in its checkpoint (only --episodes may extend it)", name)
				}
			}
		}
		if opts.ExpName == "" || strings.ContainsAny(opts.ExpName, `/\`) {
			return usagef("--exp-name %q: want a non-empty name without slashes", opts.ExpName)
		}
		if opts.Tolerance <= 0 {
			return usagef("--tolerance must be positive, got %g", opts.Tolerance)
		}
		return opts.Runtime.validate(true)
	}, runF, trainRun)
	f := opts.bindExec(c, true)
	f.Lookup("runtime").Usage = "latency model of the rewards: cost, ort or go (default cost; the final report measures on ort when installed, else go)"
	f.StringVar(&opts.Out, "out", "", "run directory (default runs/MODEL__EXP__SEED__UNIXTIME)")
	f.StringVar(&opts.Corpus, "corpus", "", "train across every .onnx model in this directory (with the model arguments, if any)")
	f.BoolVar(&opts.Resume, "resume", false, "continue the run in --out from its last checkpoint")
	f.StringVar(&opts.ExpName, "exp-name", "ppo", "experiment name used in the default run directory")
	f.StringSliceVar(&opts.Rules, "rules", nil, "only use these rules (default: all)")
	f.Float64Var(&opts.Tolerance, "tolerance", 1e-4, "largest relative error accepted when verifying best.onnx")
	opts.PPO.Flags(f)
	f.StringVar(&opts.Algo, "algo", "ppo", "training algorithm: ppo, or egrl (an evolving population of policies with a PPO learner; one model, no --resume)")
	opts.EGRL.Flags(f)
	return c
}

// config returns the training run the flags describe.
func (o *trainOptions) config() (train.Config, error) {
	bind, err := o.Shapes.bindings()
	if err != nil {
		return train.Config{}, err
	}
	cfg := train.Config{Models: o.Models, Corpus: o.Corpus, Shapes: bind, Rules: o.Rules, Algo: o.Algo, PPO: o.PPO, EGRL: o.EGRL,
		Dir: o.Out, ExpName: o.ExpName, Resume: o.Resume, Runtime: o.Runtime.Runtime, Measurement: o.Runtime.measurement(), Tolerance: o.Tolerance}
	if o.set["episodes"] {
		cfg.Episodes = o.PPO.Episodes
	}
	if o.set["runtime"] && cfg.Runtime == "" {
		cfg.Runtime = "cost"
	}
	return cfg, nil
}

// trainRun trains until the end or a signal (a second one ends the
// process at once), then prints the report; on a signal it says how to
// resume.
func trainRun(o *trainOptions) error {
	cfg, err := o.config()
	if err != nil {
		return err
	}
	prog := newProgress(o.IO.Err, "train")
	defer prog.done()
	cfg.Log = prog.above(o.IO.Out)
	cfg.Progress = func(p train.Progress) { prog.update("%v", p) }
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	rep, err := train.Run(ctx, cfg)
	prog.done()
	var stopped *train.InterruptedError
	if errors.As(err, &stopped) {
		fmt.Fprintf(o.IO.Err, "stopped after episode %d; the checkpoint holds update %d. Continue with:\n  xrl train %s --out %s --resume\n",
			stopped.Episode, stopped.Update, o.argsHint(), stopped.Dir)
	}
	if err != nil {
		return flagError(err)
	}
	return rep.Write(o.IO.Out)
}

// argsHint is how the models were given, for the resume hint.
func (o *trainOptions) argsHint() string {
	if len(o.Models) > 1 && o.Corpus != "" {
		return "--corpus " + o.Corpus
	}
	return strings.Join(o.Models, " ")
}
