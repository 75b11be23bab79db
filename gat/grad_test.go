package gat

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat/nn"
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
			checkGrad(t, p.Name, p.Value, p.Grad, loss)
		}
	}
}

func checkGrad(t *testing.T, name string, x, ana []float64, loss func() float64) {
	t.Helper()
	const eps = 1e-6
	bad := 0
	for i := range x {
		old := x[i]
		x[i] = old + eps
		lp := loss()
		x[i] = old - eps
		lm := loss()
		x[i] = old
		num := (lp - lm) / (2 * eps)
		if math.Abs(num-ana[i]) > 1e-6*math.Max(1, math.Abs(num)) {
			if bad < 3 {
				t.Errorf("%s[%d]: analytic %.9g, numeric %.9g", name, i, ana[i], num)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d gradient entries wrong", name, bad, len(x))
	}
}
