package cli

import (
	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/pipeline"
)

type compareOptions struct {
	execFlags
	IO   IO
	A, B string
	Seed uint64
}

// NewCmdCompare returns `xrl compare A.onnx B.onnx`.
func NewCmdCompare(s IO, runF func(*compareOptions) error) *cobra.Command {
	opts := &compareOptions{IO: s}
	c := leaf(&cobra.Command{
		Use:   "compare A.onnx B.onnx",
		Short: "Compare the latency of two models, interleaved",
		Long: `compare times two models alternately on the same random inputs, two runs of each in a row
(A A B B, then B B A A), so that a busy or drifting machine affects both alike (a model
under a millisecond is timed over 8 pairs of sessions taking turns, each block running
--block runs of one model in a row, then of the other, as a user calls a model), and
reports the ratio of their median latencies, latency(B)/latency(A), with its 99%
confidence interval: the latency a user observes, before and after. Timing is a sequential
test: it looks at the data at whole blocks of --block runs, at most 8 times, and stops at
the first look whose interval lies wholly below 1 (B faster), wholly above it (B slower)
or within --precision of 1 (equivalent), or at --max-time. Each look's interval is a
bootstrap over those units (or blocks) at the 99% level divided among the looks, so the
verdict is wrong at most 1% of the time wherever it stops while the machine's disturbances
are short; spells of seconds that slow one model more than the other raise that
(docs/design.md, "Slow spells"). The ratio of the fastest runs of each block (block
minima: the latency on a machine nothing else disturbs) and the CPU-time ratio are printed
beside it, labelled; neither decides anything.
`,
		Args: cobra.ExactArgs(2),
	}, opts, func(c *cobra.Command, args []string) error {
		opts.A, opts.B = args[0], args[1]
		return opts.Runtime.validate(false)
	}, runF, compareRun)
	f := opts.bindExec(c, false)
	f.Uint64Var(&opts.Seed, "seed", 1, "seed for the random inputs")
	return c
}

func compareRun(o *compareOptions) error {
	bind, err := o.Shapes.bindings()
	if err != nil {
		return err
	}
	be, err := o.Runtime.backend()
	if err != nil {
		return err
	}
	rep, err := pipeline.CompareFiles(be, o.A, o.B, bind, o.Seed, o.Runtime.measureOptions())
	if err != nil {
		return err
	}
	rep.Write(o.IO.Out)
	return nil
}
