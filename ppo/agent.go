package ppo

import (
	"fmt"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat"
)

// Sample is one collected step as the update needs it.
type Sample struct {
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

// TrainingAgent is a PPO agent: it samples actions from the policy
// network and, as an env.Learner, records every transition for the next
// update.
type TrainingAgent struct {
	net *gat.Net
	rng *rand.Rand
	// Steps holds the samples recorded since the last Reset.
	Steps []Sample

	pendLogProb, pendValue float32
}

// NewTrainingAgent returns an agent sampling from net with random source
// src.
func NewTrainingAgent(net *gat.Net, src rand.Source) *TrainingAgent {
	return &TrainingAgent{net: net, rng: rand.New(src)}
}

// Act implements env.Agent: it samples an action from the policy.
func (a *TrainingAgent) Act(obs *env.Observation) (int, error) {
	act, logp, v, err := a.net.Act(obs, a.rng, false)
	if err != nil {
		return obs.NoOp(), err
	}
	a.pendLogProb, a.pendValue = logp, v
	return act, nil
}

// Observe implements env.Learner: it records the transition of the last
// Act. After a truncation it evaluates the final observation's value to
// bootstrap the return.
func (a *TrainingAgent) Observe(t env.Transition) error {
	tr := Sample{
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
		if err != nil {
			return fmt.Errorf("value of the truncated episode's last observation: %w", err)
		}
		tr.Step.NextValue = float64(v)
	}
	a.Steps = append(a.Steps, tr)
	return nil
}
