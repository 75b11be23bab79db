package gat

import (
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat/nn"
	"github.com/xrl-dev/xrl/internal/fdcheck"
)

// TestNetworkGradient checks the gradient of a PPO-like scalar
//
//	Σ_o wl[o] log π(a_o|o) + we[o] H(o) + wv[o] V(o)
//
// with respect to every parameter of a small float64 network against
// central finite differences, with node sharing on and off.
func TestNetworkGradient(t *testing.T) {
	for _, share := range []bool{true, false} {
		cfg := Config{Layers: 2, Hidden: 8, Heads: 2, HeadHidden: []int{6, 5}, PoolScale: 0.2, Seed: 3, NoShare: !share}
		m, err := newModel[float64](cfg)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(4, 4))
		for _, p := range m.params {
			if len(p.Shape) == 1 { // biases, attention vectors, No-Op: make them non-trivial
				nn.Normal(p, 0.3, rng)
			}
		}
		one := synthObs(rng, 7, 9, 1, 3, false, false)
		one.Mask[3] = false // No-Op masked: only the candidate is valid
		obs := []*env.Observation{
			synthObs(rng, 10, 13, 4, 6, false, true),
			synthObs(rng, 8, 10, 3, 4, true, false),
			one,
		}
		actions := []int{2, 4, 0}
		wl := []float64{0.7, -1.3, 0.4}
		we := []float64{0.5, 0.2, -0.9}
		wv := []float64{-0.6, 1.1, 0.8}
		var tp tape[float64]
		if err := tp.load(obs, m.cfg.Classes); err != nil {
			t.Fatal(err)
		}
		loss := func() float64 {
			tp.forward(m)
			var s float64
			for o, a := range actions {
				s += wl[o]*tp.logp[int(tp.logOff[o])+a] + we[o]*tp.entropies[o] + wv[o]*tp.values[o]
			}
			return s
		}
		loss()
		nn.ZeroGrad(m.params)
		tp.backward(m, actions, wl, we, wv)
		for _, p := range m.params {
			if nn.GradNorm([]*nn.Param[float64]{p}) == 0 {
				t.Errorf("%s: zero gradient, the check would prove nothing", p.Name)
			}
			fdcheck.Grad(t, p.Name, p.Value, p.Grad, loss)
		}
	}
}
