package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/measure"
)

type verifyOptions struct {
	IO        IO
	A, B      string
	Shapes    shapeOptions
	Runtimes  []string
	Seeds     int
	Tolerance float64
}

// errVerifyFailed is returned when two models compute different functions.
var errVerifyFailed = errors.New("the models compute different functions")

// NewCmdVerify returns `xrl verify A.onnx B.onnx`.
func NewCmdVerify(s IO, runF func(*verifyOptions) error) *cobra.Command {
	opts := &verifyOptions{IO: s}
	c := &cobra.Command{
		Use:   "verify A.onnx B.onnx",
		Short: "Check that two models compute the same function",
		Long: `verify runs both models on the same seeded random inputs (several seeds) on each
runtime and compares their outputs. The relative error of an element is
|a-b| / max(|b|, rms(b)), with rms(b) the root-mean-square of that output; the
command exits non-zero when the largest one exceeds --tolerance on any runtime.`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			opts.A, opts.B = args[0], args[1]
			if opts.Seeds < 1 {
				return usagef("--seeds must be at least 1, got %d", opts.Seeds)
			}
			if opts.Tolerance <= 0 {
				return usagef("--tolerance must be positive, got %g", opts.Tolerance)
			}
			for _, r := range opts.Runtimes {
				if r != "go" && r != "ort" {
					return usagef("--runtime %q: want go or ort", r)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return verifyRun(opts)
		},
	}
	opts.Shapes.addFlags(c)
	f := c.Flags()
	f.StringSliceVar(&opts.Runtimes, "runtime", []string{"go", "ort"}, "runtimes to check on (go, ort)")
	f.IntVar(&opts.Seeds, "seeds", 3, "number of random input sets")
	f.Float64Var(&opts.Tolerance, "tolerance", 1e-4, "largest relative error accepted")
	return c
}

func verifyRun(o *verifyOptions) error {
	ma, mb, err := loadPair(o.A, o.B, &o.Shapes)
	if err != nil {
		return err
	}
	failed := false
	for _, name := range o.Runtimes {
		be, err := measure.NewBackend(name, measure.BackendOptions{})
		if err != nil {
			return err
		}
		res, err := measure.Verify(be, ma, mb, measure.VerifyOptions{Seeds: o.Seeds, Tolerance: o.Tolerance})
		if err != nil {
			return fmt.Errorf("verify on %s: %w", name, err)
		}
		fmt.Fprintf(o.IO.Out, "%-4s %v\n", name, res)
		if !res.OK {
			failed = true
		}
	}
	if failed {
		return errVerifyFailed
	}
	return nil
}
