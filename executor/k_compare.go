package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// Binary elementwise ops with numpy broadcasting that the arithmetic
// kernel does not cover: ordered comparisons and bool logic (bool
// output), Mod and PRelu.

func init() {
	registerKernel(newCompareKernel, "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "And", "Or", "Xor")
	registerKernel(newModKernel, "Mod")
	registerKernel(newPReluKernel, "PRelu")
}

// bcastKernel evaluates f over a broadcast plan of two inputs; it holds
// the plan and the op name, typed work happens in run.
type bcastKernel struct {
	plan *bcastPlan
	op   string
	fmod bool
}

func newBcast2(ni *nodeInfo) (*bcastKernel, error) {
	a, b := ni.in(0), ni.in(1)
	if a.dt != b.dt {
		return nil, fmt.Errorf("inputs have dtypes %v and %v, want equal", a.dt, b.dt)
	}
	return &bcastKernel{plan: newBcastPlan(ni.out(0).shape, a.shape, b.shape), op: ni.node.Op}, nil
}

func newCompareKernel(ni *nodeInfo) (kernel, error) {
	k, err := newBcast2(ni)
	if err != nil {
		return nil, err
	}
	logic := k.op == "And" || k.op == "Or" || k.op == "Xor"
	if dt := ni.in(0).dt; logic != (dt == graph.Bool) {
		return nil, errDType(k.op, dt)
	}
	return &compareKernel{k}, nil
}

type compareKernel struct{ *bcastKernel }

func (k *compareKernel) run(rc *runCtx, ins, outs []any) error {
	d := outs[0].([]bool)
	switch a := ins[0].(type) {
	case []bool:
		var f func(x, y bool) bool
		switch k.op {
		case "And":
			f = func(x, y bool) bool { return x && y }
		case "Or":
			f = func(x, y bool) bool { return x || y }
		default:
			f = func(x, y bool) bool { return x != y }
		}
		bcastMap(rc, k.plan, d, a, ins[1].([]bool), f)
	case []float32:
		bcastMap(rc, k.plan, d, a, ins[1].([]float32), cmpFunc[float32](k.op))
	case []float64:
		bcastMap(rc, k.plan, d, a, ins[1].([]float64), cmpFunc[float64](k.op))
	case []int64:
		bcastMap(rc, k.plan, d, a, ins[1].([]int64), cmpFunc[int64](k.op))
	case []int32:
		bcastMap(rc, k.plan, d, a, ins[1].([]int32), cmpFunc[int32](k.op))
	case []int16:
		bcastMap(rc, k.plan, d, a, ins[1].([]int16), cmpFunc[int16](k.op))
	case []int8:
		bcastMap(rc, k.plan, d, a, ins[1].([]int8), cmpFunc[int8](k.op))
	case []uint64:
		bcastMap(rc, k.plan, d, a, ins[1].([]uint64), cmpFunc[uint64](k.op))
	case []uint32:
		bcastMap(rc, k.plan, d, a, ins[1].([]uint32), cmpFunc[uint32](k.op))
	case []uint16:
		bcastMap(rc, k.plan, d, a, ins[1].([]uint16), cmpFunc[uint16](k.op))
	case []uint8:
		bcastMap(rc, k.plan, d, a, ins[1].([]uint8), cmpFunc[uint8](k.op))
	default:
		return errDType(k.op, dtOfData(ins[0]))
	}
	return nil
}

func cmpFunc[T numT](op string) func(a, b T) bool {
	switch op {
	case "Greater":
		return func(a, b T) bool { return a > b }
	case "Less":
		return func(a, b T) bool { return a < b }
	case "GreaterOrEqual":
		return func(a, b T) bool { return a >= b }
	}
	return func(a, b T) bool { return a <= b }
}

// bcastMap sets d = f(a, b) over a two-input broadcast plan, in parallel
// for large outputs.
func bcastMap[A, D any](rc *runCtx, p *bcastPlan, d []D, a, b []A, f func(A, A) D) {
	if p.n == 0 {
		return
	}
	if chunks(rc.threads, p.n, 1) <= 1 {
		bcastRows(p, d, a, b, f, 0, p.rows)
		return
	}
	parallelFor(rc.threads, p.rows, p.inner, func(lo, hi int) { bcastRows(p, d, a, b, f, lo, hi) })
}

// bcastRows computes rows [lo, hi) of the plan.
func bcastRows[A, D any](p *bcastPlan, d []D, a, b []A, f func(A, A) D, lo, hi int) {
	sa, sb := p.innerStride(0), p.innerStride(1)
	L := p.inner
	var it rowIter
	it.start(p, lo)
	for r := lo; r < hi; r++ {
		if r > lo {
			it.next(r)
		}
		row := d[r*L : (r+1)*L]
		oa, ob := it.offs[0], it.offs[1]
		for i := range row {
			row[i] = f(a[oa+i*sa], b[ob+i*sb])
		}
	}
}

func newModKernel(ni *nodeInfo) (kernel, error) {
	k, err := newBcast2(ni)
	if err != nil {
		return nil, err
	}
	if !isNumericDT(ni.out(0).dt) {
		return nil, errDType("Mod", ni.out(0).dt)
	}
	k.fmod = ni.node.AttrInt("fmod") != 0
	return &modKernel{k}, nil
}

type modKernel struct{ *bcastKernel }

func (k *modKernel) run(rc *runCtx, ins, outs []any) error {
	switch a := ins[0].(type) {
	case []float32:
		bcastMap(rc, k.plan, outs[0].([]float32), a, ins[1].([]float32), func(x, y float32) float32 {
			return float32(modFloat(float64(x), float64(y), k.fmod))
		})
	case []float64:
		bcastMap(rc, k.plan, outs[0].([]float64), a, ins[1].([]float64), func(x, y float64) float64 { return modFloat(x, y, k.fmod) })
	case []int64:
		bcastMap(rc, k.plan, outs[0].([]int64), a, ins[1].([]int64), modInt[int64](k.fmod))
	case []int32:
		bcastMap(rc, k.plan, outs[0].([]int32), a, ins[1].([]int32), modInt[int32](k.fmod))
	case []int16:
		bcastMap(rc, k.plan, outs[0].([]int16), a, ins[1].([]int16), modInt[int16](k.fmod))
	case []int8:
		bcastMap(rc, k.plan, outs[0].([]int8), a, ins[1].([]int8), modInt[int8](k.fmod))
	case []uint64:
		bcastMap(rc, k.plan, outs[0].([]uint64), a, ins[1].([]uint64), modInt[uint64](k.fmod))
	case []uint32:
		bcastMap(rc, k.plan, outs[0].([]uint32), a, ins[1].([]uint32), modInt[uint32](k.fmod))
	case []uint16:
		bcastMap(rc, k.plan, outs[0].([]uint16), a, ins[1].([]uint16), modInt[uint16](k.fmod))
	case []uint8:
		bcastMap(rc, k.plan, outs[0].([]uint8), a, ins[1].([]uint8), modInt[uint8](k.fmod))
	default:
		return errDType("Mod", dtOfData(ins[0]))
	}
	return nil
}

// modFloat is C's fmod, or with fmod unset the remainder with the
// divisor's sign.
func modFloat(x, y float64, fmod bool) float64 {
	r := math.Mod(x, y)
	if !fmod && r != 0 && (r < 0) != (y < 0) {
		r += y
	}
	return r
}

// modInt returns integer Mod; a zero divisor gives 0 (ONNX leaves it
// undefined).
func modInt[T intT](fmod bool) func(x, y T) T {
	return func(x, y T) T {
		if y == 0 {
			return 0
		}
		r := x % y
		if !fmod && r != 0 && (r < 0) != (y < 0) {
			r += y
		}
		return r
	}
}

func newPReluKernel(ni *nodeInfo) (kernel, error) {
	k, err := newBcast2(ni)
	if err != nil {
		return nil, err
	}
	if !isNumericDT(ni.out(0).dt) {
		return nil, errDType("PRelu", ni.out(0).dt)
	}
	return &preluKernel{k}, nil
}

type preluKernel struct{ *bcastKernel }

func (k *preluKernel) run(rc *runCtx, ins, outs []any) error {
	switch a := ins[0].(type) {
	case []float32:
		bcastMap(rc, k.plan, outs[0].([]float32), a, ins[1].([]float32), prelu[float32])
	case []float64:
		bcastMap(rc, k.plan, outs[0].([]float64), a, ins[1].([]float64), prelu[float64])
	case []int64:
		bcastMap(rc, k.plan, outs[0].([]int64), a, ins[1].([]int64), prelu[int64])
	case []int32:
		bcastMap(rc, k.plan, outs[0].([]int32), a, ins[1].([]int32), prelu[int32])
	default:
		return errDType("PRelu", dtOfData(ins[0]))
	}
	return nil
}

func prelu[T numT](x, s T) T {
	if x < 0 {
		return s * x
	}
	return x
}

// dtOfData returns the dtype of a typed slice.
func dtOfData(d any) graph.DType {
	switch d.(type) {
	case []float32:
		return graph.Float32
	case []float64:
		return graph.Float64
	case []int64:
		return graph.Int64
	case []int32:
		return graph.Int32
	case []int16:
		return graph.Int16
	case []int8:
		return graph.Int8
	case []uint64:
		return graph.Uint64
	case []uint32:
		return graph.Uint32
	case []uint16:
		return graph.Uint16
	case []uint8:
		return graph.Uint8
	case []bool:
		return graph.Bool
	}
	return graph.Undefined
}
