package graph

import (
	"slices"
	"sort"
	"testing"
)

// TestOpFacts pins the per-op flags of the table that other packages read
// instead of keeping their own lists: Movement (free in the FLOP count),
// Window and WeightDerived (the effective attribute defaults of rules),
// NonNegative (rules' nonneg ranges) and Exact (exact rule verification).
func TestOpFacts(t *testing.T) {
	tests := []struct {
		name string
		has  func(*OpSchema) bool
		want []string
	}{
		{"Movement", func(s *OpSchema) bool { return s.Movement }, []string{
			"Cast", "CastLike", "Concat", "Constant", "Dropout", "Expand", "Flatten", "Gather", "Identity",
			"Pad", "Reshape", "ReverseSequence", "Shape", "Slice", "Split", "Squeeze", "Tile", "Transpose", "Unsqueeze",
		}},
		{"Window", func(s *OpSchema) bool { return s.Window }, []string{"AveragePool", "Conv", "ConvInteger", "ConvTranspose", "MaxPool", "QLinearConv"}},
		{"WeightDerived kernel_shape", func(s *OpSchema) bool { return slices.Contains(s.WeightDerived, "kernel_shape") },
			[]string{"Conv", "ConvInteger", "ConvTranspose"}},
		{"any WeightDerived", func(s *OpSchema) bool { return len(s.WeightDerived) > 0 }, []string{"Conv", "ConvInteger", "ConvTranspose"}},
		{"NonNegative", func(s *OpSchema) bool { return s.NonNegative }, []string{"Abs", "Exp", "Relu", "Sigmoid", "Softmax", "Sqrt"}},
		{"ExactArith", func(s *OpSchema) bool { return s.Exact == ExactArith }, []string{
			"Add", "Conv", "Gemm", "MatMul", "Max", "Min", "Mul", "Neg", "Relu", "Sub",
		}},
		{"ExactMove", func(s *OpSchema) bool { return s.Exact == ExactMove }, []string{
			"Concat", "Dropout", "Expand", "Flatten", "Gather", "Identity", "Pad", "Reshape", "Slice", "Split", "Squeeze",
			"Transpose", "Unsqueeze",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, s := range Schemas() {
				if tc.has(s) {
					got = append(got, s.Op)
				}
			}
			sort.Strings(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("ops %v, want %v", got, tc.want)
			}
		})
	}
}
