package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// Binary elementwise ops with numpy broadcasting that the arithmetic
// kernel does not cover: ordered comparisons and bool logic (bool
// output), Mod and PRelu. Comparisons, logic and PRelu apply their schema
// row's Binary function (kernelFor picks their kernel by it).

func init() {
	registerKernel(newModKernel, "Mod")
	registerKernel(newBitShiftKernel, "BitShift")
}

// bcastKernel evaluates a two-input elementwise function over a
// broadcast plan; fn is the instantiation for the input dtype, picked when
// the kernel is compiled.
type bcastKernel struct {
	plan *bcastPlan
	op   string
	bin  graph.BinaryOp // the schema's Binary function
	fmod bool           // Mod's fmod attribute
	// right is BitShift's direction RIGHT.
	right bool
	fn    bcastFn
}

// bcastFn runs a bcastKernel on typed inputs and output.
type bcastFn = func(k *bcastKernel, rc *runCtx, ins, outs []any)

func (k *bcastKernel) run(rc *runCtx, ins, outs []any) error {
	k.fn(k, rc, ins, outs)
	return nil
}

// newBcast2 compiles a two-input broadcast kernel whose numeric
// instantiations are fns; bool inputs need a non-nil boolFn.
func newBcast2(ni *nodeInfo, fns numFns[bcastFn], boolFn bcastFn) (kernel, error) {
	a, b := ni.in(0), ni.in(1)
	if a.dt != b.dt {
		return nil, fmt.Errorf("inputs have dtypes %v and %v, want equal", a.dt, b.dt)
	}
	k := &bcastKernel{plan: newBcastPlan(ni.out(0).shape, a.shape, b.shape), op: ni.node.Op, bin: ni.node.Schema().Binary}
	k.fmod = k.op == "Mod" && ni.node.AttrInt("fmod") != 0
	k.right = k.op == "BitShift" && ni.node.AttrString("direction") == "RIGHT"
	if a.dt == graph.Bool && boolFn != nil {
		k.fn = boolFn
		return k, nil
	}
	var err error
	k.fn, err = fns.forDT(k.op, a.dt)
	return k, err
}

var cmpRuns = numFns[bcastFn]{
	cmpRun[float32], cmpRun[float64], cmpRun[int64], cmpRun[int32], cmpRun[int16],
	cmpRun[int8], cmpRun[uint64], cmpRun[uint32], cmpRun[uint16], cmpRun[uint8],
}

// newCompareKernel compiles an ordered comparison or (on bool inputs) a
// logic op.
func newCompareKernel(ni *nodeInfo) (kernel, error) {
	if ni.node.Schema().Binary.Logic() {
		if dt := ni.in(0).dt; dt != graph.Bool {
			return nil, errDType(ni.node.Op, dt)
		}
		return newBcast2(ni, nil, logicRun)
	}
	return newBcast2(ni, cmpRuns, nil)
}

// logicRun is And, Or or Xor of bool inputs.
func logicRun(k *bcastKernel, rc *runCtx, ins, outs []any) {
	var f func(x, y bool) bool
	switch k.bin {
	case graph.BinAnd:
		f = func(x, y bool) bool { return x && y }
	case graph.BinOr:
		f = func(x, y bool) bool { return x || y }
	default:
		f = func(x, y bool) bool { return x != y }
	}
	bcastMap(rc, k.plan, outs[0].([]bool), ins[0].([]bool), ins[1].([]bool), f)
}

// cmpRun is an ordered comparison with a bool output.
func cmpRun[T numT](k *bcastKernel, rc *runCtx, ins, outs []any) {
	bcastMap(rc, k.plan, outs[0].([]bool), ins[0].([]T), ins[1].([]T), cmpFunc[T](k.bin))
}

