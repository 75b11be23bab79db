package cli

import (
	"github.com/spf13/cobra"
)

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
