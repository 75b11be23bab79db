package executor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

func TestKernelTableCoversSchemas(t *testing.T) {
	if missing := opsWithoutKernel(); len(missing) > 0 {
		t.Fatalf("ops in the schema table without a Go kernel: %v", missing)
	}
	for _, s := range graph.Schemas() {
		if s.Domain != "" && s.Domain != graph.MicrosoftDomain {
			t.Errorf("op %s has domain %q; the kernel table covers the default domain and %s", s.Op, s.Domain, graph.MicrosoftDomain)
		}
	}
}

func TestUnaryKernels(t *testing.T) {
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	tests := []struct {
		op    string
		attrs graph.Attrs
		lo    float64
		f     func(x float64) float64
	}{
		{"Relu", nil, -2, func(x float64) float64 { return math.Max(x, 0) }},
		{"Sqrt", nil, 0, math.Sqrt},
		{"Exp", nil, -2, math.Exp},
		{"Log", nil, 0.01, math.Log},
		{"Erf", nil, -2, math.Erf},
		{"Sigmoid", nil, -30, sig},
		{"Tanh", nil, -2, math.Tanh},
		{"LeakyRelu", graph.Attrs{"alpha": graph.FloatAttr(0.3)}, -2, func(x float64) float64 {
			if x < 0 {
				return 0.3 * x
			}
			return x
		}},
		{"LeakyRelu", nil, -2, func(x float64) float64 { return math.Max(x, 0.01*x) }},
		{"HardSigmoid", graph.Attrs{"alpha": graph.FloatAttr(0.25), "beta": graph.FloatAttr(0.4)}, -6, func(x float64) float64 {
			return math.Min(1, math.Max(0, 0.25*x+0.4))
		}},
		{"HardSwish", nil, -6, func(x float64) float64 { return x * math.Min(1, math.Max(0, x/6+0.5)) }},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range tests {
		for _, n := range []int{7, 70000} { // 70000 takes the parallel path
			x := randTensor(r, tc.lo, -tc.lo+4, n)
			want := make([]float64, n)
			for i, v := range x.Float32s() {
				want[i] = tc.f(float64(v))
			}
			bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
				got := runOp(t, tc.op, []opInput{in(x)}, tc.attrs, 1, opts)[0]
				checkClose(t, tc.op, got, []int{n}, want, 1e-5)
			})
		}
	}
}

func TestReluInt(t *testing.T) {
	x := &graph.Tensor{DType: graph.Int32, Shape: []int{4}, Data: []int32{-3, 0, 5, -1}}
	got := runOp(t, "Relu", []opInput{in(x)}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Relu int32", got, []int{4}, []float64{0, 0, 5, 0}, 0)
}

func TestClip(t *testing.T) {
	x := graph.FromFloat32([]float32{-3, -0.5, 0.2, 4}, 4)
	tests := []struct {
		name string
		ins  []opInput
		want []float64
	}{
		{"both", []opInput{in(x), in(scalarF(-1)), in(scalarF(1))}, []float64{-1, -0.5, 0.2, 1}},
		{"min only", []opInput{in(x), in(scalarF(0))}, []float64{0, 0, 0.2, 4}},
		{"max only", []opInput{in(x), absentInput, konst(scalarF(0))}, []float64{-3, -0.5, 0, 0}},
		{"none", []opInput{in(x)}, []float64{-3, -0.5, 0.2, 4}},
	}
	for _, tc := range tests {
		bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
			got := runOp(t, "Clip", tc.ins, nil, 1, opts)[0]
			checkClose(t, "Clip "+tc.name, got, []int{4}, tc.want, 1e-6)
		})
	}
	xi := graph.FromInt64([]int64{-5, 3, 9}, 3)
	got := runOp(t, "Clip", []opInput{in(xi), in(graph.FromInt64([]int64{0})), in(graph.FromInt64([]int64{4}))}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Clip int64", got, []int{3}, []float64{0, 3, 4}, 0)
}

