package ort_test

import (
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/measure/goexec"
	"github.com/xrl-dev/xrl/verify"
)

// values makes the operands of one-node test models: float32 graph inputs
// (random in every verification set) and constants drawn from r.
type values struct{ r *rand.Rand }

func newValues(seed uint64) values { return values{rand.New(rand.NewPCG(seed, 7))} }

// input is a float32 graph input.
func (values) input(name string, shape ...int) *graph.Value {
	v := &graph.Value{Name: name}
	v.SetStatic(graph.Float32, shape)
	return v
}

// cst is a constant value holding t.
func (values) cst(name string, t *graph.Tensor) *graph.Value {
	v := &graph.Value{Name: name, Const: t}
	v.SetStatic(t.DType, t.Shape)
	return v
}

// rand is a float32 constant of normal random elements.
func (vs values) rand(name string, shape ...int) *graph.Value {
	d := make([]float32, graph.NumElements(shape))
	for i := range d {
		d[i] = float32(vs.r.NormFloat64())
	}
	return vs.cst(name, graph.FromFloat32(d, shape...))
}

// ints is an int32 constant.
func (vs values) ints(name string, data []int32, shape ...int) *graph.Value {
	t := graph.NewTensor(graph.Int32, shape...)
	copy(t.Data.([]int32), data)
	return vs.cst(name, t)
}

// oneNodeModel is a model of one node op of domain over ins (nil entries
// are omitted optional inputs; non-constant ones are the graph's inputs)
// whose outputs are those of outs that are set.
func oneNodeModel(t *testing.T, op, domain string, attrs graph.Attrs, ins []*graph.Value, outs ...bool) *graph.Model {
	t.Helper()
	g := &graph.Graph{Name: op}
	for _, v := range ins {
		if v != nil && v.Const == nil {
			g.Inputs = append(g.Inputs, v)
		}
	}
	n := &graph.Node{Name: "n", Op: op, Domain: domain, Inputs: ins, Attrs: attrs}
	for i, want := range outs {
		if !want {
			n.Outputs = append(n.Outputs, nil)
			continue
		}
		o := &graph.Value{Name: "y" + string(rune('0'+i))}
		n.Outputs = append(n.Outputs, o)
		g.Outputs = append(g.Outputs, o)
	}
	if err := graph.InferNode(n); err != nil {
		t.Fatal(err)
	}
	g.Nodes = []*graph.Node{n}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return &graph.Model{Graph: g, Opsets: []graph.OpsetID{{Domain: "", Version: 17}}}
}

// matchesORT checks m's outputs on the Go executor, in float32 and in
// float64, against ONNX Runtime's on random inputs.
func matchesORT(t *testing.T, m *graph.Model, tol float64) {
	t.Helper()
	goBE, ortBE := goAndORT(t)
	for _, g := range []struct {
		precision string
		be        measure.Backend
	}{{"float32", goBE}, {"float64", &goexec.Backend{Precision: graph.Float64}}} {
		res, err := verify.Pair(g.be, m, ortBE, m, verify.Options{Seeds: 2, Tolerance: tol})
		if err != nil {
			t.Fatalf("Go executor in %s: %v", g.precision, err)
		}
		if !res.OK {
			t.Errorf("Go executor in %s and ONNX Runtime disagree: %v", g.precision, res)
		}
	}
}