// cmpFunc returns the comparison op as a bool function.
func cmpFunc[T numT](op graph.BinaryOp) func(a, b T) bool {
	switch op {
	case graph.BinGreater:
		return func(a, b T) bool { return a > b }
	case graph.BinLess:
		return func(a, b T) bool { return a < b }
	case graph.BinGreaterOrEqual:
		return func(a, b T) bool { return a >= b }
	}
	return func(a, b T) bool { return a <= b }
}

// bcastMap sets d = f(a, b) over a two-input broadcast plan, in parallel
// for large outputs.
func bcastMap[A, D any](rc *runCtx, p *bcastPlan, d []D, a, b []A, f func(A, A) D) {
	if p.serial(rc, 1) {
		bcastRows(p, d, a, b, f, 0, p.rows)
	} else {
		parallelFor(rc.threads, p.rows, p.inner, func(lo, hi int) { bcastRows(p, d, a, b, f, lo, hi) })
	}
}

// bcastRows computes rows [lo, hi) of the plan.
func bcastRows[A, D any](p *bcastPlan, d []D, a, b []A, f func(A, A) D, lo, hi int) {
	sa, sb, L := p.innerStride(0), p.innerStride(1), p.inner
	p.eachRow(lo, hi, func(r int, offs [3]int) {
		row := d[r*L : (r+1)*L]
		oa, ob := offs[0], offs[1]
		for i := range row {
			row[i] = f(a[oa+i*sa], b[ob+i*sb])
		}
	})
}

var modRuns = numFns[bcastFn]{
	modRunFloat[float32], modRunFloat[float64], modRunInt[int64], modRunInt[int32], modRunInt[int16],
	modRunInt[int8], modRunInt[uint64], modRunInt[uint32], modRunInt[uint16], modRunInt[uint8],
}

func newModKernel(ni *nodeInfo) (kernel, error) { return newBcast2(ni, modRuns, nil) }

func modRunFloat[T floatT](k *bcastKernel, rc *runCtx, ins, outs []any) {
	bcastMap(rc, k.plan, outs[0].([]T), ins[0].([]T), ins[1].([]T), func(x, y T) T {
		return T(modFloat(float64(x), float64(y), k.fmod))
	})
}

func modRunInt[T intT](k *bcastKernel, rc *runCtx, ins, outs []any) {
	bcastMap(rc, k.plan, outs[0].([]T), ins[0].([]T), ins[1].([]T), modInt[T](k.fmod))
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

// BitShift supports the unsigned integers.
var shiftRuns = numFns[bcastFn]{nil, nil, nil, nil, nil, nil, shiftRun[uint64], shiftRun[uint32], shiftRun[uint16], shiftRun[uint8]}

func newBitShiftKernel(ni *nodeInfo) (kernel, error) {
	switch dt := ni.in(0).dt; dt {
	case graph.Uint8, graph.Uint16, graph.Uint32, graph.Uint64:
		return newBcast2(ni, shiftRuns, nil)
	default:
		return nil, errDType("BitShift", dt)
	}
}

// shiftRun shifts each element of input 0 by input 1's bits; a shift by
// the width or more gives 0.
func shiftRun[T ~uint8 | ~uint16 | ~uint32 | ~uint64](k *bcastKernel, rc *runCtx, ins, outs []any) {
	f := func(x, y T) T { return x << y }
	if k.right {
		f = func(x, y T) T { return x >> y }
	}
	bcastMap(rc, k.plan, outs[0].([]T), ins[0].([]T), ins[1].([]T), f)
}

// PRelu supports the floats and the 64- and 32-bit signed integers.
var preluRuns = numFns[bcastFn]{preluRun[float32], preluRun[float64], preluRun[int64], preluRun[int32]}

func newPReluKernel(ni *nodeInfo) (kernel, error) { return newBcast2(ni, preluRuns, nil) }

func preluRun[T numT](k *bcastKernel, rc *runCtx, ins, outs []any) {
	bcastMap(rc, k.plan, outs[0].([]T), ins[0].([]T), ins[1].([]T), graph.PRelu[T])
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
