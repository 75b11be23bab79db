package executor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// opCase describes one single-node graph for kernel tests: inputs listed
// in order; those with konst set become initializers (needed for shape
// parameters), the others graph inputs.
type opInput struct {
	t      *graph.Tensor
	konst  bool
	absent bool
}

// runOp builds a graph with one node of op, runs it with opts and returns
// its outputs in order.
func runOp(t *testing.T, op string, ins []opInput, attrs graph.Attrs, nOut int, opts ExecOptions) []*graph.Tensor {
	t.Helper()
	outs, err := tryOp(op, ins, attrs, nOut, opts)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	return outs
}

// tryOp is runOp returning errors.
func tryOp(op string, ins []opInput, attrs graph.Attrs, nOut int, opts ExecOptions) ([]*graph.Tensor, error) {
	b := graph.NewBuilder("test")
	vals := make([]*graph.Value, len(ins))
	feed := map[string]*graph.Tensor{}
	for i, in := range ins {
		switch {
		case in.absent:
		case in.konst:
			vals[i] = b.Const(fmt.Sprintf("c%d", i), in.t)
		default:
			vals[i] = b.Input(fmt.Sprintf("x%d", i), in.t.DType, in.t.Shape...)
			feed[vals[i].Name] = in.t
		}
	}
	outs := b.OpN(op, vals, attrs, nOut)
	b.Output(outs...)
	g, err := b.Graph()
	if err != nil {
		return nil, err
	}
	ex, err := NewExecutor(g, opts)
	if err != nil {
		return nil, err
	}
	res, err := ex.Run(feed)
	if err != nil {
		return nil, err
	}
	out := make([]*graph.Tensor, nOut)
	for i, v := range outs {
		out[i] = res[v.Name]
	}
	return out, nil
}

func in(t *graph.Tensor) opInput    { return opInput{t: t} }
func konst(t *graph.Tensor) opInput { return opInput{t: t, konst: true} }

var absentInput = opInput{absent: true}

// randTensor returns a float32 tensor with elements uniform in [lo, hi).
func randTensor(r *rand.Rand, lo, hi float64, shape ...int) *graph.Tensor {
	n := graph.NumElements(shape)
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(lo + (hi-lo)*r.Float64())
	}
	return graph.FromFloat32(d, shape...)
}

// ints64 returns a 1-D int64 tensor.
func ints64(v ...int64) *graph.Tensor { return graph.FromInt64(v, len(v)) }

// scalarF returns a float32 scalar.
func scalarF(v float32) *graph.Tensor { return graph.FromFloat32([]float32{v}) }

// f64s returns the elements of a numeric tensor as float64.
func f64s(t *testing.T, x *graph.Tensor) []float64 {
	t.Helper()
	v, err := x.AsFloat64()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkClose compares got with a float64 reference.
func checkClose(t *testing.T, what string, got *graph.Tensor, shape []int, want []float64, tol float64) {
	t.Helper()
	if !slices.Equal(got.Shape, shape) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape, shape)
	}
	g := f64s(t, got)
	if len(g) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(g), len(want))
	}
	for i := range want {
		a, b := g[i], want[i]
		if math.IsNaN(a) && math.IsNaN(b) || a == b {
			continue
		}
		if !(math.Abs(a-b) <= tol*(1+math.Abs(b))) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, a, b)
		}
	}
}

// strides returns row-major strides.
func strides(shape []int) []int { return contiguousStrides(shape) }

// unravel converts a flat index to a multi-index.
func unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for a := len(shape) - 1; a >= 0; a-- {
		if shape[a] > 0 {
			idx[a] = i % shape[a]
			i /= shape[a]
		}
	}
	return idx
}

// bcastIndex maps an output multi-index to the flat index of an input of
// shape s under numpy broadcasting.
func bcastIndex(idx []int, s []int) int {
	off := len(idx) - len(s)
	st := strides(s)
	f := 0
	for a, d := range s {
		if d != 1 {
			f += idx[off+a] * st[a]
		}
	}
	return f
}

// bothPrecisions runs f for float32 and float64 execution.
func bothPrecisions(t *testing.T, f func(t *testing.T, opts ExecOptions)) {
	for _, p := range []graph.DType{graph.Float32, graph.Float64} {
		t.Run(p.String(), func(t *testing.T) { f(t, ExecOptions{Precision: p}) })
	}
}
