package ppo

import (
	"fmt"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat"
	"github.com/xrl-dev/xrl/gat/nn"
)

// update runs one PPO update over steps (whole episodes) and returns its
// record (SPS is left for the caller).
func (t *Trainer) update(steps []Sample) (UpdateRecord, error) {
	t.st.Update++
	rec := UpdateRecord{Type: "update", Update: t.st.Update, Episode: t.st.Episode, GlobalStep: t.st.GlobalStep, Steps: len(steps)}
	err := t.updater().run(&rec, steps)
	return rec, err
}

// updater returns the trainer's update state.
func (t *Trainer) updater() updater {
	return updater{cfg: &t.cfg, net: t.net, opt: t.opt, shuf: t.shuf, batch: &t.batch}
}

// updater holds what a PPO update reads and changes.
type updater struct {
	cfg   *Config
	net   *gat.Net
	opt   *nn.Adam[float32]
	shuf  *rand.Rand
	batch *gat.Batch
}

// run performs update number rec.Update over steps, filling in rec.
func (t updater) run(rec *UpdateRecord, steps []Sample) error {
	cfg := t.cfg
	lr := cfg.LearningRate
	if cfg.AnnealLR {
		lr *= 1 - float64(rec.Update-1)/float64(cfg.NumUpdates())
	}
	t.opt.LR = lr
	rec.LearningRate = Float(lr)
	n := len(steps)
	if n == 0 {
		return nil
	}

	gs := make([]Step, n)
	oldV := make([]float64, n)
	for i, s := range steps {
		gs[i], oldV[i] = s.Step, float64(s.Value)
	}
	adv, ret := GAE(gs, cfg.Gamma, cfg.GAELambda)
	rec.ExplainedVariance = Float(ExplainedVariance(oldV, ret))

	coefs := LossCoefs{ClipCoef: cfg.ClipCoef, VFCoef: cfg.VFCoef, EntCoef: cfg.EntCoef, ClipValueLoss: cfg.ClipValueLoss}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	var sum LossOutput
	var gradNorm float64
	for epoch := 0; epoch < cfg.Epochs; epoch++ {
		t.shuf.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		var lastKL float64
		for lo := 0; lo < n; lo += cfg.MinibatchSize {
			mb := idx[lo:min(lo+cfg.MinibatchSize, n)]
			out, gn, err := t.minibatch(steps, mb, adv, ret, coefs)
			if err != nil {
				return fmt.Errorf("update %d: %w", rec.Update, err)
			}
			sum.PolicyLoss += out.PolicyLoss
			sum.ValueLoss += out.ValueLoss
			sum.Entropy += out.Entropy
			sum.OldApproxKL += out.OldApproxKL
			sum.ApproxKL += out.ApproxKL
			sum.ClipFrac += out.ClipFrac
			gradNorm += gn
			rec.Minibatches++
			lastKL = out.ApproxKL
		}
		rec.Epochs++
		if cfg.TargetKL > 0 && lastKL > cfg.TargetKL {
			break
		}
	}
	k := float64(rec.Minibatches)
	rec.PolicyLoss, rec.ValueLoss, rec.Entropy = Float(sum.PolicyLoss/k), Float(sum.ValueLoss/k), Float(sum.Entropy/k)
	rec.OldApproxKL, rec.ApproxKL, rec.ClipFrac = Float(sum.OldApproxKL/k), Float(sum.ApproxKL/k), Float(sum.ClipFrac/k)
	rec.GradNorm = Float(gradNorm / k)
	return nil
}

// minibatch takes one gradient step on the samples mb and returns the
// loss and the gradient norm before clipping.
func (t updater) minibatch(steps []Sample, mb []int, adv, ret []float64, c LossCoefs) (LossOutput, float64, error) {
	B := len(mb)
	obs := make([]*env.Observation, B)
	actions := make([]int, B)
	in := LossInput{
		NewLogProb: make([]float64, B), OldLogProb: make([]float64, B), Advantage: make([]float64, B),
		NewValue: make([]float64, B), OldValue: make([]float64, B), Return: make([]float64, B), Entropy: make([]float64, B),
	}
	for i, j := range mb {
		s := &steps[j]
		// The stored mask is re-applied: the policy is recomputed over
		// exactly the actions that were valid when the step was taken.
		obs[i] = &env.Observation{Current: s.Obs.Current, Candidates: s.Obs.Candidates, Mask: s.Mask}
		actions[i] = s.Action
		in.OldLogProb[i] = float64(s.LogProb)
		in.OldValue[i] = float64(s.Value)
		in.Advantage[i] = adv[j]
		in.Return[i] = ret[j]
	}
	if t.cfg.NormAdv {
		in.Advantage = Normalize(in.Advantage)
	}
	if err := t.net.ForwardTo(t.batch, obs); err != nil {
		return LossOutput{}, 0, err
	}
	for i := range mb {
		in.NewLogProb[i] = float64(t.batch.LogProbs[i][actions[i]])
		in.NewValue[i] = float64(t.batch.Values[i])
		in.Entropy[i] = float64(t.batch.Entropies[i])
	}
	out := Loss(in, c)
	dl, de, dv := make([]float32, B), make([]float32, B), make([]float32, B)
	for i := range mb {
		dl[i], de[i], dv[i] = float32(out.DLogProb[i]), float32(out.DEntropy[i]), float32(out.DValue[i])
	}
	t.net.ZeroGrad()
	if err := t.net.Backward(t.batch, actions, dl, de, dv); err != nil {
		return LossOutput{}, 0, err
	}
	params := t.net.Params()
	gn := nn.ClipGradNorm(params, t.cfg.MaxGradNorm)
	t.opt.Step(params)
	return out, gn, nil
}
