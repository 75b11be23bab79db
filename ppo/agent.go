package ppo

import (
	"math/rand/v2"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat"
)

// Transition is one collected step as the update needs it.
type Transition struct {
	// Obs is the observation acted on; Mask is a copy of its action mask,
	// re-applied when the update recomputes the policy.
	Obs  *env.Observation
	Mask []bool
	// Action taken, its log-probability and the value estimate under the
	// collecting policy.
	Action  int
	LogProb float32
	Value   float32
	// Step holds reward, end flag and bootstrap value for GAE.
	Step Step
	// Info is the environment's report of the step.
	Info env.Info
}

// Agent is a PPO agent: it samples actions from the policy network and,
// as an env.Learner, records every transition for the next update.
type Agent struct {
	net *gat.Net
	rng *rand.Rand
	// Steps holds the transitions recorded since the last Reset.
	Steps []Transition
	// Err holds the first error of the network (the agent then chooses
	// No-Op, which ends the episode).
	Err error

	pendLogProb, pendValue float32
}

// NewAgent returns an agent sampling from net with random source src.
func NewAgent(net *gat.Net, src rand.Source) *Agent {
	return &Agent{net: net, rng: rand.New(src)}
}

// Act implements env.Agent: it samples an action from the policy.
func (a *Agent) Act(obs *env.Observation) int {
	act, logp, v, err := a.net.Act(obs, a.rng, false)
	if err != nil {
		if a.Err == nil {
			a.Err = err
		}
		act, logp, v = obs.NoOp(), 0, 0
	}
	a.pendLogProb, a.pendValue = logp, v
	return act
}

// Observe implements env.Learner: it records the transition of the last
// Act. After a truncation it evaluates the final observation's value to
// bootstrap the return.
func (a *Agent) Observe(t env.Transition) {
	tr := Transition{
		Obs:     t.Obs,
		Mask:    append([]bool(nil), t.Obs.Mask...),
		Action:  t.Action,
		LogProb: a.pendLogProb,
		Value:   a.pendValue,
		Step:    Step{Reward: t.Reward, Value: float64(a.pendValue), End: t.Terminated || t.Truncated},
		Info:    t.Info,
	}
	if t.Truncated && !t.Terminated && t.Next != nil {
		_, _, v, err := a.net.Act(t.Next, nil, true)
		if err != nil && a.Err == nil {
			a.Err = err
		}
		tr.Step.NextValue = float64(v)
	}
	a.Steps = append(a.Steps, tr)
}
