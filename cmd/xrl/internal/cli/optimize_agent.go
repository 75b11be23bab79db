package cli

import (
	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/measure"
)

// DefaultAgent is the policy `xrl optimize` rewrites with when neither
// --agent nor a search is asked for: the built-in agent. Agents trained
// the same way without a model came within 1% of TASO search's speedup on
// it in under a tenth of its search time (docs/heldout.md); the shipped
// agent's own figures on corpus styles it never saw are in docs/results.md.
const DefaultAgent = "builtin"

// chooseMethod resolves the default method: with no --agent and no
// search flag (--search, --alpha, --budget, --brkga-net), the latency
// objective is optimised by the built-in agent; any search flag, or
// another objective (the agent was trained on latency), selects a search,
// TASO unless --search names another.
func (o *optimizeOptions) chooseMethod(c *cobra.Command) {
	if o.Agent != "" || o.Search != "" {
		return
	}
	searching := o.Objective != measure.ObjectiveLatency
	for _, name := range []string{"alpha", "budget", "brkga-net"} {
		searching = searching || c.Flags().Changed(name)
	}
	if searching {
		o.Search = "taso"
		return
	}
	o.Agent = DefaultAgent
}

// validateAgent checks the flags of `xrl optimize --agent`.
func (o *optimizeOptions) validateAgent(c *cobra.Command) error {
	if o.Agent == "" {
		if o.Samples != 0 {
			return usagef("--samples needs --agent")
		}
		if c.Flags().Changed("patience") {
			return usagef("--patience needs --agent")
		}
		return nil
	}
	if o.Samples < 0 || o.Patience < 0 {
		return usagef("--samples and --patience must not be negative, got %d and %d", o.Samples, o.Patience)
	}
	if o.Search == "brkga" {
		// The policy becomes BRKGA's decoding prior.
		if o.Samples != 0 {
			return usagef("--samples does not apply to --search brkga, where --agent is the decoding prior")
		}
		return nil
	}
	for _, name := range []string{"search", "alpha", "budget"} {
		if c.Flags().Changed(name) {
			return usagef("--%s configures the search, which --agent replaces", name)
		}
	}
	return nil
}
