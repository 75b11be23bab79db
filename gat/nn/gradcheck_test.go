package nn

import "math/rand/v2"

// randVec returns n standard-normal values.
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