// broadcastShapes are pairs covering the fast paths (same shape, scalar,
// trailing vector) and general broadcasting on either side.
var broadcastShapes = [][2][]int{
	{{2, 3, 4}, {2, 3, 4}},
	{{2, 3, 4}, {}},
	{{}, {5}},
	{{2, 3, 4}, {4}},
	{{4}, {2, 3, 4}},
	{{2, 3, 4}, {3, 1}},
	{{2, 1, 4}, {1, 3, 1}},
	{{1, 8, 1, 1}, {2, 8, 5, 5}},
	{{3, 1}, {1, 3}},
	{{2, 0, 3}, {1, 3}},
	{{64, 48, 40}, {48, 1}}, // parallel rows
	{{200000}, {1}},         // parallel flat
	{{300, 400}, {400}},     // parallel trailing vector
}

func TestBinaryBroadcast(t *testing.T) {
	ops := []struct {
		op string
		f  func(a, b float64) float64
	}{
		{"Add", func(a, b float64) float64 { return a + b }},
		{"Sub", func(a, b float64) float64 { return a - b }},
		{"Mul", func(a, b float64) float64 { return a * b }},
		{"Div", func(a, b float64) float64 { return a / b }},
		{"Max", math.Max},
		{"Min", math.Min},
		{"Pow", math.Pow},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, sh := range broadcastShapes {
		a := randTensor(r, 0.5, 2, sh[0]...)
		b := randTensor(r, 0.5, 2, sh[1]...)
		out := broadcastShape(sh[0], sh[1])
		for _, op := range ops {
			want := make([]float64, graph.NumElements(out))
			av, bv := a.Float32s(), b.Float32s()
			for i := range want {
				idx := unravel(i, out)
				want[i] = op.f(float64(av[bcastIndex(idx, sh[0])]), float64(bv[bcastIndex(idx, sh[1])]))
			}
			bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
				got := runOp(t, op.op, []opInput{in(a), in(b)}, nil, 1, opts)[0]
				checkClose(t, op.op, got, out, want, 1e-5)
			})
		}
	}
}

