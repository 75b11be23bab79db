package gat

import (
	"math/rand/v2"

	"github.com/xrl-dev/xrl/env"
)

// Agent adapts a Net to env.Agent: it samples actions from the policy
// (or takes the most probable one when Greedy).
type Agent struct {
	// Net is the policy network.
	Net *Net
	// Greedy picks the most probable action instead of sampling.
	Greedy bool
	rng    *rand.Rand
	// Err holds the first error of the network (the agent then chooses
	// No-Op, which ends the episode).
	Err error
}

// NewAgent returns an agent acting with net, sampling with a generator
// seeded by seed.
func NewAgent(net *Net, seed uint64, greedy bool) *Agent {
	return &Agent{Net: net, Greedy: greedy, rng: rand.New(rand.NewPCG(seed, 0x510e527fade682d1))}
}

// Act implements env.Agent.
func (a *Agent) Act(obs *env.Observation) int {
	act, _, _, err := a.Net.Act(obs, a.rng, a.Greedy)
	if err != nil {
		if a.Err == nil {
			a.Err = err
		}
		return obs.NoOp()
	}
	return act
}
