package ort

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/onnx"
)

// TestProfileONNX profiles a serialised model as it is: ONNX Runtime's
// own fusion of MatMul and Add into Gemm must show in the ops it ran.
func TestProfileONNX(t *testing.T) {
	be, err := New(measure.BackendOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	b := graph.NewBuilder("dense")
	x := b.Input("x", graph.Float32, 32, 128)
	y := b.Op("MatMul", []*graph.Value{x, b.Const("w", randTensor(r, 128, 64))}, nil)
	b.Output(b.Op("Add", []*graph.Value{y, b.Const("bias", randTensor(r, 64))}, nil))
	m := graphtest.Model(t, b)
	data, err := onnx.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	p, err := be.ProfileONNX(data, m, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if ops := p.Ops(); !slices.Equal(ops, []string{"Gemm"}) {
		t.Errorf("ONNX Runtime ran %v: want its Gemm fusion of the MatMul and the Add", ops)
	}
	if _, err := be.ProfileONNX([]byte("not a model"), m, 1, 2); err == nil {
		t.Errorf("a file that is not a model was profiled")
	}
}
