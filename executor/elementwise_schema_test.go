package executor

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// schemaTestValues are the inputs of TestElementwiseMatchesSchema:
// signed zeros, small and large magnitudes, infinities, NaN, then random
// values in [-6, 6).
func schemaTestValues(n int) []float64 {
	v := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 2, 3, 1e-30, -1e-30, 40, -40, 1e30, -1e30,
		math.Inf(1), math.Inf(-1), math.NaN()}
	r := rand.New(rand.NewPCG(3, 5))
	for len(v) < n {
		v = append(v, 12*r.Float64()-6)
	}
	return v
}

// sameFloat reports whether a and b are equal or both NaN.
func sameFloat(a, b float64) bool { return a == b || a != a && b != b }

// TestElementwiseMatchesSchema checks that the executor computes what the
// op-schema table states: every op with a Unary function gives f(x) on
// float64 data (and float32(f(x)) on float32 data, to within a rounding
// for the ops computed in float32), every op with a Binary function gives
// graph.ApplyBinary on float64 and int32 data. The typed loops of
// k_unary.go and k_binary.go are held to the table this way.
func TestElementwiseMatchesSchema(t *testing.T) {
	xs := schemaTestValues(300)
	for _, s := range graph.Schemas() {
		switch {
		case s.Unary != nil:
			t.Run(s.Op, func(t *testing.T) { checkUnarySchema(t, s, xs) })
		case s.Binary != graph.BinNone:
			t.Run(s.Op, func(t *testing.T) { checkBinarySchema(t, s, xs) })
		}
	}
}

func checkUnarySchema(t *testing.T, s *graph.OpSchema, xs []float64) {
	if s.Op == "Not" {
		b := []bool{false, true}
		got := runOp(t, s.Op, []opInput{in(&graph.Tensor{DType: graph.Bool, Shape: []int{2}, Data: b})}, nil, 1, ExecOptions{})[0].Data.([]bool)
		f := s.Unary(&graph.Node{Op: s.Op})
		for i, v := range b {
			if want := f(map[bool]float64{false: 0, true: 1}[v]) != 0; got[i] != want {
				t.Errorf("Not(%v) = %v, want %v", v, got[i], want)
			}
		}
		return
	}
	x64 := &graph.Tensor{DType: graph.Float64, Shape: []int{len(xs)}, Data: xs}
	x32 := graph.NewTensor(graph.Float32, len(xs))
	for i, v := range xs {
		x32.Float32s()[i] = float32(v)
	}
	f := s.Unary(&graph.Node{Op: s.Op})
	for _, x := range []*graph.Tensor{x64, x32} {
		got := runOp(t, s.Op, []opInput{in(x)}, nil, 1, ExecOptions{})[0]
		vals, _ := x.AsFloat64()
		for i, v := range vals {
			want := f(v)
			var g float64
			if b, ok := got.Data.([]bool); ok {
				g, want = map[bool]float64{false: 0, true: 1}[b[i]], map[bool]float64{false: 0, true: 1}[want != 0]
			} else {
				out, _ := got.AsFloat64()
				g = out[i]
			}
			if x.DType == graph.Float32 {
				want = float64(float32(want))
			}
			ok := sameFloat(g, want)
			if !ok && x.DType == graph.Float32 && (s.Op == "HardSigmoid" || s.Op == "HardSwish") {
				ok = math.Abs(g-want) <= 1e-6*max(1, math.Abs(want))
			}
			if !ok {
				t.Errorf("%v %s(%v) = %v, want %v", x.DType, s.Op, v, g, want)
			}
		}
	}
}

func checkBinarySchema(t *testing.T, s *graph.OpSchema, xs []float64) {
	n := len(xs) / 2
	a, b := xs[:n], xs[n:2*n]
	logic := s.Binary.Logic()
	tensor := func(dt graph.DType, v []float64) *graph.Tensor {
		out := graph.NewTensor(dt, len(v))
		for i, x := range v {
			switch dt {
			case graph.Float64:
				out.Float64s()[i] = x
			case graph.Int32:
				if !math.IsNaN(x) && math.Abs(x) < 1e6 {
					out.Data.([]int32)[i] = int32(x * 3)
				}
			case graph.Bool:
				out.Data.([]bool)[i] = x > 0
			}
		}
		return out
	}
	dts := []graph.DType{graph.Float64, graph.Int32}
	if logic {
		dts = []graph.DType{graph.Bool}
	}
	for _, dt := range dts {
		ta, tb := tensor(dt, a), tensor(dt, b)
		pairs := [][2]*graph.Tensor{{ta, tb}, {ta, tensor(dt, b[:1])}}
		if s.Binary != graph.BinPRelu { // PRelu's slope broadcasts to X only
			pairs = append(pairs, [2]*graph.Tensor{tensor(dt, a[:1]), tb})
		}
		for _, pair := range pairs {
			got := runOp(t, s.Op, []opInput{in(pair[0]), in(pair[1])}, nil, 1, ExecOptions{})[0]
			va, vb := numbers(t, pair[0]), numbers(t, pair[1])
			g := numbers(t, got)
			for i := range g {
				x, y := va[i%len(va)], vb[i%len(vb)]
				var want float64
				if dt == graph.Int32 {
					want = float64(graph.ApplyBinary(s.Binary, int32(x), int32(y)))
				} else {
					want = graph.ApplyBinary(s.Binary, x, y)
				}
				if !sameFloat(g[i], want) {
					t.Errorf("%v %s(%v, %v) = %v, want %v", dt, s.Op, x, y, g[i], want)
				}
			}
		}
	}
}

// numbers returns t's elements as float64, bools as 1 and 0.
func numbers(t *testing.T, x *graph.Tensor) []float64 {
	t.Helper()
	if b, ok := x.Data.([]bool); ok {
		out := make([]float64, len(b))
		for i, v := range b {
			if v {
				out[i] = 1
			}
		}
		return out
	}
	out, err := x.AsFloat64()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