func TestBinaryIntegers(t *testing.T) {
	a := &graph.Tensor{DType: graph.Int32, Shape: []int{2, 3}, Data: []int32{7, -7, 9, 0, 5, 100}}
	b := &graph.Tensor{DType: graph.Int32, Shape: []int{3}, Data: []int32{2, 3, 0}}
	tests := []struct {
		op   string
		want []float64
	}{
		{"Add", []float64{9, -4, 9, 2, 8, 100}},
		{"Sub", []float64{5, -10, 9, -2, 2, 100}},
		{"Mul", []float64{14, -21, 0, 0, 15, 0}},
		{"Div", []float64{3, -2, 0, 0, 1, 0}}, // truncation; x/0 gives 0 instead of a crash
		{"Max", []float64{7, 3, 9, 2, 5, 100}},
		{"Min", []float64{2, -7, 0, 0, 3, 0}},
		{"Pow", []float64{49, -343, 1, 0, 125, 1}},
	}
	for _, tc := range tests {
		got := runOp(t, tc.op, []opInput{in(a), in(b)}, nil, 1, ExecOptions{})[0]
		if got.DType != graph.Int32 {
			t.Fatalf("%s: dtype %v", tc.op, got.DType)
		}
		checkClose(t, tc.op, got, []int{2, 3}, tc.want, 0)
	}
	u := &graph.Tensor{DType: graph.Uint8, Shape: []int{2}, Data: []uint8{250, 3}}
	got := runOp(t, "Add", []opInput{in(u), in(u)}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Add uint8 wraps", got, []int{2}, []float64{244, 6}, 0)
}

func TestVariadicMaxMin(t *testing.T) {
	a := graph.FromFloat32([]float32{1, 5, 3}, 3)
	b := graph.FromFloat32([]float32{4}, 1)
	c := graph.FromFloat32([]float32{0, 2, 9, 1, 1, 1}, 2, 3)
	got := runOp(t, "Max", []opInput{in(a), in(b), in(c)}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Max", got, []int{2, 3}, []float64{4, 5, 9, 4, 5, 4}, 0)
	got = runOp(t, "Min", []opInput{in(a)}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Min one input", got, []int{3}, []float64{1, 5, 3}, 0)
}

func TestPowMixedTypes(t *testing.T) {
	x := graph.FromFloat32([]float32{1, 2, 3}, 3)
	y := graph.FromInt64([]int64{2, 3, 0}, 3)
	got := runOp(t, "Pow", []opInput{in(x), in(y)}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Pow float^int", got, []int{3}, []float64{1, 8, 1}, 1e-6)
	xi := graph.FromInt64([]int64{2, 3, 4}, 3)
	yf := graph.FromFloat32([]float32{2, 0.5, 1.5}, 3)
	got = runOp(t, "Pow", []opInput{in(xi), in(yf)}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Pow int^float", got, []int{3}, []float64{4, 1, 8}, 0)
	got = runOp(t, "Pow", []opInput{in(x), konst(scalarF(2))}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Pow x^2", got, []int{3}, []float64{1, 4, 9}, 0)
}

func TestEqualWhere(t *testing.T) {
	a := graph.FromInt64([]int64{1, 2, 3, 4, 5, 6}, 2, 3)
	b := graph.FromInt64([]int64{1, 5, 6}, 3)
	eq := runOp(t, "Equal", []opInput{in(a), in(b)}, nil, 1, ExecOptions{})[0]
	wantEq := []bool{true, false, false, false, true, true}
	if eq.DType != graph.Bool || !slices.Equal(eq.Data.([]bool), wantEq) {
		t.Fatalf("Equal = %v, want %v", eq.Data, wantEq)
	}
	x := graph.FromFloat32([]float32{10, 20, 30}, 3)
	y := graph.FromFloat32([]float32{-1}, 1)
	bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
		got := runOp(t, "Where", []opInput{in(eq), in(x), in(y)}, nil, 1, opts)[0]
		checkClose(t, "Where", got, []int{2, 3}, []float64{10, -1, -1, -1, 20, 30}, 0)
	})
	bw := runOp(t, "Where", []opInput{in(eq), in(eq), in(&graph.Tensor{DType: graph.Bool, Data: []bool{true}})}, nil, 1, ExecOptions{})[0]
	if !slices.Equal(bw.Data.([]bool), []bool{true, true, true, true, true, true}) {
		t.Fatalf("Where on bools = %v", bw.Data)
	}
	fe := runOp(t, "Equal", []opInput{in(graph.FromFloat32([]float32{float32(math.NaN()), 0}, 2)), in(graph.FromFloat32([]float32{float32(math.NaN()), float32(math.Copysign(0, -1))}, 2))}, nil, 1, ExecOptions{})[0]
	if !slices.Equal(fe.Data.([]bool), []bool{false, true}) {
		t.Fatalf("Equal on NaN and -0 = %v, want [false true]", fe.Data)
	}
}

func TestCast(t *testing.T) {
	x := graph.FromFloat32([]float32{-1.7, 0, 2.9, 300}, 4)
	tests := []struct {
		to   graph.DType
		want []float64
	}{
		{graph.Int64, []float64{-1, 0, 2, 300}},
		{graph.Int32, []float64{-1, 0, 2, 300}},
		{graph.Bool, []float64{1, 0, 1, 1}},
		{graph.Float64, []float64{float64(float32(-1.7)), 0, float64(float32(2.9)), 300}},
		{graph.Float32, []float64{float64(float32(-1.7)), 0, float64(float32(2.9)), 300}},
	}
	for _, tc := range tests {
		got := runOp(t, "Cast", []opInput{in(x)}, graph.Attrs{"to": graph.IntAttr(int64(tc.to))}, 1, ExecOptions{})[0]
		if got.DType != tc.to {
			t.Fatalf("Cast to %v returned %v", tc.to, got.DType)
		}
		checkClose(t, "Cast to "+tc.to.String(), got, []int{4}, tc.want, 0)
	}
	bools := &graph.Tensor{DType: graph.Bool, Shape: []int{2}, Data: []bool{true, false}}
	got := runOp(t, "Cast", []opInput{in(bools)}, graph.Attrs{"to": graph.IntAttr(int64(graph.Float32))}, 1, ExecOptions{})[0]
	checkClose(t, "Cast bool", got, []int{2}, []float64{1, 0}, 0)
}
