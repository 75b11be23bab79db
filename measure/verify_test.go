package measure_test

import (
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
	_ "github.com/xrl-dev/xrl/measure/goexec" // registers the "go" backend
)

func mlpModel(t *testing.T, w *graph.Tensor) *graph.Model {
	t.Helper()
	b := graph.NewBuilder("mlp")
	x := b.Input("x", graph.Float32, 4, 32)
	h := b.Op("MatMul", []*graph.Value{x, b.Const("w", w)}, nil)
	b.Output(b.Op("Tanh", []*graph.Value{h}, nil))
	return graphtest.Model(t, b)
}

func TestVerifyCatchesPerturbedWeight(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	w := graph.NewTensor(graph.Float32, 32, 16)
	for i := range w.Float32s() {
		w.Float32s()[i] = float32(r.NormFloat64() * 0.2)
	}
	orig := mlpModel(t, w)
	be, err := measure.NewBackend("go", measure.BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := measure.Verify(be, orig, mlpModel(t, w.Clone()), measure.VerifyOptions{})
	if err != nil || !res.OK {
		t.Fatalf("identical models must verify: %v %v", res, err)
	}
	for _, delta := range []float32{1e-2, 1e-3} {
		p := w.Clone()
		p.Float32s()[17] += delta
		res, err := measure.Verify(be, orig, mlpModel(t, p), measure.VerifyOptions{})
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
	g := graphtest.Graph(t, b)
	be, _ := measure.NewBackend("go", measure.BackendOptions{})
	if _, err := measure.Verify(be, a, &graph.Model{Graph: g}, measure.VerifyOptions{}); err == nil {
		t.Error("models with different inputs verified")
	}
}
