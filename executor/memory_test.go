package executor

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
)

func TestPlannedMemory(t *testing.T) {
	b := graph.NewBuilder("mlp")
	x := b.Input("x", graph.Float32, 4, 32)
	w := b.Const("w", graph.NewTensor(graph.Float32, 32, 64))
	h := b.Op("MatMul", []*graph.Value{x, w}, nil)
	h = b.Op("Relu", []*graph.Value{h}, nil)
	b.Output(b.Op("Tanh", []*graph.Value{h}, nil))
	mem := plan(t, b)
	if mem.Weights != 32*64*4 {
		t.Errorf("weights %d bytes, want %d", mem.Weights, 32*64*4)
	}
	// The MatMul output (4x64 float32) is the one planned intermediate
	// (Relu may run in place on it); the graph output is allocated per run.
	if mem.Intermediates < 4*64*4 || mem.Intermediates > 2*4*64*4 {
		t.Errorf("intermediates %d bytes, want one or two 1 KiB buffers", mem.Intermediates)
	}
}

// TestPlannedMemoryConstants checks that the constants counted are the
// ones the compiled executor holds: those nodes read, Constant-node data
// and the values it folds at compile time.
func TestPlannedMemoryConstants(t *testing.T) {
	const w = 32 * 64 * 4 // bytes of a 32x64 float32 weight
	tests := []struct {
		name  string
		build func(b *graph.Builder, x *graph.Value) *graph.Value
		want  int64
	}{
		{"weight read by a node", func(b *graph.Builder, x *graph.Value) *graph.Value {
			return b.Op("MatMul", []*graph.Value{x, b.Const("w", graph.NewTensor(graph.Float32, 32, 64))}, nil)
		}, w},
		{"weight transposed at compile time", func(b *graph.Builder, x *graph.Value) *graph.Value {
			wt := b.Op("Transpose", []*graph.Value{b.Const("w", graph.NewTensor(graph.Float32, 64, 32))}, nil)
			return b.Op("MatMul", []*graph.Value{x, wt}, nil)
		}, 2 * w},
		{"Constant node", func(b *graph.Builder, x *graph.Value) *graph.Value {
			c := b.Op("Constant", nil, graph.Attrs{"value": graph.TensorAttr(graph.NewTensor(graph.Float32, 32))})
			return b.Op("Add", []*graph.Value{x, c}, nil)
		}, 32 * 4},
		{"unused initializer", func(b *graph.Builder, x *graph.Value) *graph.Value {
			b.Const("unused", graph.NewTensor(graph.Float32, 32, 64))
			return b.Op("Relu", []*graph.Value{x}, nil)
		}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := graph.NewBuilder("m")
			b.Output(b.Op("Tanh", []*graph.Value{tc.build(b, b.Input("x", graph.Float32, 4, 32))}, nil))
			mem := plan(t, b)
			if mem.Weights != tc.want {
				t.Errorf("weights %d bytes, want %d", mem.Weights, tc.want)
			}
		})
	}
}

// plan builds b's graph and returns its planned memory.
func plan(t *testing.T, b *graph.Builder) Memory {
	t.Helper()
	mem, err := PlannedMemory(graphtest.Graph(t, b))
	if err != nil {
		t.Fatal(err)
	}
	return mem
}
