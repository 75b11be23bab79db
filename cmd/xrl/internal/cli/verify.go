package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/verify"
)

type verifyOptions struct {
	IO        IO
	A, B      string
	Shapes    shapeOptions
	Runtimes  []string
	Seeds     int
	Tolerance float64
	ATol      float64
	// Inputs is the user's own input sets (inputs.Read), checked besides
	// the random ones.
	Inputs string
}

// errVerifyFailed is returned when two models compute different functions.
var errVerifyFailed = errors.New("the models compute different functions")

// NewCmdVerify returns `xrl verify A.onnx B.onnx`.
func NewCmdVerify(s IO, runF func(*verifyOptions) error) *cobra.Command {
	opts := &verifyOptions{IO: s}
	c := leaf(&cobra.Command{
		Use:   "verify A.onnx B.onnx",
		Short: "Check that two models compute the same function",
		Long: `verify runs both models on the same seeded random inputs (several seeds) on each
runtime and compares their outputs. The inputs exercise the model: integer inputs
read as indices by a Gather (token ids) are drawn over the table they index, Loop
trip counts above 1, other integers from 0 and 1, small values and the constants
the model compares them with (a sample rate, a step count); extra sets are drawn
until each If whose condition depends on the inputs has been taken both ways.
An output that is NaN or infinite everywhere in both models fails: it compares
nothing. Outputs agree when
every element satisfies numpy.allclose's rule with the absolute tolerance in units
of the output's scale, |a-b| <= atol*s + rtol*|b| with s the output's root mean
square (at least 1) (--atol, default 1e-5; --tolerance is rtol, default 1e-4:
float32 rounding of reordered arithmetic), and each output's relative L2 error
||a-b|| / ||b|| is at most rtol.
--inputs adds your own input sets: a directory in ONNX's test-data layout
(input_0.pb, input_1.pb ... TensorProto files, or test_data_set_N directories of
them, as in the ONNX model zoo), an .npz archive (numpy.savez) or a directory of
.npz archives. Tensors match the inputs by name, else by position. Without --shape
the models are bound at the shapes of the first set; sets of other shapes are
checked at their own shapes.
Each output's errors and the worst output of each input set are listed; the
command exits non-zero when any runtime finds a difference. A runtime that cannot run the models (an op the Go executor does not
implement) is skipped with a note; at least one must run them.`,
		Args: cobra.ExactArgs(2),
	}, opts, func(c *cobra.Command, args []string) error {
		opts.A, opts.B = args[0], args[1]
		if opts.Seeds < 1 {
			return usagef("--seeds must be at least 1, got %d", opts.Seeds)
		}
		if opts.Tolerance <= 0 {
			return usagef("--tolerance must be positive, got %g", opts.Tolerance)
		}
		if opts.ATol <= 0 {
			return usagef("--atol must be positive, got %g", opts.ATol)
		}
		for _, r := range opts.Runtimes {
			if r != "go" && r != "ort" {
				return usagef("--runtime %q: want go or ort", r)
			}
		}
		return nil
	}, runF, verifyRun)
	opts.Shapes.addFlags(c)
	f := c.Flags()
	f.StringSliceVar(&opts.Runtimes, "runtime", []string{"go", "ort"}, "runtimes to check on (go, ort)")
	f.IntVar(&opts.Seeds, "seeds", 3, "number of random input sets")
	f.Float64Var(&opts.Tolerance, "tolerance", verify.DefaultRTol, "relative tolerance rtol: |a-b| <= atol*s + rtol*|b| per element (s: the output's RMS, at least 1), relative L2 error <= rtol per output")
	f.Float64Var(&opts.ATol, "atol", verify.DefaultATol, "absolute tolerance atol (covers near-zero outputs)")
	f.StringVar(&opts.Inputs, "inputs", "", "also verify on your own input sets: a directory of input_N.pb files or test_data_set_N directories (ONNX test-data layout), an .npz archive, or a directory of .npz archives")
	return c
}

func verifyRun(o *verifyOptions) error {
	bind, err := o.Shapes.bindings()
	if err != nil {
		return err
	}
	groups, err := pipeline.ReadInputGroups(o.A, o.Inputs)
	if err != nil {
		return flagError(err)
	}
	failed, err := pipeline.VerifyFiles(o.IO.Out, o.A, o.B, bind, o.Runtimes,
		verify.Options{Seeds: o.Seeds, Tolerance: o.Tolerance, ATol: o.ATol}, groups)
	if err == nil && failed {
		return errVerifyFailed
	}
	return err
}
