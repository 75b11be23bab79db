package ppo

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat"
	"github.com/xrl-dev/xrl/gat/nn"
)

// Learner runs PPO updates of a policy network on samples that an outer
// algorithm collects, for algorithms that drive their own rollouts (such
// as EGRL, which trains a PPO learner beside an evolving population). It
// applies the same update as Trainer: GAE, Config.Epochs passes of
// shuffled minibatches, clipped losses, gradient-norm clip, Adam.
type Learner struct {
	cfg     Config
	net     *gat.Net
	opt     *nn.Adam[float32]
	shuf    *rand.Rand
	batch   gat.Batch
	updates int
}

// NewLearner returns a learner training net with cfg's PPO settings;
// seed drives the minibatch shuffles.
func NewLearner(net *gat.Net, cfg Config, seed uint64) (*Learner, error) {
	if net == nil {
		return nil, errors.New("ppo: NewLearner needs a network")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opt := nn.NewAdam[float32](cfg.LearningRate)
	opt.Eps = cfg.AdamEps
	return &Learner{cfg: cfg, net: net, opt: opt, shuf: rand.New(rand.NewPCG(seed, 0xbf58476d1ce4e5b9))}, nil
}

// Net returns the network the learner trains.
func (l *Learner) Net() *gat.Net { return l.net }

// Updates returns the number of updates run so far.
func (l *Learner) Updates() int { return l.updates }

// Update runs one PPO update on steps, which must be whole episodes in
// order (each ending with Step.End). The record's Episode and GlobalStep
// are left for the caller.
func (l *Learner) Update(steps []Sample) (UpdateRecord, error) {
	if n := len(steps); n > 0 && !steps[n-1].Step.End {
		return UpdateRecord{}, fmt.Errorf("ppo: update on %d steps whose last step does not end an episode", n)
	}
	l.updates++
	rec := UpdateRecord{Type: "update", Update: l.updates, Steps: len(steps)}
	u := updater{cfg: &l.cfg, net: l.net, opt: l.opt, shuf: l.shuf, batch: &l.batch}
	err := u.run(&rec, steps)
	return rec, err
}

// Relabel turns transitions taken by another policy into samples for
// Update, as if the learner's network had taken the same actions: the
// log-probability and value of each step are the learner's, so an update
// starts from a probability ratio of 1 and moves the learner towards the
// actions with positive advantage. This is an off-policy approximation
// (there is no importance weight for the behaviour policy). trs must be
// whole episodes in order.
func (l *Learner) Relabel(trs []env.Transition) ([]Sample, error) {
	out := make([]Sample, 0, len(trs))
	for i, t := range trs {
		if err := l.net.ForwardTo(&l.batch, []*env.Observation{t.Obs}); err != nil {
			return nil, fmt.Errorf("relabelling step %d: %w", i+1, err)
		}
		lp := l.batch.LogProbs[0]
		if t.Action < 0 || t.Action >= len(lp) || !t.Obs.Mask[t.Action] {
			return nil, fmt.Errorf("relabelling step %d: action %d is not valid under its mask", i+1, t.Action)
		}
		v := l.batch.Values[0]
		s := Sample{
			Obs: t.Obs, Mask: append([]bool(nil), t.Obs.Mask...),
			Action: t.Action, LogProb: lp[t.Action], Value: v,
			Step: Step{Reward: t.Reward, Value: float64(v), End: t.Terminated || t.Truncated},
			Info: t.Info,
		}
		if t.Truncated && !t.Terminated && t.Next != nil {
			if err := l.net.ForwardTo(&l.batch, []*env.Observation{t.Next}); err != nil {
				return nil, fmt.Errorf("relabelling step %d: value of the last observation: %w", i+1, err)
			}
			s.Step.NextValue = float64(l.batch.Values[0])
		}
		out = append(out, s)
	}
	return out, nil
}
