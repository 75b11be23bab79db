package executor

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
)

func mustExec(t *testing.T, g *graph.Graph, opts ExecOptions) *Executor {
	t.Helper()
	ex, err := NewExecutor(g, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func TestRunInputErrors(t *testing.T) {
	g := graphtest.Build(t, func(b *graph.Builder) {
		x := b.Input("x", graph.Float32, 2, 3)
		b.Output(b.Op("Relu", []*graph.Value{x}, nil))
	})
	ex := mustExec(t, g, ExecOptions{})
	good := randTensor(rand.New(rand.NewPCG(1, 1)), -1, 1, 2, 3)
	tests := []struct {
		name   string
		inputs map[string]*graph.Tensor
		want   string
	}{
		{"unknown name", map[string]*graph.Tensor{"x": good, "y": good}, `unknown input "y"`},
		{"missing", map[string]*graph.Tensor{}, `missing input "x"`},
		{"dtype", map[string]*graph.Tensor{"x": graph.NewTensor(graph.Int64, 2, 3)}, `input "x" has dtype int64, want float32`},
		{"shape", map[string]*graph.Tensor{"x": graph.NewTensor(graph.Float32, 3, 2)}, `input "x" has shape 3x2, want 2x3`},
		{"short data", map[string]*graph.Tensor{"x": {DType: graph.Float32, Shape: []int{2, 3}, Data: []float32{1}}}, `input "x": tensor data has 1 elements`},
		{"wrong Go type", map[string]*graph.Tensor{"x": {DType: graph.Float32, Shape: []int{2, 3}, Data: []float64{1, 2, 3, 4, 5, 6}}}, `input "x": tensor data of Go type []float64`},
		{"float16", map[string]*graph.Tensor{"x": {DType: graph.Float16, Shape: []int{2, 3}, Data: make([]uint16, 6)}}, `input "x": dtype float16 is not supported`},
	}
	for _, tc := range tests {
		_, err := ex.Run(tc.inputs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	if _, err := ex.Run(map[string]*graph.Tensor{"x": good}); err != nil {
		t.Fatalf("good input after errors: %v", err)
	}
}

func TestCompileErrors(t *testing.T) {
	opaque := func() *graph.Graph {
		x := &graph.Value{Name: "boxes"}
		x.SetStatic(graph.Float32, []int{1, 4, 4})
		y := &graph.Value{Name: "sel"}
		y.SetStatic(graph.Int64, []int{3, 3})
		n := &graph.Node{Name: "x", Op: "NonMaxSuppression", Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Opaque: []byte{0}}
		return &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{n}}
	}
	unknownShape := func() *graph.Graph {
		g := graphtest.Build(t, func(b *graph.Builder) {
			x := b.Input("x", graph.Float32, 2)
			b.Output(b.Op("Relu", []*graph.Value{x}, nil))
		})
		g.Nodes[0].Outputs[0].ShapeKnown = false
		return g
	}
	symbolic := func() *graph.Graph {
		g := unknownShape()
		g.Inputs[0].Shape = graph.Shape{{Value: -1, Param: "batch"}}
		return g
	}
	half := func() *graph.Graph {
		g := unknownShape()
		g.Inputs[0].DType = graph.Float16
		return g
	}
	tests := []struct {
		name string
		g    *graph.Graph
		opts ExecOptions
		want string
	}{
		{"opaque op", opaque(), ExecOptions{}, `node "x" (NonMaxSuppression): op is not supported by the Go executor`},
		{"unknown shape", unknownShape(), ExecOptions{}, `value "Relu" has no known shape`},
		{"symbolic input", symbolic(), ExecOptions{}, `value "x" has non-static shape batch`},
		{"float16 input", half(), ExecOptions{}, `value "x" has dtype float16, which the Go executor does not support`},
		{"bad precision", unknownShape(), ExecOptions{Precision: graph.Int32}, `precision int32 is not supported`},
		{"nil graph", nil, ExecOptions{}, `nil graph`},
	}
	for _, tc := range tests {
		_, err := NewExecutor(tc.g, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

// TestLivenessReusesBuffers checks that a long chain needs memory for a
// couple of tensors, not one per node.
func TestLivenessReusesBuffers(t *testing.T) {
	const n = 64 * 32 * 32 // 256 KiB of float32
	size := int64(4 * n)
	tests := []struct {
		name string
		op   func(b *graph.Builder, v *graph.Value, i int) *graph.Value
		max  int64 // buffers allowed, in tensor sizes
	}{
		{"elementwise in place", func(b *graph.Builder, v *graph.Value, i int) *graph.Value {
			ops := []string{"Relu", "Sigmoid", "Tanh"}
			return b.Op(ops[i%3], []*graph.Value{v}, nil)
		}, 1},
		{"transposes", func(b *graph.Builder, v *graph.Value, i int) *graph.Value {
			return b.Op("Transpose", []*graph.Value{v}, graph.Attrs{"perm": graph.IntsAttr(0, 2, 3, 1)})
		}, 2},
		{"reshape aliases", func(b *graph.Builder, v *graph.Value, i int) *graph.Value {
			if i%2 == 0 {
				return b.Op("Flatten", []*graph.Value{v}, nil)
			}
			return b.Op("Reshape", []*graph.Value{v, b.Const("shape", ints64(1, 64, 32, 32))}, nil)
		}, 0},
	}
	for _, tc := range tests {
		var x *graph.Value
		g := graphtest.Build(t, func(b *graph.Builder) {
			x = b.Input("x", graph.Float32, 1, 64, 32, 32)
			v := x
			for i := 0; i < 40; i++ {
				v = tc.op(b, v, i)
			}
			b.Output(b.Op("Relu", []*graph.Value{v}, nil))
		})
		ex := mustExec(t, g, ExecOptions{})
		t.Logf("%s: PeakBytes %d (tensor %d bytes)", tc.name, ex.PeakBytes(), size)
		if p := ex.PeakBytes(); p > tc.max*size {
			t.Errorf("%s: PeakBytes = %d, want <= %d (%d tensors of %d bytes)", tc.name, p, tc.max*size, tc.max, size)
		}
		xt := randTensor(rand.New(rand.NewPCG(2, 2)), -1, 1, 1, 64, 32, 32)
		keep := xt.Clone()
		if _, err := ex.Run(map[string]*graph.Tensor{x.Name: xt}); err != nil {
			t.Fatal(err)
		}
		if !xt.Equal(keep) {
			t.Errorf("%s: Run modified its input", tc.name)
		}
	}
}

// TestBufferReuseCorrectness builds graphs where a value is still needed
// after an in-place candidate consumes it, and compares with plain
// evaluation.
func TestBufferReuseCorrectness(t *testing.T) {
	var x *graph.Value
	var outs []*graph.Value
	g := graphtest.Build(t, func(b *graph.Builder) {
		x = b.Input("x", graph.Float32, 4, 6)
		y := b.Op("Relu", []*graph.Value{x}, nil)
		r := b.Op("Reshape", []*graph.Value{y, b.Const("s", ints64(6, 4))}, nil)
		e := b.Op("Exp", []*graph.Value{r}, nil) // y is still live through r's alias
		back := b.Op("Reshape", []*graph.Value{e, b.Const("s2", ints64(4, 6))}, nil)
		a := b.Op("Sigmoid", []*graph.Value{y}, nil)
		t2 := b.Op("Tanh", []*graph.Value{y}, nil)
		s := b.Op("Add", []*graph.Value{a, t2}, nil)
		out := b.Op("Mul", []*graph.Value{s, back}, nil)
		outs = []*graph.Value{out, y, r}
		b.Output(outs...)
	})
	ex := mustExec(t, g, ExecOptions{})
	r := rand.New(rand.NewPCG(3, 3))
	for run := 0; run < 3; run++ { // sequential reuse
		xt := randTensor(r, -2, 2, 4, 6)
		res, err := ex.Run(map[string]*graph.Tensor{x.Name: xt})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, 24)
		relu := make([]float64, 24)
		for i, v := range xt.Float32s() {
			y := math.Max(float64(v), 0)
			relu[i] = y
			want[i] = (1/(1+math.Exp(-y)) + math.Tanh(y)) * math.Exp(y)
		}
		checkClose(t, "out", res[outs[0].Name], []int{4, 6}, want, 1e-5)
		checkClose(t, "relu output", res[outs[1].Name], []int{4, 6}, relu, 0)
		checkClose(t, "reshape output", res[outs[2].Name], []int{6, 4}, relu, 0)
		res[outs[1].Name].Float32s()[0] = 99 // outputs are the caller's
		if res[outs[2].Name].Float32s()[0] == 99 {
			t.Fatal("two outputs share memory")
		}
	}
}

func TestOutputsOfInputsAndConstants(t *testing.T) {
	var x, c *graph.Value
	g := graphtest.Build(t, func(b *graph.Builder) {
		x = b.Input("x", graph.Float32, 2)
		c = b.Const("c", graph.FromFloat32([]float32{5, 6}, 2))
		b.Output(x, c, b.Op("Add", []*graph.Value{x, c}, nil))
	})
	ex := mustExec(t, g, ExecOptions{})
	xt := graph.FromFloat32([]float32{1, 2}, 2)
	res, err := ex.Run(map[string]*graph.Tensor{"x": xt})
	if err != nil {
		t.Fatal(err)
	}
	res["x"].Float32s()[0] = 42
	res["c"].Float32s()[0] = 42
	if xt.Float32s()[0] != 1 || c.Const.Float32s()[0] != 5 {
		t.Fatal("outputs alias the caller's input or the graph's constant")
	}
	checkClose(t, "Add", res["Add"], []int{2}, []float64{6, 8}, 0)
}

func TestConstantFolding(t *testing.T) {
	// Shape -> Gather -> Unsqueeze -> Concat -> Reshape: the shape chain is
	// folded at compile time; only Reshape's alias remains.
	var x *graph.Value
	g := graphtest.Build(t, func(b *graph.Builder) {
		x = b.Input("x", graph.Float32, 2, 3, 4)
		s := b.Op("Shape", []*graph.Value{x}, nil)
		d0 := b.Op("Gather", []*graph.Value{s, b.Const("i", graph.FromInt64([]int64{0}))}, nil)
		d0u := b.Op("Unsqueeze", []*graph.Value{d0, b.Const("ax", ints64(0))}, nil)
		shape := b.Op("Concat", []*graph.Value{d0u, b.Const("m1", ints64(-1))}, graph.Attrs{"axis": graph.IntAttr(0)})
		b.Output(b.Op("Reshape", []*graph.Value{x, shape}, nil))
	})
	ex := mustExec(t, g, ExecOptions{})
	if len(ex.steps) != 1 || ex.steps[0].node.Op != "Reshape" {
		var ops []string
		for _, st := range ex.steps {
			ops = append(ops, st.node.Op)
		}
		t.Fatalf("steps after folding: %v, want [Reshape]", ops)
	}
	res, err := ex.Run(map[string]*graph.Tensor{"x": seqTensor(2, 3, 4)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res["Reshape"]; !slices.Equal(got.Shape, []int{2, 12}) || got.Float32s()[13] != 13 {
		t.Fatalf("Reshape output %v %v", got.Shape, got.Data)
	}
}

func TestFloat64Precision(t *testing.T) {
	var x *graph.Value
	g := graphtest.Build(t, func(b *graph.Builder) {
		x = b.Input("x", graph.Float32, 3)
		big := b.Const("big", graph.FromFloat32([]float32{1e8}, 1))
		s := b.Op("Add", []*graph.Value{x, big}, nil)
		d := b.Op("Sub", []*graph.Value{s, big}, nil)
		b.Output(d, b.Op("Shape", []*graph.Value{d}, nil))
	})
	xt := graph.FromFloat32([]float32{0.25, 1.5, 3}, 3)
	r32, err := mustExec(t, g, ExecOptions{}).Run(map[string]*graph.Tensor{"x": xt})
	if err != nil {
		t.Fatal(err)
	}
	ex64 := mustExec(t, g, ExecOptions{Precision: graph.Float64})
	r64, err := ex64.Run(map[string]*graph.Tensor{"x": xt})
	if err != nil {
		t.Fatal(err)
	}
	if r32["Sub"].DType != graph.Float32 || r64["Sub"].DType != graph.Float64 || r64["Shape"].DType != graph.Int64 {
		t.Fatalf("dtypes %v / %v / %v", r32["Sub"].DType, r64["Sub"].DType, r64["Shape"].DType)
	}
	// float32 loses the fractions next to 1e8; float64 keeps them.
	checkClose(t, "float64", r64["Sub"], []int{3}, []float64{0.25, 1.5, 3}, 0)
	if r32["Sub"].Float32s()[0] == 0.25 {
		t.Fatal("float32 run unexpectedly exact: the test does not distinguish precisions")
	}
	// Float64 inputs are accepted for float32 graph inputs in float64 mode.
	if _, err := ex64.Run(map[string]*graph.Tensor{"x": graph.FromFloat64([]float64{1, 2, 3}, 3)}); err != nil {
		t.Fatal(err)
	}
}

// TestSteadyStateAllocations checks that Run allocates only its results
// (map, output tensor, shape, data) and nothing per node, for chains of
// every kind of kernel on small tensors.
func TestSteadyStateAllocations(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	type layer func(b *graph.Builder, v *graph.Value) *graph.Value
	op := func(name string, attrs graph.Attrs, extra ...func(b *graph.Builder) *graph.Value) layer {
		return func(b *graph.Builder, v *graph.Value) *graph.Value {
			ins := []*graph.Value{v}
			for _, e := range extra {
				ins = append(ins, e(b))
			}
			return b.Op(name, ins, attrs)
		}
	}
	cst := func(tt *graph.Tensor) func(b *graph.Builder) *graph.Value {
		return func(b *graph.Builder) *graph.Value { return b.Const("c", tt) }
	}
	tests := []struct {
		name string
		f    layer
	}{
		{"unary", op("Sigmoid", nil)},
		{"binary", op("Add", nil, cst(randTensor(r, -1, 1, 16)))},
		{"clip", op("Clip", nil, cst(scalarF(0)))},
		{"softmax", op("Softmax", nil)},
		{"layernorm", op("LayerNormalization", nil, cst(randTensor(r, 0, 1, 16)))},
		{"batchnorm", op("BatchNormalization", nil, cst(randTensor(r, 0.5, 1, 4)), cst(randTensor(r, 0.5, 1, 4)), cst(randTensor(r, 0.5, 1, 4)), cst(randTensor(r, 0.5, 1, 4)))},
		{"transpose", op("Transpose", graph.Attrs{"perm": graph.IntsAttr(0, 1, 3, 2)})},
		{"matmul", op("MatMul", nil, cst(randTensor(r, 0, 1, 16, 16)))},
		{"conv", op("Conv", graph.Attrs{"pads": graph.IntsAttr(1, 1, 1, 1)}, cst(randTensor(r, 0, 1, 4, 4, 3, 3)))},
		{"maxpool", op("MaxPool", graph.Attrs{"kernel_shape": graph.IntsAttr(3, 3), "pads": graph.IntsAttr(1, 1, 1, 1)})},
		{"pad reflect", op("Pad", graph.Attrs{"mode": graph.StringAttr("reflect")}, cst(ints64(0, 0, 1, 1, 0, 0, -1, -1)))},
		{"resize", func(b *graph.Builder, v *graph.Value) *graph.Value {
			lin := graph.Attrs{"mode": graph.StringAttr("linear")}
			up := b.Op("Resize", []*graph.Value{v, nil, b.Const("s", graph.FromFloat32([]float32{1, 1, 2, 0.5}, 4))}, lin)
			return b.Op("Resize", []*graph.Value{up, nil, b.Const("s", graph.FromFloat32([]float32{1, 1, 0.5, 2}, 4))}, lin)
		}},
		{"reduce", func(b *graph.Builder, v *graph.Value) *graph.Value {
			m := b.Op("ReduceMean", []*graph.Value{v, b.Const("a", ints64(-1))}, nil)
			return b.Op("Sub", []*graph.Value{v, m}, nil)
		}},
		{"where", func(b *graph.Builder, v *graph.Value) *graph.Value {
			return b.Op("Where", []*graph.Value{b.Op("Equal", []*graph.Value{v, v}, nil), v, v}, nil)
		}},
	}
	for _, tc := range tests {
		g := graphtest.Build(t, func(b *graph.Builder) {
			v := b.Input("x", graph.Float32, 1, 4, 16, 16)
			for i := 0; i < 10; i++ {
				v = tc.f(b, v)
			}
			b.Output(v)
		})
		ex := mustExec(t, g, ExecOptions{})
		in := map[string]*graph.Tensor{"x": randTensor(r, -1, 1, 1, 4, 16, 16)}
		allocs := testing.AllocsPerRun(10, func() {
			if _, err := ex.Run(in); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 6 {
			t.Errorf("%s: Run allocates %.0f times for %d steps, want <= 6", tc.name, allocs, len(ex.steps))
		}
	}
}
