package graph

import (
	"math"
	"testing"
)

// TestMaxRelDiff checks the relative difference on finite values, NaN and
// infinities: equal infinities agree (an additive mask's -Inf on both
// sides) and leave the scale to the finite elements; an infinity against
// a finite value or the other infinity does not.
func TestMaxRelDiff(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	f := func(v ...float64) *Tensor { return &Tensor{DType: Float64, Shape: []int{len(v)}, Data: v} }
	cases := []struct {
		name string
		a, b *Tensor
		want float64
	}{
		{"equal", f(1, 2, 3), f(1, 2, 3), 0},
		{"zeros", f(0, 0), f(0, 0), 0},
		{"relative to the largest magnitude", f(1, 4), f(1.5, 4), 0.125},
		{"both NaN", f(nan, 2), f(nan, 2), 0},
		{"one NaN", f(nan, 2), f(1, 2), inf},
		{"equal -Inf beside a difference", f(-inf, 2, 4), f(-inf, 2, 3), 0.25},
		{"equal +Inf", f(inf, 1), f(inf, 1), 0},
		{"Inf against a finite value", f(-inf, 1), f(-1e30, 1), inf},
		{"opposite infinities", f(-inf, 1), f(inf, 1), inf},
		{"shapes differ", f(1, 2), f(1, 2, 3), inf},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MaxRelDiff(tc.a, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("MaxRelDiff = %v, want %v", got, tc.want)
			}
		})
	}
}
