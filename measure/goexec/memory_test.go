package goexec

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
)

// TestMemoryModel checks that the memory scorer reports the executor's
// planned peak memory, in bytes, and that the memory objective ranks by it.
func TestMemoryModel(t *testing.T) {
	b := graph.NewBuilder("bias")
	sum := b.Op("Add", []*graph.Value{b.Input("x", graph.Float32, 8, 16), b.Const("bias", graph.NewTensor(graph.Float32, 16))}, nil)
	b.Output(b.Op("Sigmoid", []*graph.Value{b.Op("Exp", []*graph.Value{sum}, nil)}, nil))
	m := graphtest.Model(t, b)
	mem, err := executor.PlannedMemory(m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MemoryModel{}.Memory(m)
	if err != nil {
		t.Fatal(err)
	}
	if int64(got) != mem.Total() {
		t.Errorf("memory model %d bytes, planned %d", int64(got), mem.Total())
	}
	st, err := measure.MemoryObjective{Memory: MemoryModel{}}.Latency(m)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != got || st.Median != measure.MemoryScore(got) {
		t.Errorf("memory objective %v (%d bytes), want %v (%d bytes)", st.Median, int64(st.Bytes), measure.MemoryScore(got), int64(got))
	}
}
