package egrl

import (
	"math"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/gat"
)

// crossover returns a child of a and b (networks of one configuration):
// single-point crossover over the list of parameter tensors, the tensors
// before a random cut point from a and the rest from b.
func crossover(a, b *gat.Net, rng *rand.Rand) *gat.Net {
	child := a.Clone()
	pa, pc := b.Params(), child.Params()
	cut := 1 + rng.IntN(len(pc)) // at least one tensor from a
	for i := cut; i < len(pc); i++ {
		copy(pc[i].Value, pa[i].Value)
	}
	return child
}

// mutate perturbs net in place: in every tensor, each weight is chosen
// with probability frac and gets Gaussian noise with standard deviation
// std times the tensor's root mean square (std itself for an all-zero
// tensor, such as an untouched bias).
func mutate(net *gat.Net, frac, std float64, rng *rand.Rand) {
	for _, p := range net.Params() {
		var ss float64
		for _, v := range p.Value {
			ss += float64(v) * float64(v)
		}
		scale := std
		if rms := math.Sqrt(ss / float64(len(p.Value))); rms > 0 {
			scale = std * rms
		}
		for i := range p.Value {
			if rng.Float64() < frac {
				p.Value[i] += float32(rng.NormFloat64() * scale)
			}
		}
	}
}

// tournament returns the index of the fittest of three members drawn
// with replacement (the lowest index on ties).
func tournament(fit []float64, rng *rand.Rand) int {
	best := rng.IntN(len(fit))
	for k := 1; k < 3; k++ {
		if i := rng.IntN(len(fit)); fit[i] > fit[best] || (fit[i] == fit[best] && i < best) {
			best = i
		}
	}
	return best
}
