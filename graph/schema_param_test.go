package graph

import (
	"slices"
	"testing"
)

// TestParamInputs pins which inputs the table marks as compile-time
// parameters: the executor, shape inference and the rule checker all read
// this one list.
func TestParamInputs(t *testing.T) {
	want := map[string][]int{
		"Reshape": {1}, "Expand": {1}, "Slice": {1, 2, 3, 4}, "Pad": {1, 3}, "Split": {1},
		"Squeeze": {1}, "Unsqueeze": {1}, "ReduceSum": {1}, "ReduceMean": {1}, "ReduceMax": {1},
		"Resize": {1, 2, 3}, "ReduceMin": {1}, "ReduceProd": {1}, "ReduceL1": {1}, "ReduceL2": {1},
		"ReduceLogSum": {1}, "ReduceLogSumExp": {1}, "ReduceSumSquare": {1},
		"ConstantOfShape": {0}, "Range": {0, 1, 2}, "Tile": {1}, "CumSum": {1}, "OneHot": {1},
		"TopK": {1}, "Trilu": {1}, "HannWindow": {0}, "HammingWindow": {0}, "BlackmanWindow": {0},
	}
	for _, s := range Schemas() {
		if got := s.ParamInputs(); !slices.Equal(got, want[s.Op]) {
			t.Errorf("%s: param inputs %v, want %v", s.Op, got, want[s.Op])
		}
	}
	if got := ParamInputs("NoSuchOp"); got != nil {
		t.Errorf("unknown op: %v, want nil", got)
	}
}
