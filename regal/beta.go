package regal

import (
	"math"
	"math/rand/v2"
)

// Quantisation of the Beta distributions (REGAL, appendix: the network
// chooses among a few means and concentrations instead of predicting α
// and β directly). Mean bin m is (m+1)/(MeanBins+1); concentration bin v
// is Concentrations[v] = α+β. The middle mean with concentration 2 is the
// uniform distribution.
const MeanBins = 5

// Concentrations are the α+β of the concentration bins.
var Concentrations = []float64{2, 10, 50}

// betaParams returns α and β of mean bin m and concentration bin v.
func betaParams(m, v int) (alpha, beta float64) {
	mu := float64(m+1) / float64(MeanBins+1)
	nu := Concentrations[v]
	return mu * nu, (1 - mu) * nu
}

// sampleBeta draws from Beta(a, b) as X/(X+Y) with X ~ Gamma(a),
// Y ~ Gamma(b).
func sampleBeta(rng *rand.Rand, a, b float64) float64 {
	x, y := sampleGamma(rng, a), sampleGamma(rng, b)
	if x+y == 0 {
		return 0.5
	}
	return x / (x + y)
}

// sampleGamma draws from Gamma(a, 1) by Marsaglia and Tsang's method
// (a < 1 boosted by U^(1/a)).
func sampleGamma(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		return sampleGamma(rng, a+1) * math.Pow(rng.Float64(), 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
