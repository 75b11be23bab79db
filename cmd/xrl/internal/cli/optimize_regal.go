package cli

import (
	"fmt"

	"github.com/xrl-dev/xrl/evolve"
	"github.com/xrl-dev/xrl/regal"
)

// validateBRKGANet checks the flags of `xrl optimize --brkga-net`.
func (o *optimizeOptions) validateBRKGANet() error {
	switch {
	case o.BRKGANet == "":
		return nil
	case o.Search != "brkga":
		return usagef("--brkga-net needs --search brkga")
	case o.Agent != "":
		return usagef("--brkga-net and --agent both steer BRKGA's decoding: give one")
	}
	return nil
}

// brkgaKeys loads the --brkga-net network as BRKGA's key distribution
// (nil without the flag).
func (o *optimizeOptions) brkgaKeys() (evolve.KeyDist, error) {
	if o.BRKGANet == "" {
		return nil, nil
	}
	net, err := regal.LoadFile(o.BRKGANet)
	if err != nil {
		return nil, fmt.Errorf("--brkga-net: %w", err)
	}
	return &regal.Dist{Net: net}, nil
}
