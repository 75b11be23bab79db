package ruleverify

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// relErr compares a rule's source output a with its target output b (of
// equal shapes). Integer and boolean outputs must be equal element by
// element. Float outputs must be non-finite (NaN or an infinity) in the
// same places: where the source leaves its domain (a division by zero, an
// overflow) the target must too, though the two may differ in which
// non-finite value they give (MatMul(a/0, b) and MatMul(a, b)/0 mix
// infinities and NaNs differently). Elsewhere the result is
// max |a - b| / max(|a|, |b|) over the finite elements. A mismatch of
// exact or finite-versus-non-finite elements gives +Inf.
func relErr(a, b *graph.Tensor) (float64, error) {
	if !a.DType.IsFloat() || !b.DType.IsFloat() {
		x, y, err := graph.AsPair(a, b, (*graph.Tensor).AsInt64)
		if err != nil {
			return 0, err
		}
		for i := range x {
			if x[i] != y[i] {
				return math.Inf(1), nil
			}
		}
		return 0, nil
	}
	x, y, err := graph.AsPair(a, b, (*graph.Tensor).AsFloat64)
	if err != nil {
		return 0, err
	}
	var diff, scale float64
	for i := range x {
		p, q := x[i], y[i]
		finP, finQ := !math.IsNaN(p) && !math.IsInf(p, 0), !math.IsNaN(q) && !math.IsInf(q, 0)
		switch {
		case finP && finQ:
			diff = max(diff, math.Abs(p-q))
			scale = max(scale, math.Abs(p), math.Abs(q))
		case finP != finQ:
			return math.Inf(1), nil
		}
	}
	if diff == 0 {
		return 0, nil
	}
	return diff / scale, nil
}
