package graph

import (
	"math"
	"slices"
)

// MaxRelDiff returns max |a-b| / max |a| over the finite elements (0 when
// both are all zero; +Inf when shapes differ, only one side is NaN, or only
// one side is infinite or the two are infinities of opposite sign; equal
// infinities agree).
func MaxRelDiff(a, b *Tensor) (float64, error) {
	if !slices.Equal(a.Shape, b.Shape) {
		return math.Inf(1), nil
	}
	x, y, err := AsPair(a, b, (*Tensor).AsFloat64)
	if err != nil {
		return 0, err
	}
	var diff, scale float64
	for i := range x {
		if math.IsNaN(x[i]) != math.IsNaN(y[i]) {
			return math.Inf(1), nil
		}
		if math.IsNaN(x[i]) {
			continue
		}
		if x[i] == y[i] {
			// Equal infinities (a masked score, say) agree and leave
			// the scale finite.
			if !math.IsInf(x[i], 0) {
				scale = max(scale, math.Abs(x[i]))
			}
			continue
		}
		if math.IsInf(x[i], 0) || math.IsInf(y[i], 0) {
			return math.Inf(1), nil
		}
		diff = max(diff, math.Abs(x[i]-y[i]))
		scale = max(scale, math.Abs(x[i]), math.Abs(y[i]))
	}
	if diff == 0 {
		return 0, nil
	}
	return diff / scale, nil
}

// AsPair converts a and b with as (Tensor.AsFloat64, Tensor.AsInt64, ...)
// for an elementwise comparison.
func AsPair[T any](a, b *Tensor, as func(*Tensor) ([]T, error)) ([]T, []T, error) {
	x, err := as(a)
	if err != nil {
		return nil, nil, err
	}
	y, err := as(b)
	if err != nil {
		return nil, nil, err
	}
	return x, y, nil
}
