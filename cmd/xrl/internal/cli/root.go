package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// IO bundles the streams a command reads and writes.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
}

// Exit codes.
const (
	exitOK       = 0
	exitError    = 1 // the command failed (bad input, verification failure ...)
	exitUsage    = 2 // bad flags or arguments
	exitInternal = 3 // a bug in xrl
)

// usageError marks errors caused by how the command was invoked.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// NewRootCmd builds the xrl command tree writing to streams.
func NewRootCmd(s IO) *cobra.Command {
	root, _ := newRootCmd(s)
	return root
}

// newRootCmd is NewRootCmd that also returns the profiling flags, whose
// profiles Main finishes once the command has run.
func newRootCmd(s IO) (*cobra.Command, *profileOptions) {
	prof := &profileOptions{}
	root := &cobra.Command{
		Use:   "xrl",
		Short: "Superoptimise ONNX models with verified graph rewrites",
		Long: `xrl rewrites the computation graph of an ONNX model with numerically verified
substitution rules, chosen by search or by a reinforcement-learning agent, measures
real latency, and exports a faster model that computes the same function.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			if err := checkNumericFlags(c); err != nil {
				return err
			}
			return prof.start()
		},
	}
	prof.bind(root)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w\nrun '%s --help' for usage", err, c.CommandPath())}
	})
	root.AddCommand(
		NewCmdVersion(s, nil),
		NewCmdInspect(s, nil),
		NewCmdRun(s, nil),
		NewCmdConvert(s, nil),
		NewCmdCompare(s, nil),
		NewCmdVerify(s, nil),
		NewCmdModels(s),
		NewCmdRules(s),
		NewCmdOptimize(s, nil),
		NewCmdEnv(s),
		NewCmdTrain(s, nil),
		NewCmdRegal(s),
	)
	return root, prof
}

// Main runs xrl with args and returns the process exit code. Panics are
// caught and reported as internal errors without a stack trace unless
// XRL_DEBUG is set.
func Main(args []string, in io.Reader, out, errOut io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(errOut, "xrl: internal error: %v\n", r)
			if os.Getenv("XRL_DEBUG") != "" {
				errOut.Write(debug.Stack())
			} else {
				fmt.Fprintln(errOut, "xrl: this is a bug; rerun with XRL_DEBUG=1 for details and please report it")
			}
			code = exitInternal
		}
	}()
	root, prof := newRootCmd(IO{In: in, Out: out, Err: errOut})
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if perr := prof.stop(); perr != nil && err == nil {
		err = perr
	}
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(errOut, "xrl: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) || isCobraUsageError(err) {
		if cmd != nil && !errors.As(err, &ue) {
			fmt.Fprintf(errOut, "run '%s --help' for usage\n", cmd.CommandPath())
		}
		return exitUsage
	}
	return exitError
}

// isCobraUsageError recognises cobra's own argument and command errors,
// which it returns as plain errors.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires exactly", "unknown flag", "unknown shorthand flag", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
