package ppo

import "math"

// Normalize returns (x − mean) / (std + 1e-8) with the unbiased standard
// deviation, as CleanRL normalises a minibatch's advantages. A single
// value is returned unchanged (its deviation is undefined).
func Normalize(x []float64) []float64 {
	out := append([]float64(nil), x...)
	n := len(x)
	if n < 2 {
		return out
	}
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	std := math.Sqrt(ss / float64(n-1))
	for i, v := range x {
		out[i] = (v - mean) / (std + 1e-8)
	}
	return out
}

// LossInput is one minibatch: per sample, the log-probability of the
// taken action under the current and the collecting policy, its
// advantage (normalised or not, as the caller decides), the value
// estimate now and at collection, the value target and the entropy of the
// current policy.
type LossInput struct {
	NewLogProb, OldLogProb []float64
	Advantage              []float64
	NewValue, OldValue     []float64
	Return                 []float64
	Entropy                []float64
}

// LossCoefs holds the loss's coefficients (see Config).
type LossCoefs struct {
	ClipCoef, VFCoef, EntCoef float64
	ClipValueLoss             bool
}

// LossOutput holds the minibatch's loss, its parts and diagnostics, and
// the loss's gradient with respect to each sample's log-probability,
// entropy and value (what gat.Net.Backward takes).
type LossOutput struct {
	// Loss = PolicyLoss − EntCoef·Entropy + VFCoef·ValueLoss.
	Loss, PolicyLoss, ValueLoss, Entropy float64
	// OldApproxKL = mean(−log r) and ApproxKL = mean((r − 1) − log r)
	// estimate KL(old‖new) from the ratios r; ClipFrac is the fraction of
	// samples whose ratio lies outside [1 − clip, 1 + clip].
	OldApproxKL, ApproxKL, ClipFrac float64
	DLogProb, DEntropy, DValue      []float64
}

// Loss computes PPO's clipped objective on a minibatch:
//
//	r = exp(logπ − logπ_old)
//	PolicyLoss = mean(max(−A·r, −A·clip(r, 1−ε, 1+ε)))
//	ValueLoss  = ½·mean(max((V − R)², (V_old + clip(V − V_old, −ε, ε) − R)²))
//	             (½·mean((V − R)²) without ClipValueLoss)
//	Entropy    = mean(H)
//
// and its gradients. Where a max picks the clipped branch outside the
// clipping range, the gradient is zero.
func Loss(in LossInput, c LossCoefs) LossOutput {
	n := len(in.NewLogProb)
	out := LossOutput{DLogProb: make([]float64, n), DEntropy: make([]float64, n), DValue: make([]float64, n)}
	if n == 0 {
		return out
	}
	inv := 1 / float64(n)
	for i := 0; i < n; i++ {
		logRatio := in.NewLogProb[i] - in.OldLogProb[i]
		ratio := math.Exp(logRatio)
		out.OldApproxKL += -logRatio * inv
		out.ApproxKL += ((ratio - 1) - logRatio) * inv
		if math.Abs(ratio-1) > c.ClipCoef {
			out.ClipFrac += inv
		}

		a := in.Advantage[i]
		pg1 := -a * ratio
		pg2 := -a * clip(ratio, 1-c.ClipCoef, 1+c.ClipCoef)
		if pg1 >= pg2 {
			out.PolicyLoss += pg1 * inv
			out.DLogProb[i] = -a * ratio * inv // d(−A·r)/dlogπ = −A·r
		} else {
			out.PolicyLoss += pg2 * inv // r is outside the range: constant
		}

		v, ret := in.NewValue[i], in.Return[i]
		unclipped := (v - ret) * (v - ret)
		if c.ClipValueLoss {
			old := in.OldValue[i]
			vc := old + clip(v-old, -c.ClipCoef, c.ClipCoef)
			clipped := (vc - ret) * (vc - ret)
			if unclipped >= clipped {
				out.ValueLoss += 0.5 * unclipped * inv
				out.DValue[i] = c.VFCoef * (v - ret) * inv
			} else {
				out.ValueLoss += 0.5 * clipped * inv // V is outside the range: constant
			}
		} else {
			out.ValueLoss += 0.5 * unclipped * inv
			out.DValue[i] = c.VFCoef * (v - ret) * inv
		}

		out.Entropy += in.Entropy[i] * inv
		out.DEntropy[i] = -c.EntCoef * inv
	}
	out.Loss = out.PolicyLoss - c.EntCoef*out.Entropy + c.VFCoef*out.ValueLoss
	return out
}

func clip(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }

// ExplainedVariance returns 1 − Var(target − pred) / Var(target): 1 for
// perfect value predictions, 0 for predicting the mean, NaN when the
// targets do not vary.
func ExplainedVariance(pred, target []float64) float64 {
	vy := variance(target)
	if vy == 0 {
		return math.NaN()
	}
	diff := make([]float64, len(target))
	for i := range target {
		diff[i] = target[i] - pred[i]
	}
	return 1 - variance(diff)/vy
}

// variance is the population variance (NaN for no values).
func variance(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var m float64
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	var s float64
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return s / float64(len(x))
}
