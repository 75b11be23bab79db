package rewrite

import (
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// TestCapOf checks which score sizes a block takes as its sequence, or as
// its sequence capped by a causal mask sliced from a constant.
func TestCapOf(t *testing.T) {
	seq := graph.SymDim(16, graph.SymAtom("seq"))
	dim := func(s string) graph.Dim {
		e, err := graph.ParseSym(s)
		if err != nil {
			t.Fatal(err)
		}
		return graph.SymDim(16, e)
	}
	tests := []struct {
		l       graph.Dim
		cap     int64
		matches bool
	}{
		{l: seq, matches: true},
		{l: dim("min(512,seq)"), cap: 512, matches: true},
		{l: dim("min(seq,64)"), cap: 64, matches: true},
		{l: dim("min(512,batch)")},
		{l: dim("max(512,seq)")},
		{l: dim("2*seq")},
		{l: fixedDim(16)},
	}
	for _, tt := range tests {
		c, ok := capOf(tt.l, seq)
		if ok != tt.matches || c != tt.cap {
			t.Errorf("capOf(%s, seq) = %d, %v; want %d, %v", tt.l.Param, c, ok, tt.cap, tt.matches)
		}
	}
}

// TestConcatTensors checks the packing of separate projections' weights
// (columns) and biases.
func TestConcatTensors(t *testing.T) {
	a := graph.FromFloat32([]float32{1, 2, 3, 4}, 2, 2)
	b := graph.FromFloat32([]float32{5, 6}, 2, 1)
	w, ok := concatTensors([]*graph.Tensor{a, b}, 1)
	if !ok || !slices.Equal(w.Shape, []int{2, 3}) || !slices.Equal(w.Float32s(), []float32{1, 2, 5, 3, 4, 6}) {
		t.Errorf("columns: %v %v, %v", w.Shape, w.Data, ok)
	}
	v, ok := concatTensors([]*graph.Tensor{graph.FromFloat64([]float64{1}, 1), graph.FromFloat64([]float64{2, 3}, 2)}, 0)
	if !ok || !slices.Equal(v.Float64s(), []float64{1, 2, 3}) {
		t.Errorf("vectors: %v, %v", v.Data, ok)
	}
	for name, ts := range map[string][]*graph.Tensor{
		"mixed types":    {a, graph.FromFloat64([]float64{5, 6}, 2, 1)},
		"different rows": {a, graph.FromFloat32([]float32{5, 6, 7}, 3, 1)},
		"integers":       {graph.FromInt64([]int64{1, 2}, 2, 1), graph.FromInt64([]int64{1, 2}, 2, 1)},
	} {
		if _, ok := concatTensors(ts, 1); ok {
			t.Errorf("%s: concatenated", name)
		}
	}
}
