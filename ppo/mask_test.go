package ppo

import (
	"math"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat"
)

// refMaskedEntropy is the entropy of the categorical distribution given
// by softmax over the valid logits only (CleanRL's masked categorical:
// invalid entries have probability 0 and contribute 0).
func refMaskedEntropy(logits []float32, mask []bool) (h float64, p []float64) {
	m := math.Inf(-1)
	for i, ok := range mask {
		if ok {
			m = math.Max(m, float64(logits[i]))
		}
	}
	var z float64
	p = make([]float64, len(logits))
	for i, ok := range mask {
		if ok {
			p[i] = math.Exp(float64(logits[i]) - m)
			z += p[i]
		}
	}
	for i := range p {
		p[i] /= z
		if p[i] > 0 {
			h -= p[i] * math.Log(p[i])
		}
	}
	return h, p
}

// TestStoredMaskIsReapplied checks the masked distribution the update
// computes: with the stored mask, and with a narrower one, the policy is
// a softmax over exactly the valid actions and its entropy matches the
// plain reference.
func TestStoredMaskIsReapplied(t *testing.T) {
	e, err := env.New(chainEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	obs, _, err := e.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig()
	net, err := gat.New(cfg.NetConfig())
	if err != nil {
		t.Fatal(err)
	}
	narrow := append([]bool(nil), obs.Mask...)
	narrow[1] = false // as if candidate 1 had not been shown
	cases := []struct {
		name string
		mask []bool
	}{
		{"stored mask", obs.Mask},
		{"narrower mask", narrow},
	}
	full, err := net.Forward([]*env.Observation{obs})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		o := &env.Observation{Current: obs.Current, Candidates: obs.Candidates, Mask: c.mask}
		b, err := net.Forward([]*env.Observation{o})
		if err != nil {
			t.Fatal(err)
		}
		// The unmasked scores are the same network outputs in both cases.
		h, p := refMaskedEntropy(full.Logits[0], c.mask)
		if math.Abs(float64(b.Entropies[0])-h) > 1e-5 {
			t.Errorf("%s: entropy %v, reference %v", c.name, b.Entropies[0], h)
		}
		var total float64
		for i, lp := range b.LogProbs[0] {
			q := math.Exp(float64(lp))
			total += q
			if !c.mask[i] && q != 0 {
				t.Errorf("%s: masked action %d has probability %v", c.name, i, q)
			}
			if math.Abs(q-p[i]) > 1e-5 {
				t.Errorf("%s: action %d probability %v, reference %v", c.name, i, q, p[i])
			}
		}
		if math.Abs(total-1) > 1e-5 {
			t.Errorf("%s: probabilities sum to %v", c.name, total)
		}
	}
}
