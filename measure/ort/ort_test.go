package ort

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
	_ "github.com/xrl-dev/xrl/measure/goexec" // registers the "go" backend
	"github.com/xrl-dev/xrl/verify"
)

func randTensor(r *rand.Rand, shape ...int) *graph.Tensor {
	t := graph.NewTensor(graph.Float32, shape...)
	d := t.Float32s()
	for i := range d {
		d[i] = float32(r.NormFloat64() * 0.3)
	}
	return t
}

// smallModel is a conv + attention-like block touching common op kinds.
func smallModel(t *testing.T) *graph.Model {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	b := graph.NewBuilder("small")
	x := b.Input("x", graph.Float32, 1, 3, 8, 8)
	w := b.Const("w", randTensor(r, 4, 3, 3, 3))
	c := b.Op("Conv", []*graph.Value{x, w}, graph.Attrs{"pads": graph.IntsAttr(1, 1, 1, 1)})
	c = b.Op("Relu", []*graph.Value{c}, nil)
	flat := b.Op("Reshape", []*graph.Value{c, b.Const("shape", graph.FromInt64([]int64{4, 64}, 2))}, nil)
	m := b.Op("MatMul", []*graph.Value{flat, b.Const("wm", randTensor(r, 64, 16))}, nil)
	m = b.Op("Add", []*graph.Value{m, b.Const("bias", randTensor(r, 16))}, nil)
	s := b.Op("Softmax", []*graph.Value{m}, graph.Attrs{"axis": graph.IntAttr(-1)})
	b.Output(s)
	return graphtest.Model(t, b)
}

func TestLibraryLoads(t *testing.T) {
	v, err := Version()
	if err != nil {
		t.Fatalf("ONNX Runtime must be installed by scripts/setup for the tests: %v", err)
	}
	if !strings.HasPrefix(v, "1.") {
		t.Errorf("unexpected ONNX Runtime version %q", v)
	}
}

func TestParityWithGoExecutor(t *testing.T) {
	m := smallModel(t)
	ortBE, err := measure.NewBackend("ort", measure.BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	goBE, err := measure.NewBackend("go", measure.BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, be := range []measure.Backend{ortBE, goBE} {
		res, err := verify.Models(be, m, m, verify.Options{})
		if err != nil || !res.OK || res.MaxAbs != 0 {
			t.Fatalf("%s: a model must equal itself: %v %v", be.Name(), res, err)
		}
	}
	so, err := ortBE.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	defer so.Close()
	sg, err := goBE.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	in, err := measure.RandomInputs(m.Graph, 3)
	if err != nil {
		t.Fatal(err)
	}
	a, err := so.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sg.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	name := m.Graph.Outputs[0].Name
	x, y := a[name].Float32s(), b[name].Float32s()
	if len(x) != 64 || len(y) != 64 {
		t.Fatalf("output sizes %d and %d, want 64", len(x), len(y))
	}
	for i := range x {
		if d := x[i] - y[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("element %d: ort %v, go %v", i, x[i], y[i])
		}
	}
	d, ok := so.(measure.Discarder)
	if !ok {
		t.Fatal("ort sessions must support RunDiscard for timing")
	}
	if err := d.RunDiscard(in); err != nil {
		t.Fatal(err)
	}
	// Reusing the session with the same inputs must give the same answer.
	a2, err := so.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if !a2[name].Equal(a[name]) {
		t.Error("second run with cached inputs differs")
	}
}

func TestInputErrors(t *testing.T) {
	_, s := loadSession(t, smallModel(t), measure.BackendOptions{})
	defer s.Close()
	if _, err := s.Run(map[string]*graph.Tensor{}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("missing input: got %v", err)
	}
	wrong := graph.NewTensor(graph.Float64, 1, 3, 8, 8)
	if _, err := s.Run(map[string]*graph.Tensor{"x": wrong}); err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("wrong dtype: got %v", err)
	}
}

func TestOptLevels(t *testing.T) {
	for _, lvl := range []string{"", "all", "extended", "basic", "disable"} {
		if _, err := ParseOptLevel(lvl); err != nil {
			t.Errorf("%q: %v", lvl, err)
		}
	}
	if _, err := ParseOptLevel("max"); err == nil {
		t.Error("bad level accepted")
	}
}

func TestMissingLibraryMessage(t *testing.T) {
	t.Setenv(LibraryEnv, "/nonexistent/libonnxruntime.so.1")
	_, err := FindLibrary()
	if err == nil || !strings.Contains(err.Error(), LibraryEnv) {
		t.Fatalf("want an error naming %s, got %v", LibraryEnv, err)
	}
	t.Setenv(LibraryEnv, "")
	t.Chdir(t.TempDir())
	// From an unrelated directory (and with the test binary outside the
	// project) the library is not found; the message says how to install it.
	if _, err := FindLibrary(); err == nil || !strings.Contains(err.Error(), "scripts/setup") {
		t.Errorf("want a message saying how to install, got %v", err)
	}
}
