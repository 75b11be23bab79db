package ruleverify

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// relErr compares a rule's source output a with its target output b (of
// equal shapes). Integer and boolean outputs must be equal element by
// element. Float outputs must have NaN, +Inf and -Inf in the same places;
// elsewhere the result is max |a - b| / max(|a|, |b|) over the finite
// elements. A mismatch of exact or non-finite elements gives +Inf.
func relErr(a, b *graph.Tensor) (float64, error) {
	if !a.DType.IsFloat() || !b.DType.IsFloat() {
		x, err := a.AsInt64()
		if err != nil {
			return 0, err
		}
		y, err := b.AsInt64()
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
	x, err := a.AsFloat64()
	if err != nil {
		return 0, err
	}
	y, err := b.AsFloat64()
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
		case math.IsNaN(p) && math.IsNaN(q), p == q:
			// The same NaN or infinity on both sides.
		default:
			return math.Inf(1), nil
		}
	}
	if diff == 0 {
		return 0, nil
	}
	return diff / scale, nil
}
