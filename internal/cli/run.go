package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/xrl-dev/xrl/runtime"
)

type runOptions struct {
	IO      IO
	Model   string
	Shapes  shapeOptions
	Runtime string
	Threads int
	Runs    int
	Warmup  int
	Seed    uint64
	MaxTime time.Duration
}

// NewCmdRun returns `xrl run MODEL.onnx`.
func NewCmdRun(s IO, runF func(*runOptions) error) *cobra.Command {
	opts := &runOptions{IO: s}
	c := &cobra.Command{
		Use:   "run MODEL.onnx",
		Short: "Run a model on random inputs and report its latency",
		Long: `run executes a model on seeded random inputs and prints the latency distribution
(median, p10, p90). Timing continues past --runs until the spread is small or
--max-time is reached.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Model = args[0]
			if opts.Runs < 1 {
				return usagef("--runs must be at least 1, got %d", opts.Runs)
			}
			if opts.Warmup < 0 {
				return usagef("--warmup must not be negative, got %d", opts.Warmup)
			}
			if runF != nil {
				return runF(opts)
			}
			return runRun(opts)
		},
	}
	opts.Shapes.addFlags(c)
	f := c.Flags()
	f.StringVar(&opts.Runtime, "runtime", "go", "execution backend: "+strings.Join(runtime.BackendNames(), ", "))
	f.IntVar(&opts.Threads, "threads", 0, "intra-op threads (0 = all cores)")
	f.IntVar(&opts.Runs, "runs", 20, "minimum number of timed runs")
	f.IntVar(&opts.Warmup, "warmup", 3, "untimed warm-up runs")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed for the random inputs")
	f.DurationVar(&opts.MaxTime, "max-time", 30*time.Second, "stop timing after this long even if the spread is still high")
	return c
}

func runRun(o *runOptions) error {
	m, err := loadBound(o.Model, &o.Shapes)
	if err != nil {
		return err
	}
	be, err := runtime.NewBackend(o.Runtime, runtime.BackendOptions{Threads: o.Threads})
	if err != nil {
		return usagef("--runtime: %v", err)
	}
	sess, err := be.Load(m)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Model, err)
	}
	defer sess.Close()
	inputs, err := runtime.RandomInputs(m.Graph, o.Seed)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Model, err)
	}
	for _, in := range m.Graph.Inputs {
		if in.Const == nil {
			fmt.Fprintf(o.IO.Out, "input %-20s %v %v\n", in.Name, in.DType, in.Shape)
		}
	}
	st, err := runtime.Measure(sess, inputs, runtime.MeasureOptions{
		Warmup: o.Warmup, Runs: o.Runs, MaxTime: o.MaxTime,
	}, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Model, err)
	}
	fmt.Fprintf(o.IO.Out, "runtime %s: %v\n", be.Name(), st)
	if !st.Stable {
		fmt.Fprintf(o.IO.Out, "note: spread stayed above target; the machine may be busy\n")
	}
	return nil
}
