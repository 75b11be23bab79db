package gat

import (
	"math"

	"github.com/xrl-dev/xrl/env"
)

// ActionProbs returns the policy's probability of every action of obs
// (zero for masked actions). It lets a trained network bias other
// optimisers, such as evolve.BRKGA's decoding.
func (n *Net) ActionProbs(obs *env.Observation) ([]float64, error) {
	b, _ := n.tapes.Get().(*Batch)
	if b == nil {
		b = &Batch{}
	}
	defer n.tapes.Put(b)
	if err := n.ForwardTo(b, []*env.Observation{obs}); err != nil {
		return nil, err
	}
	p := make([]float64, len(obs.Mask))
	for a, ok := range obs.Mask {
		if ok {
			p[a] = math.Exp(float64(b.LogProbs[0][a]))
		}
	}
	return p, nil
}
