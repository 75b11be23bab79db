package verify_test

import (
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure/goexec" // also registers the "go" backend, for Runtimes
	"github.com/xrl-dev/xrl/verify"
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
	be := &goexec.Backend{}
	res, err := verify.Models(be, orig, mlpModel(t, w.Clone()), verify.Options{})
	if err != nil || !res.OK {
		t.Fatalf("identical models must verify: %v %v", res, err)
	}
	for _, delta := range []float32{1e-2, 1e-3} {
		p := w.Clone()
		p.Float32s()[17] += delta
		res, err := verify.Models(be, orig, mlpModel(t, p), verify.Options{})
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
	if _, err := verify.Models(&goexec.Backend{}, a, &graph.Model{Graph: g}, verify.Options{}); err == nil {
		t.Error("models with different inputs verified")
	}
}

// TestRuntimesSkipsUnsupportedOps checks that a runtime that cannot run a
// node is reported as skipped, and that it is an error when no runtime
// ran the models.
func TestRuntimesSkipsUnsupportedOps(t *testing.T) {
	tests := []struct {
		name        string
		unsupported bool
	}{
		{"supported", false},
		{"unsupported", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mlpModel(t, graph.NewTensor(graph.Float32, 32, 16))
			if tc.unsupported {
				m.Graph.Nodes[1].Op = "NoSuchOp"
			}
			res, err := verify.Runtimes([]string{"go"}, m, m, verify.Options{Seeds: 1})
			if len(res) != 1 || res[0].Runtime != "go" {
				t.Fatalf("results %v, want one for go", res)
			}
			if got := res[0].Skipped != nil; got != tc.unsupported {
				t.Errorf("skipped %v (%v), want %v", got, res[0], tc.unsupported)
			}
			if got := err != nil; got != tc.unsupported {
				t.Errorf("error %v, want one only when no runtime ran", err)
			}
			if !tc.unsupported && !res[0].Result.OK {
				t.Errorf("a model differs from itself: %v", res[0])
			}
		})
	}
}
