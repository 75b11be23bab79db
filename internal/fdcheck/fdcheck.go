// Package fdcheck provides the finite-difference gradient check that the
// tests of the hand-written backward passes share.
package fdcheck

import (
	"math"
	"testing"
)

// Eps is the central-difference step; the checks run in float64.
const Eps = 1e-6

// Grad compares the analytic gradient ana of loss with respect to x against
// central finite differences, perturbing every entry of x in turn (and
// restoring it). An entry is wrong when it differs from the numeric
// derivative by more than 1e-6 relative (absolute below 1); tb reports the
// first few wrong entries and their count.
func Grad(tb testing.TB, name string, x, ana []float64, loss func() float64) {
	tb.Helper()
	if len(x) != len(ana) {
		tb.Fatalf("%s: %d values but %d gradients", name, len(x), len(ana))
	}
	bad := 0
	for i := range x {
		old := x[i]
		x[i] = old + Eps
		lp := loss()
		x[i] = old - Eps
		lm := loss()
		x[i] = old
		num := (lp - lm) / (2 * Eps)
		if math.Abs(num-ana[i]) > 1e-6*math.Max(1, math.Abs(num)) {
			if bad < 5 {
				tb.Errorf("%s[%d]: analytic %.9g, numeric %.9g", name, i, ana[i], num)
			}
			bad++
		}
	}
	if bad > 0 {
		tb.Errorf("%s: %d of %d gradient entries wrong", name, bad, len(x))
	}
}
