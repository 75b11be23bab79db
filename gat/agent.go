package gat

import (
	"math/rand/v2"

	"github.com/xrl-dev/xrl/env"
)

// PolicyAgent adapts a Net to env.Agent: it samples actions from the
// policy (or takes the most probable one when Greedy).
type PolicyAgent struct {
	// Net is the policy network.
	Net *Net
	// Greedy picks the most probable action instead of sampling.
	Greedy bool
	rng    *rand.Rand
}

// NewPolicyAgent returns an agent acting with net, sampling with a
// generator seeded by seed.
func NewPolicyAgent(net *Net, seed uint64, greedy bool) *PolicyAgent {
	return &PolicyAgent{Net: net, Greedy: greedy, rng: rand.New(rand.NewPCG(seed, 0x510e527fade682d1))}
}

// Act implements env.Agent; an error of the network is returned.
func (a *PolicyAgent) Act(obs *env.Observation) (int, error) {
	act, _, _, err := a.Net.Act(obs, a.rng, a.Greedy)
	if err != nil {
		return obs.NoOp(), err
	}
	return act, nil
}
