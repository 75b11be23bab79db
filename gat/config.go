package gat

import (
	"cmp"
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/env"
)

// Config describes a network. Zero fields take the defaults shown.
type Config struct {
	// Layers is the number of GAT layers (default 5).
	Layers int `json:"layers"`
	// Hidden is the width of node and graph embeddings (default 64).
	Hidden int `json:"hidden"`
	// Heads is the number of attention heads per GAT layer; Hidden must be
	// a multiple of it (default 4).
	Heads int `json:"heads"`
	// HeadHidden lists the hidden widths of the policy and value MLPs
	// (default [256 64]).
	HeadHidden []int `json:"head_hidden"`
	// PoolScale multiplies each graph's sum of node embeddings before the
	// global update, keeping graphs of hundreds of nodes in the range the
	// layer was initialised for while still telling node counts apart
	// (default 0.01).
	PoolScale float64 `json:"pool_scale"`
	// Classes is the number of node classes (default env.NumOpClasses()).
	Classes int `json:"classes"`
	// Seed seeds the initial parameters.
	Seed uint64 `json:"seed"`
	// NoShare computes every node of every graph separately instead of
	// sharing identical neighbourhoods; the results are the same up to
	// rounding. For tests and benchmarks.
	NoShare bool `json:"no_share,omitempty"`
}

// DefaultConfig returns the defaults: 5 GAT layers of width 64 with 4
// heads, heads MLPs [256 64], pool scale 0.01, seed 43.
func DefaultConfig() Config {
	c := Config{Seed: 43}
	c.fill()
	return c
}

func (c *Config) fill() {
	c.Layers = cmp.Or(c.Layers, 5)
	c.Hidden = cmp.Or(c.Hidden, 64)
	c.Heads = cmp.Or(c.Heads, 4)
	if c.HeadHidden == nil {
		c.HeadHidden = []int{256, 64}
	}
	c.PoolScale = cmp.Or(c.PoolScale, 0.01)
	c.Classes = cmp.Or(c.Classes, env.NumOpClasses())
}

func (c *Config) validate() error {
	switch {
	case c.Layers < 0 || c.Layers > 64:
		return fmt.Errorf("gat config: %d layers, want 1..64", c.Layers)
	case c.Hidden < 1 || c.Hidden > 4096:
		return fmt.Errorf("gat config: hidden width %d, want 1..4096", c.Hidden)
	case c.Heads < 1 || c.Hidden%c.Heads != 0:
		return fmt.Errorf("gat config: %d heads do not divide hidden width %d", c.Heads, c.Hidden)
	case c.Classes < 1 || c.Classes > 1<<16:
		return fmt.Errorf("gat config: %d node classes, want 1..65536", c.Classes)
	case !(c.PoolScale > 0) || math.IsInf(c.PoolScale, 0):
		return fmt.Errorf("gat config: pool scale %v, want a positive number", c.PoolScale)
	case len(c.HeadHidden) > 16:
		return fmt.Errorf("gat config: %d head layers, want at most 16", len(c.HeadHidden))
	}
	for _, w := range c.HeadHidden {
		if w < 1 || w > 1<<14 {
			return fmt.Errorf("gat config: head hidden width %d, want 1..16384", w)
		}
	}
	return nil
}
