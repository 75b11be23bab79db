package verify_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure/goexec" // also registers the "go" backend, for Runtimes
	"github.com/xrl-dev/xrl/onnx"
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

// randomWeights returns mlpModel's 32x16 weights drawn from seed.
func randomWeights(seed uint64) *graph.Tensor {
	r := rand.New(rand.NewPCG(seed, seed+1))
	w := graph.NewTensor(graph.Float32, 32, 16)
	for i := range w.Float32s() {
		w.Float32s()[i] = float32(r.NormFloat64() * 0.2)
	}
	return w
}

func TestVerifyCatchesPerturbedWeight(t *testing.T) {
	w := randomWeights(5)
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

// TestVerifyFailsWhenNonFiniteEverywhere checks that an output that is
// NaN (or infinite) everywhere in both models fails with a message
// saying so, while an output that is NaN in places still verifies.
func TestVerifyFailsWhenNonFiniteEverywhere(t *testing.T) {
	tests := []struct {
		name string
		op   func(b *graph.Builder, x *graph.Value) *graph.Value
		ok   bool
	}{
		{"sqrt of a negative", func(b *graph.Builder, x *graph.Value) *graph.Value {
			neg := b.Op("Sub", []*graph.Value{b.Op("Neg", []*graph.Value{b.Op("Abs", []*graph.Value{x}, nil)}, nil), b.Const("one", graph.FromFloat32([]float32{1}))}, nil)
			return b.Op("Sqrt", []*graph.Value{neg}, nil)
		}, false},
		{"log of zero", func(b *graph.Builder, x *graph.Value) *graph.Value {
			return b.Op("Log", []*graph.Value{b.Op("Mul", []*graph.Value{x, b.Const("zero", graph.FromFloat32([]float32{0}))}, nil)}, nil)
		}, false},
		{"sqrt, NaN in places", func(b *graph.Builder, x *graph.Value) *graph.Value {
			return b.Op("Sqrt", []*graph.Value{x}, nil)
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := graph.NewBuilder("nonfinite")
			b.Output(tc.op(b, b.Input("x", graph.Float32, 4, 8)))
			m := graphtest.Model(t, b)
			res, err := verify.Models(&goexec.Backend{}, m, m, verify.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.OK != tc.ok {
				t.Fatalf("OK = %v, want %v: %v", res.OK, tc.ok, res)
			}
			if !tc.ok && !strings.Contains(res.String(), "NaN or infinite everywhere") {
				t.Errorf("the report does not say why: %v", res)
			}
		})
	}
}

// TestVerifyWarnsOfConstantOutputs checks that an output that holds the
// same data on every input set (the computation before it multiplied by
// zero, as a classifier head left at zero does) is reported with a
// warning, the comparison still passing, and that one that varies is not.
func TestVerifyWarnsOfConstantOutputs(t *testing.T) {
	tests := []struct {
		name     string
		scale    float32
		constant bool
	}{
		{"head at zero", 0, true},
		{"head at 0.5", 0.5, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := graph.NewBuilder("head")
			h := b.Op("Tanh", []*graph.Value{b.Input("x", graph.Float32, 4, 8)}, nil)
			b.Output(b.Op("Add", []*graph.Value{b.Op("Mul", []*graph.Value{h, b.Const("w", graph.FromFloat32([]float32{tc.scale}))}, nil), b.Const("bias", graph.FromFloat32([]float32{0.25}))}, nil))
			m := graphtest.Model(t, b)
			res, err := verify.Models(&goexec.Backend{}, m, m, verify.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK {
				t.Fatalf("a model against itself: %v", res)
			}
			warned := strings.Contains(res.String(), "is the same on all")
			if res.Outputs[0].Constant != tc.constant || warned != tc.constant {
				t.Fatalf("Constant = %v, warned %v, want %v: %v", res.Outputs[0].Constant, warned, tc.constant, res)
			}
		})
	}
}

// TestVerifyTakesIfsBothWays checks on the Silero-style vad_if (the whole
// model inside an If on the sample rate) that verification takes the If
// both ways, drawing extra sets when its seeds do not, and says so.
func TestVerifyTakesIfsBothWays(t *testing.T) {
	m, err := onnx.ReadFile("../testdata/controlflow/vad_if.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Graph.BindShapes(map[string][]int{"x": {1, 512}}); err != nil {
		t.Fatal(err)
	}
	for _, seeds := range []int{1, 3} {
		res, err := verify.Models(&goexec.Backend{}, m, m, verify.Options{Seeds: seeds})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK || !strings.Contains(res.Branches, "taken both ways") {
			t.Errorf("%d seeds: %v; %s", seeds, res, res.Branches)
		}
		if seeds == 1 && len(res.Sets) < 2 {
			t.Errorf("one seed cannot take the If both ways, yet no set was added: %v", res.Sets)
		}
	}
}
