package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/regal"
	"github.com/xrl-dev/xrl/train"
)

// regalOptions holds the flags shared by `xrl regal train` and `compare`.
type regalOptions struct {
	execFlags
	IO         IO
	Models     []string
	Net        string
	Output     string
	Iterations int
	Budget     int
	Population int
	Horizon    int
	MaxCands   int
	Seeds      int
	Seed       uint64
}

// NewCmdRegal returns `xrl regal`, REGAL's learned BRKGA key distributions.
func NewCmdRegal(s IO) *cobra.Command {
	c := &cobra.Command{
		Use:   "regal",
		Short: "Train and compare the network that steers BRKGA's mutants (REGAL)",
		Long: `REGAL's method on xrl's environment: a network predicts, for every candidate
rewrite at every decision point, a Beta distribution from which BRKGA draws that
candidate's key in fresh chromosomes; decoding takes the valid action with the
largest key. "train" learns the network with REINFORCE on the outcome of BRKGA
runs over the given models (reward -best/best with uniform keys, same budget);
"compare" runs BRKGA with and without the network at equal budgets. Use the
network with "xrl optimize --search brkga --brkga-net FILE".`,
	}
	c.AddCommand(newCmdRegalTrain(s), newCmdRegalCompare(s))
	return c
}

func (o *regalOptions) addFlags(c *cobra.Command) {
	f := o.bindExec(c, true)
	f.IntVar(&o.Budget, "budget", 40, "decoded chromosomes (cost-model evaluations of episodes) per BRKGA run")
	f.IntVar(&o.Population, "population", 10, "BRKGA population")
	f.IntVar(&o.Horizon, "horizon", 20, "episode length (decision points per chromosome)")
	f.IntVar(&o.MaxCands, "max-candidates", 64, "candidates shown per step")
	f.IntVar(&o.Seeds, "seeds", 3, "BRKGA seeds per model")
	f.Uint64Var(&o.Seed, "seed", 1, "random seed of the network's initialisation and sampling")
}

func (o *regalOptions) validate() error {
	if len(o.Models) == 0 {
		return usagef("give at least one model")
	}
	if o.Budget < 2 || o.Population < 2 || o.Horizon < 1 || o.MaxCands < 1 || o.Seeds < 1 {
		return usagef("--budget and --population must be at least 2, --horizon, --max-candidates and --seeds positive")
	}
	if o.Runtime.Runtime == "" {
		o.Runtime.Runtime = "roofline"
	}
	return o.Runtime.validate(true)
}

// newCmdRegalSub builds a regal subcommand: the shared flags, then check
// (the subcommand's own flags) and validate before run.
func newCmdRegalSub(s IO, use, short string, check func(o *regalOptions) error, run func(o *regalOptions) error) (*cobra.Command, *regalOptions) {
	o := &regalOptions{IO: s}
	c := leaf(&cobra.Command{Use: use, Short: short, Args: cobra.ArbitraryArgs}, o, func(c *cobra.Command, args []string) error {
		o.Models = args
		if err := check(o); err != nil {
			return err
		}
		return o.validate()
	}, nil, run)
	o.addFlags(c)
	return c, o
}

func newCmdRegalTrain(s IO) *cobra.Command {
	c, o := newCmdRegalSub(s, "train MODEL.onnx... -o NET", "Train the key-distribution network on models",
		func(o *regalOptions) error {
			if o.Output == "" {
				return usagef("-o/--output is required")
			}
			if o.Iterations < 1 {
				return usagef("--iterations must be positive, got %d", o.Iterations)
			}
			return nil
		}, regalTrainRun)
	c.Flags().StringVarP(&o.Output, "output", "o", "", "network checkpoint to write")
	c.Flags().IntVar(&o.Iterations, "iterations", 60, "BRKGA runs with the network (cycling over the models)")
	return c
}

func newCmdRegalCompare(s IO) *cobra.Command {
	c, o := newCmdRegalSub(s, "compare MODEL.onnx... --net NET", "Run BRKGA with the network's keys and with uniform keys at equal budgets",
		func(o *regalOptions) error {
			if o.Net == "" {
				return usagef("--net is required")
			}
			return nil
		}, regalCompareRun)
	c.Flags().StringVar(&o.Net, "net", "", "network checkpoint (xrl regal train)")
	return c
}

// config returns the models and BRKGA settings of the flags.
func (o *regalOptions) config() (train.RegalConfig, error) {
	bind, err := o.Shapes.bindings()
	return train.RegalConfig{Models: o.Models, Shapes: bind, Runtime: o.Runtime.Runtime, Measurement: o.Runtime.measurement(),
		Budget: o.Budget, Population: o.Population, Horizon: o.Horizon, MaxCandidates: o.MaxCands,
		Seeds: o.Seeds, Seed: o.Seed, Iterations: o.Iterations}, err
}

func regalTrainRun(o *regalOptions) error {
	cfg, err := o.config()
	if err != nil {
		return err
	}
	took, err := train.TrainRegal(cfg, o.Output, func(st regal.IterStats) {
		fmt.Fprintf(o.IO.Err, "iteration %d %s seed %d: network %v uniform %v reward %.4f (baseline %.4f, %d choices)\n",
			st.Iteration, st.Graph, st.Seed, st.Network, st.Uniform, st.Reward, st.Baseline, st.Choices)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "wrote %s after %d iterations in %v\n", o.Output, o.Iterations, took.Round(time.Second))
	return nil
}

func regalCompareRun(o *regalOptions) error {
	net, err := regal.LoadFile(o.Net)
	if err != nil {
		return fmt.Errorf("--net: %w", err)
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	cmp, err := train.CompareRegal(cfg, net)
	if err != nil {
		return err
	}
	cmp.Write(o.IO.Out)
	return nil
}
