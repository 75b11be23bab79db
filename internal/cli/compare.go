package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/measure"
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
		Short: "Compare the latency of two models, interleaved run by run",
		Long: `compare times two model files, as they are, alternately on the same random inputs,
in A B B A order, so that a busy or drifting machine affects both alike, and reports the
ratio of their median latencies, latency(B)/latency(A), with its 99% confidence interval:
the latency a user observes, before and after. A model under a millisecond is timed over 8
pairs of sessions, since one session of such a model can run at its own pace for its
whole life. Timing is a sequential test: it looks at the data at whole blocks of --block
runs, at most 8 times, and stops at the first look whose interval lies wholly below 1 (B
faster), wholly above it (B slower) or within --precision of 1 (equivalent), or at
--max-time. Each look's interval is a bootstrap over the A B B A units (and the session
pairs) at the 99% level divided among the looks, so the verdict is wrong at most 1% of
the time wherever it stops, on a machine whose noise does not drift for long. The ratio
of the fastest runs of each block (block minima: the latency on a machine nothing else
disturbs) and the CPU-time ratio are printed beside it, labelled; neither decides
anything.
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
	ma, mb, err := loadPair(o.A, o.B, &o.Shapes)
	if err != nil {
		return err
	}
	be, err := o.Runtime.backend()
	if err != nil {
		return err
	}
	fa, err := pipeline.SelfContained(o.A)
	if err != nil {
		return err
	}
	fb, err := pipeline.SelfContained(o.B)
	if err != nil {
		return err
	}
	inA, err := measure.RandomInputs(ma.Graph, o.Seed)
	if err != nil {
		return fmt.Errorf("%s: %w", o.A, err)
	}
	inB, err := measure.RandomInputs(mb.Graph, o.Seed)
	if err != nil {
		return fmt.Errorf("%s: %w", o.B, err)
	}
	c, err := measure.CompareModelFiles(be, measure.ModelFile{Model: ma, File: fa}, measure.ModelFile{Model: mb, File: fb}, inA, inB, o.Runtime.measureOptions())
	if err != nil {
		return err
	}
	w := o.IO.Out
	fmt.Fprintf(w, "runtime %s\n", be.Name())
	fmt.Fprintf(w, "A %s: %v\n", o.A, c.A)
	fmt.Fprintf(w, "B %s: %v\n", o.B, c.B)
	fmt.Fprintf(w, "%v\n", c)
	fmt.Fprintf(w, "medians: %s\n", c.Summary())
	switch c.Verdict {
	case measure.Faster:
		fmt.Fprintf(w, "verdict: B is faster (%.1f%% less latency)\n", 100*(1-c.Ratio))
	case measure.Slower:
		fmt.Fprintf(w, "verdict: B is slower (%.1f%% more latency)\n", 100*(c.Ratio-1))
	case measure.Equivalent:
		fmt.Fprintf(w, "verdict: no difference beyond ±%.1f%% (the 99%% interval lies within it)\n", 100*o.Runtime.Precision)
	default:
		fmt.Fprintln(w, "verdict: undecided: the time ran out before the 99% interval left 1 or came within the margin")
	}
	return nil
}
