package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// leaf completes c (usage text and positional-argument rule) into a runnable
// command. On run it calls prepare, when not nil, which stores the positional
// arguments into opts and checks the flags; then runF when it is not nil
// (tests intercept the parsed options there), else run.
func leaf[T any](c *cobra.Command, opts *T, prepare func(c *cobra.Command, args []string) error, runF, run func(*T) error) *cobra.Command {
	c.RunE = func(c *cobra.Command, args []string) error {
		if prepare != nil {
			if err := prepare(c, args); err != nil {
				return err
			}
		}
		if runF != nil {
			return runF(opts)
		}
		return run(opts)
	}
	return c
}

// group adds subs to c, a command that only holds subcommands, and
// returns it.
func group(c *cobra.Command, subs ...*cobra.Command) *cobra.Command {
	c.AddCommand(subs...)
	return c
}

// execFlags are the flags of the commands that load models and run or
// estimate them: the input shapes and the runtime.
type execFlags struct {
	Shapes  shapeOptions
	Runtime runtimeOptions
}

// bindExec adds the shape and runtime flags to c and returns c's flag set for
// the command's own flags. withCost admits the latency models (cost, profile,
// roofline) in --runtime's help besides go and ort.
func (o *execFlags) bindExec(c *cobra.Command, withCost bool) *pflag.FlagSet {
	o.Shapes.addFlags(c)
	o.Runtime.addFlags(c, withCost)
	return c.Flags()
}
