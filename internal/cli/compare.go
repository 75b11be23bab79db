package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/measure"
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
		Long: `compare times two models alternately on the same random inputs, in blocks of
--block runs of each in A B B A order, so that a busy or drifting machine affects both
alike. Each block counts with its fastest run of each model (other processes only add
time), and compare prints the median block ratio latency(B)/latency(A) with its 99%
confidence interval, timing until that interval is within --precision or --max-time.
The CPU-time ratio is printed as a cross-check.`,
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
	sa, err := be.Load(ma)
	if err != nil {
		return fmt.Errorf("%s: %w", o.A, err)
	}
	defer sa.Close()
	sb, err := be.Load(mb)
	if err != nil {
		return fmt.Errorf("%s: %w", o.B, err)
	}
	defer sb.Close()
	inA, err := measure.RandomInputs(ma.Graph, o.Seed)
	if err != nil {
		return fmt.Errorf("%s: %w", o.A, err)
	}
	inB, err := measure.RandomInputs(mb.Graph, o.Seed)
	if err != nil {
		return fmt.Errorf("%s: %w", o.B, err)
	}
	c, err := measure.Compare(sa, sb, inA, inB, o.Runtime.measureOptions())
	if err != nil {
		return err
	}
	w := o.IO.Out
	fmt.Fprintf(w, "runtime %s\n", be.Name())
	fmt.Fprintf(w, "A %s: %v\n", o.A, c.A)
	fmt.Fprintf(w, "B %s: %v\n", o.B, c.B)
	fmt.Fprintf(w, "%v\n", c)
	switch {
	case !c.Significant():
		fmt.Fprintln(w, "verdict: no difference beyond the measurement spread")
	case c.Ratio < 1:
		fmt.Fprintf(w, "verdict: B is faster (%.1f%% less latency)\n", 100*(1-c.Ratio))
	default:
		fmt.Fprintf(w, "verdict: B is slower (%.1f%% more latency)\n", 100*(c.Ratio-1))
	}
	return nil
}
