package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// fdEps is the central-difference step; the checks run in float64.
const fdEps = 1e-6

// checkGrad compares the analytic gradient ana of loss with respect to
// x against central finite differences, perturbing every entry of x.
func checkGrad(t *testing.T, name string, x, ana []float64, loss func() float64) {
	t.Helper()
	if len(x) != len(ana) {
		t.Fatalf("%s: %d values but %d gradients", name, len(x), len(ana))
	}
	bad := 0
	for i := range x {
		old := x[i]
		x[i] = old + fdEps
		lp := loss()
		x[i] = old - fdEps
		lm := loss()
		x[i] = old
		num := (lp - lm) / (2 * fdEps)
		if diff := math.Abs(num - ana[i]); diff > 1e-6*math.Max(1, math.Abs(num)) {
			if bad < 5 {
				t.Errorf("%s[%d]: analytic %.9g, numeric %.9g", name, i, ana[i], num)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d gradient entries wrong", name, bad, len(x))
	}
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// project returns Σ r_i y_i: a random linear functional turns any output
// into a scalar loss whose gradient with respect to y is r.
func project(r, y []float64) float64 {
	var s float64
	for i, v := range y {
		s += r[i] * v
	}
	return s
}

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }
