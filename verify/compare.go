package verify

import (
	"fmt"
	"math"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// compareTensors compares x (first model) with y (reference) element by
// element under |x-y| <= atol*s + rtol*|y|, s = max(1, RMS(y)), and as a
// whole by the relative L2 error. Elements that are NaN or Inf in either are compared for
// identity (Mismatched when they differ) and left out of the other figures;
// NonFinite is set when x and y have elements and none is finite.
func compareTensors(x, y *graph.Tensor, rtol, atol float64) (OutputError, error) {
	var e OutputError
	if x == nil || y == nil {
		return e, fmt.Errorf("missing output")
	}
	if !slices.Equal(x.Shape, y.Shape) {
		return e, fmt.Errorf("shapes differ: %v vs %v", x.Shape, y.Shape)
	}
	a, err := x.AsFloat64()
	if err != nil {
		return e, err
	}
	b, err := y.AsFloat64()
	if err != nil {
		return e, err
	}
	atol *= outputScale(b)
	var diff2, ref2 float64
	seen := false
	for i := range a {
		fa, fb := a[i], b[i]
		finA, finB := finite(fa), finite(fb)
		seen = seen || finA || finB
		if !finA || !finB {
			if !(math.IsNaN(fa) && math.IsNaN(fb)) && fa != fb {
				e.Mismatched = true
			}
			continue
		}
		d := math.Abs(fa - fb)
		e.MaxAbs = math.Max(e.MaxAbs, d)
		e.Ratio = math.Max(e.Ratio, d/(atol+rtol*math.Abs(fb)))
		diff2 += d * d
		ref2 += fb * fb
	}
	e.NonFinite = len(a) > 0 && !seen
	// A reference whose elements are all below atol/rtol (where atol
	// dominates the element rule) is measured against that magnitude.
	e.RelL2 = math.Sqrt(diff2) / math.Max(math.Sqrt(ref2), atol/rtol*math.Sqrt(float64(max(1, len(b)))))
	return e, nil
}

// outputScale is the root mean square of the finite elements of b, at
// least 1: the unit of the absolute tolerance.
func outputScale(b []float64) float64 {
	var sum float64
	n := 0
	for _, v := range b {
		if finite(v) {
			sum += v * v
			n++
		}
	}
	if n == 0 {
		return 1
	}
	return math.Max(1, math.Sqrt(sum/float64(n)))
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
