package gat

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/env"
)

func TestActionProbs(t *testing.T) {
	n := testNet(t, smallConfig())
	rng := rand.New(rand.NewPCG(5, 5))
	obs := synthObs(rng, 20, 26, 6, 10, false, true)
	obs.Mask[2] = false
	p, err := n.ActionProbs(obs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := n.Forward([]*env.Observation{obs})
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for a, ok := range obs.Mask {
		want := 0.0
		if ok {
			want = math.Exp(float64(b.LogProbs[0][a]))
		}
		if math.Abs(p[a]-want) > 1e-12 {
			t.Errorf("action %d: probability %v, want %v", a, p[a], want)
		}
		sum += p[a]
	}
	if math.Abs(sum-1) > 1e-5 {
		t.Errorf("probabilities sum to %v", sum)
	}
}
