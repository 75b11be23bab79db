package cli

import (
	"github.com/xrl-dev/xrl/egrl"
)

// validateAlgo checks --algo and the flags that belong to one algorithm.
func (o *trainOptions) validateAlgo() error {
	switch o.Algo {
	case "ppo":
		for _, name := range egrl.FlagNames() {
			if o.set[name] {
				return usagef("--%s is a setting of --algo egrl", name)
			}
		}
		return nil
	case "egrl":
	default:
		return usagef("--algo %q: want ppo or egrl", o.Algo)
	}
	switch {
	case len(o.Models) > 1:
		return usagef("--algo egrl trains on one model, got %d", len(o.Models))
	case o.Resume:
		return usagef("--algo egrl runs cannot be resumed")
	case o.set["episodes"]:
		return usagef("--episodes: --algo egrl runs for --generations generations or --max-steps environment steps")
	}
	if err := o.EGRL.Validate(); err != nil {
		return usagef("%v", err)
	}
	if !o.set["exp-name"] {
		o.ExpName = "egrl"
	}
	return nil
}
