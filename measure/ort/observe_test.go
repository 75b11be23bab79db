package ort

import (
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
	"github.com/xrl-dev/xrl/verify"
)

// opaqueTriluModel is x[3x4] -> Trilu (kept opaque, no recorded shape) ->
// Relu -> y, and a second output computed beside it.
func opaqueTriluModel(t *testing.T) *graph.Model {
	t.Helper()
	enc, err := proto.Marshal(&onnxpb.NodeProto{OpType: proto.String("Trilu")})
	if err != nil {
		t.Fatal(err)
	}
	x := &graph.Value{Name: "x", DType: graph.Float32, Shape: graph.Shape{{Value: -1, Param: "batch"}, {Value: 4}}, ShapeKnown: true}
	tri := &graph.Value{Name: "tri"}
	y := &graph.Value{Name: "y"}
	g := &graph.Graph{
		Name:   "opaque",
		Inputs: []*graph.Value{x},
		Nodes: []*graph.Node{
			{Name: "trilu", Op: "Trilu", Inputs: []*graph.Value{x}, Outputs: []*graph.Value{tri}, Opaque: enc},
			{Name: "relu", Op: "Relu", Inputs: []*graph.Value{tri}, Outputs: []*graph.Value{y}},
		},
		Outputs: []*graph.Value{y},
	}
	return &graph.Model{Graph: g, IRVersion: 8, Opsets: []graph.OpsetID{{Version: 17}}}
}

func TestBindShapesObservesOpaqueOps(t *testing.T) {
	if _, err := New(measure.BackendOptions{}); err != nil {
		t.Fatal(err)
	}
	bind := map[string][]int{"x": {3, 4}}
	if err := opaqueTriluModel(t).Graph.BindShapes(bind); err == nil || !graph.ShapeUnknown(err) {
		t.Fatalf("static inference should not know Trilu's shape, got %v", err)
	}
	m := opaqueTriluModel(t)
	observed, err := measure.BindShapes(m, bind)
	if err != nil {
		t.Fatal(err)
	}
	if len(observed) != 1 || observed[0].Name != "trilu" {
		t.Errorf("observed nodes = %v, want [trilu]", observed)
	}
	y := m.Graph.Outputs[0]
	if !y.ShapeKnown || !y.Shape.Equal(graph.StaticShape(3, 4)) || y.DType != graph.Float32 {
		t.Errorf("y = %v %v, want float32 3x4", y.DType, y.Shape)
	}
	if err := m.Graph.Validate(); err != nil {
		t.Errorf("validate after observed shapes: %v", err)
	}
	// The bound model verifies against itself in ORT, and the Go executor
	// is skipped with a reason rather than failing.
	res, err := verify.Runtimes([]string{"go", "ort"}, m, m, verify.Options{Seeds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Skipped == nil || res[1].Skipped != nil || !res[1].Result.OK {
		t.Errorf("want go skipped and ort equal, got %v", res)
	}
}

// scalarModel reads a rank-0 input and writes a rank-0 output
// (ReduceMax with keepdims=0 over every axis).
func scalarModel(t *testing.T) *graph.Model {
	t.Helper()
	b := graph.NewBuilder("scalars")
	x := b.Input("x", graph.Float32, 2, 5)
	s := b.Input("s", graph.Float32)
	sum := b.Op("Add", []*graph.Value{x, s}, nil)
	b.Output(b.Op("ReduceMax", []*graph.Value{sum}, graph.Attrs{"keepdims": graph.IntAttr(0)}))
	b.Output(sum)
	g := graphtest.Graph(t, b)
	return &graph.Model{Graph: g, IRVersion: 8, Opsets: []graph.OpsetID{{Version: 13}}}
}

// loadSession makes an ORT backend with o and loads m into it.
func loadSession(t *testing.T, m *graph.Model, o measure.BackendOptions) (*Backend, measure.Session) {
	t.Helper()
	be, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := be.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	return be, s
}

func TestRankZeroValues(t *testing.T) {
	m := scalarModel(t)
	be, s := loadSession(t, m, measure.BackendOptions{Threads: 1})
	defer s.Close()
	r := rand.New(rand.NewPCG(3, 4))
	in := map[string]*graph.Tensor{"x": randTensor(r, 2, 5), "s": graph.FromFloat32([]float32{2.5})}
	out, err := s.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	mx := out[m.Graph.Outputs[0].Name]
	if mx == nil || len(mx.Shape) != 0 || mx.Len() != 1 {
		t.Fatalf("scalar output = %v, want a rank-0 tensor", mx)
	}
	want := float32(-1e9)
	for _, v := range in["x"].Float32s() {
		want = max(want, v+2.5)
	}
	if got := mx.Float32s()[0]; got != want {
		t.Errorf("max = %g, want %g", got, want)
	}
	if d, ok := s.(measure.Discarder); ok {
		if err := d.RunDiscard(in); err != nil {
			t.Errorf("RunDiscard with scalars: %v", err)
		}
	}
	// The cost model times each op alone, scalar operands included.
	lm, err := measure.NewLatencyModel("cost", measure.BackendOptions{Threads: 1}, measure.MeasureOptions{Warmup: 1, Runs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lm.Latency(m); err != nil {
		t.Errorf("cost model on rank-0 values: %v", err)
	}
	goBE, _ := measure.NewBackend("go", measure.BackendOptions{})
	res, err := verify.Pair(goBE, m, be, m, verify.Options{Seeds: 2})
	if err != nil || !res.OK {
		t.Errorf("go vs ort on rank-0 values: %v %v", res, err)
	}
}
