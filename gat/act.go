package gat

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/env"
)

// Act runs the network on one observation and picks an action: the most
// probable valid action when greedy (lowest index on ties), otherwise a
// sample from the policy using rng (which may be nil when greedy). Masked
// actions are never chosen. It returns the action, its log-probability
// and the value estimate. The encoder reuses the rows of earlier calls
// whose computation the observation repeats (see rowCache), so that an
// observation after a rewrite costs the rows near the rewrite.
func (n *Net) Act(obs *env.Observation, rng *rand.Rand, greedy bool) (action int, logProb, value float32, err error) {
	if rng == nil && !greedy {
		return 0, 0, 0, errors.New("gat: sampling an action needs a random generator")
	}
	b, _ := n.tapes.Get().(*Batch)
	if b == nil {
		b = &Batch{}
	}
	defer n.tapes.Put(b)
	if err := n.forwardTo(b, []*env.Observation{obs}, true); err != nil {
		return 0, 0, 0, err
	}
	logp := b.LogProbs[0]
	action = pick(logp, obs.Mask, rng, greedy)
	return action, logp[action], b.Values[0], nil
}

// pick chooses a valid action from log-probabilities.
func pick(logp []float32, mask []bool, rng *rand.Rand, greedy bool) int {
	best := -1
	for a, ok := range mask {
		if ok && (best < 0 || logp[a] > logp[best]) {
			best = a
		}
	}
	if greedy {
		return best
	}
	u := rng.Float64()
	var c float64
	last := best
	for a, ok := range mask {
		if !ok {
			continue
		}
		c += math.Exp(float64(logp[a]))
		last = a
		if u < c {
			return a
		}
	}
	return last // rounding left u above the total: the last valid action
}
