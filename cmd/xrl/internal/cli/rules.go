package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/rules"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// NewCmdRules returns `xrl rules` with list, show, verify and funcs.
func NewCmdRules(s IO) *cobra.Command {
	c := &cobra.Command{
		Use:   "rules",
		Short: "List, show and numerically verify the rewrite rules",
		Long: `xrl's rewrite rules are text (.rules files built into the binary). Every rule is
verified numerically: source and target run in float64 on random inputs over several
shape and attribute instantiations and must agree to 1e-9 relative error.`,
	}
	c.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List every rule with its source and target ops and the TASO rules it realises",
			Args:  cobra.NoArgs,
			RunE: func(c *cobra.Command, args []string) error {
				set, err := rules.Load()
				if err != nil {
					return err
				}
				return rules.WriteList(s.Out, set)
			},
		},
		&cobra.Command{
			Use:   "show NAME...",
			Short: "Show rules: text, conditions, variables, matching plan, an example",
			Args:  cobra.MinimumNArgs(1),
			RunE: func(c *cobra.Command, args []string) error {
				set, err := rules.Load()
				if err != nil {
					return err
				}
				for i, name := range args {
					r := set.Lookup(name)
					if r == nil {
						return usagef("no rule named %q (see 'xrl rules list')", name)
					}
					if i > 0 {
						fmt.Fprintln(s.Out)
					}
					if err := rules.WriteShow(s.Out, r); err != nil {
						return err
					}
				}
				return nil
			},
		},
		newCmdRulesVerify(s),
		&cobra.Command{
			Use:   "funcs",
			Short: "List the functions and predicates rules may use",
			Args:  cobra.NoArgs,
			RunE:  func(c *cobra.Command, args []string) error { return rules.WriteFuncs(s.Out) },
		},
	)
	return c
}

type rulesVerifyOptions struct {
	IO        IO
	Names     []string
	Tolerance float64
	File      string
}

func newCmdRulesVerify(s IO) *cobra.Command {
	opts := &rulesVerifyOptions{IO: s}
	c := &cobra.Command{
		Use:   "verify [NAME...] [--file my.rules]",
		Short: "Verify rules numerically (all rules when no name is given)",
		Long: `verify executes each rule's source and target patterns with the Go executor in
float64 on random inputs, for at least 3 shape instantiations (and 2 attribute
instantiations where the rule is parametric), and prints the largest relative error
per rule. Inputs come from several distributions (unit, large, special values and
domain edges, mixed) and every declared attribute combination is tried; rules made
only of polynomial and piecewise-linear ops are also checked in exact arithmetic.
With --file it parses, checks and verifies a rules file of your own instead of the
shipped set. It exits with status 1 if any rule is rejected (the reason is printed
per rule), 2 for usage errors.`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Names = args
			if opts.Tolerance <= 0 {
				return usagef("--tolerance must be positive, got %g", opts.Tolerance)
			}
			var set *rules.Set
			var err error
			if opts.File != "" {
				set, err = ruleverify.ParseFile(opts.File)
			} else {
				set, err = rules.Load()
			}
			if err != nil {
				return err
			}
			var unknown []string
			for _, n := range args {
				if set.Lookup(n) == nil {
					unknown = append(unknown, n)
				}
			}
			if len(unknown) > 0 {
				return usagef("no rule named %s (see 'xrl rules list')", strings.Join(unknown, ", "))
			}
			reps, err := ruleverify.All(set, opts.Names, ruleverify.Options{Tolerance: opts.Tolerance})
			if err != nil {
				return err
			}
			return ruleverify.WriteVerify(s.Out, reps)
		},
	}
	c.Flags().Float64Var(&opts.Tolerance, "tolerance", 1e-9, "largest relative error accepted")
	c.Flags().StringVar(&opts.File, "file", "", "verify the rules of this .rules file instead of the shipped ones")
	return c
}
