package graph

import (
	"math"
	"testing"
)

func TestApplyBinary(t *testing.T) {
	nan := math.NaN()
	floats := []struct {
		op   BinaryOp
		a, b float64
		want float64
	}{
		{BinAdd, 1.5, 2, 3.5}, {BinSub, 1, 3, -2}, {BinMul, -2, 4, -8}, {BinDiv, 1, 4, 0.25},
		{BinPow, 2, 10, 1024}, {BinMax, 1, 2, 2}, {BinMin, 1, 2, 1}, {BinEqual, 3, 3, 1}, {BinEqual, 3, 4, 0},
		{BinMax, nan, 1, nan}, {BinMax, 1, nan, nan}, {BinMin, nan, 1, nan}, {BinMin, 1, nan, nan},
	}
	for _, c := range floats {
		got := ApplyBinary(c.op, c.a, c.b)
		if got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("float64 op %d (%v, %v) = %v, want %v", c.op, c.a, c.b, got, c.want)
		}
	}
	ints := []struct {
		op   BinaryOp
		a, b int32
		want int32
	}{
		{BinDiv, 7, 2, 3}, {BinDiv, -7, 2, -3}, {BinDiv, 7, 0, 0}, {BinMax, -1, -5, -1}, {BinMin, -1, -5, -5}, {BinPow, 3, 3, 27},
	}
	for _, c := range ints {
		if got := ApplyBinary(c.op, c.a, c.b); got != c.want {
			t.Errorf("int32 op %d (%v, %v) = %v, want %v", c.op, c.a, c.b, got, c.want)
		}
	}
	if !IsIntegral[uint8]() || IsIntegral[float32]() {
		t.Error("IsIntegral is wrong")
	}
}
