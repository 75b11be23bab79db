package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/measure"
)

type runOptions struct {
	execFlags
	IO    IO
	Model string
	Seed  uint64
}

// NewCmdRun returns `xrl run MODEL.onnx`.
func NewCmdRun(s IO, runF func(*runOptions) error) *cobra.Command {
	opts := &runOptions{IO: s}
	c := leaf(&cobra.Command{
		Use:   "run MODEL.onnx",
		Short: "Run a model on random inputs and report its latency",
		Long: `run executes a model on seeded random inputs and prints the latency distribution
(median, p10, p90). Timing continues past --runs until the spread is small or
--max-time is reached. --runtime cost prints the cost model's estimate instead: the
sum of per-operator times, each operator configuration timed once in isolation;
--runtime profile prints the time of a session profiled by ONNX Runtime.`,
		Args: cobra.ExactArgs(1),
	}, opts, func(c *cobra.Command, args []string) error {
		opts.Model = args[0]
		return opts.Runtime.validate(true)
	}, runF, runRun)
	f := opts.bindExec(c, true)
	f.Uint64Var(&opts.Seed, "seed", 1, "seed for the random inputs")
	return c
}

func runRun(o *runOptions) error {
	m, err := loadBound(o.Model, &o.Shapes)
	if err != nil {
		return err
	}
	for _, in := range m.Graph.Inputs {
		if in.Const == nil {
			fmt.Fprintf(o.IO.Out, "input %-20s %v %v\n", in.Name, in.DType, in.Shape)
		}
	}
	name := o.Runtime.name()
	if name == "cost" {
		cm, err := measure.NewCostModel(measure.CostOptions{Backend: o.Runtime.backendOptions()})
		if err != nil {
			return err
		}
		st, err := cm.Latency(m)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Model, err)
		}
		fmt.Fprintf(o.IO.Out, "runtime cost: estimated %v (sum over %d nodes, %d distinct op configurations)\n", st.Median, st.N, cm.Entries())
		return nil
	}
	if name == "profile" {
		lm, err := measure.NewLatencyModel(name, o.Runtime.backendOptions(), o.Runtime.measureOptions())
		if err != nil {
			return err
		}
		st, err := lm.Latency(m)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Model, err)
		}
		fmt.Fprintf(o.IO.Out, "runtime profile: estimated %v (ONNX Runtime's profile of the whole session)\n", st.Median)
		return nil
	}
	be, err := o.Runtime.backend()
	if err != nil {
		return err
	}
	meas := &measure.Measured{Backend: be, Options: o.Runtime.measureOptions(), Seed: o.Seed}
	st, err := meas.Latency(m)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Model, err)
	}
	fmt.Fprintf(o.IO.Out, "runtime %s: %v\n", be.Name(), st)
	if !st.Stable {
		fmt.Fprintf(o.IO.Out, "note: the spread stayed above 5%%; the machine may be busy\n")
	}
	return nil
}
