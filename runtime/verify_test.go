package runtime

import (
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

func mlpModel(t *testing.T, w *graph.Tensor) *graph.Model {
	t.Helper()
	b := graph.NewBuilder("mlp")
	x := b.Input("x", graph.Float32, 4, 32)
	h := b.Op("MatMul", []*graph.Value{x, b.Const("w", w)}, nil)
	b.Output(b.Op("Tanh", []*graph.Value{h}, nil))
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	return &graph.Model{Graph: g}
}

func TestVerifyCatchesPerturbedWeight(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	w := graph.NewTensor(graph.Float32, 32, 16)
	for i := range w.Float32s() {
		w.Float32s()[i] = float32(r.NormFloat64() * 0.2)
	}
	orig := mlpModel(t, w)
	be, err := NewBackend("go", BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Verify(be, orig, mlpModel(t, w.Clone()), VerifyOptions{})
	if err != nil || !res.OK {
		t.Fatalf("identical models must verify: %v %v", res, err)
	}
	for _, delta := range []float32{1e-2, 1e-3} {
		p := w.Clone()
		p.Float32s()[17] += delta
		res, err := Verify(be, orig, mlpModel(t, p), VerifyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.OK {
			t.Errorf("perturbing one weight by %g went unnoticed: %v", delta, res)
		}
	}
}

func TestVerifyRejectsSignatureMismatch(t *testing.T) {
	w := graph.NewTensor(graph.Float32, 32, 16)
	a := mlpModel(t, w)
	b := graph.NewBuilder("other")
	x := b.Input("x", graph.Float32, 4, 16)
	b.Output(b.Op("Tanh", []*graph.Value{x}, nil))
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	be, _ := NewBackend("go", BackendOptions{})
	if _, err := Verify(be, a, &graph.Model{Graph: g}, VerifyOptions{}); err == nil {
		t.Error("models with different inputs verified")
	}
}
