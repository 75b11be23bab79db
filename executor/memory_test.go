package executor

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

func TestPlannedMemory(t *testing.T) {
	b := graph.NewBuilder("mlp")
	x := b.Input("x", graph.Float32, 4, 32)
	w := b.Const("w", graph.NewTensor(graph.Float32, 32, 64))
	h := b.Op("MatMul", []*graph.Value{x, w}, nil)
	h = b.Op("Relu", []*graph.Value{h}, nil)
	b.Output(b.Op("Tanh", []*graph.Value{h}, nil))
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	mem, err := PlannedMemory(g)
	if err != nil {
		t.Fatal(err)
	}
	if mem.Weights != 32*64*4 {
		t.Errorf("weights %d bytes, want %d", mem.Weights, 32*64*4)
	}
	// The MatMul output (4x64 float32) is the one planned intermediate
	// (Relu may run in place on it); the graph output is allocated per run.
	if mem.Intermediates < 4*64*4 || mem.Intermediates > 2*4*64*4 {
		t.Errorf("intermediates %d bytes, want one or two 1 KiB buffers", mem.Intermediates)
	}
	st, err := MemoryModel{}.Latency(&graph.Model{Graph: g})
	if err != nil {
		t.Fatal(err)
	}
	if MemoryBytes(st.Median) != mem.Total() {
		t.Errorf("memory model %d, planned %d", MemoryBytes(st.Median), mem.Total())
	}
}
