package executor

import (
	"fmt"
	"math"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// binOp names an arithmetic binary operation: the Binary function of the
// op's schema row (semantics: graph.ApplyBinary).
type binOp = graph.BinaryOp

const (
	opAdd = graph.BinAdd
	opSub = graph.BinSub
	opMul = graph.BinMul
	opDiv = graph.BinDiv
	opPow = graph.BinPow
	opMax = graph.BinMax
	opMin = graph.BinMin
)

// binaryKernel applies op across broadcast inputs; Max and Min fold more
// than two inputs one by one into the output.
type binaryKernel struct {
	op     binOp
	dt     graph.DType
	plans  []*bcastPlan // plans[0] for inputs 0,1; plans[i] for (out, input i+1)
	single bool         // one input: copy
	inpl   []int
	fn     binaryFn
}

// binaryFn evaluates d = a op b over a broadcast plan for typed slices of
// one element type.
type binaryFn = func(rc *runCtx, p *bcastPlan, op binOp, d, a, b any)

var binaryRuns = numFns[binaryFn]{
	binaryAny[float32], binaryAny[float64], binaryAny[int64], binaryAny[int32], binaryAny[int16],
	binaryAny[int8], binaryAny[uint64], binaryAny[uint32], binaryAny[uint16], binaryAny[uint8],
}

func binaryAny[T numT](rc *runCtx, p *bcastPlan, op binOp, d, a, b any) {
	binaryRun(rc, p, op, d.([]T), a.([]T), b.([]T))
}

// newBinaryKernel compiles an arithmetic op (Add, Sub, Mul, Div, Max, Min,
// Sum) by its schema row's Binary function.
func newBinaryKernel(ni *nodeInfo) (kernel, error) {
	return newBinaryKernelOp(ni, ni.node.Schema().Binary)
}

// newBinaryKernelOp compiles op over the node's inputs (two or more fold
// left to right).
func newBinaryKernelOp(ni *nodeInfo, op binOp) (*binaryKernel, error) {
	out := ni.out(0)
	fn, err := binaryRuns.forDT(ni.node.Op, out.dt)
	if err != nil {
		return nil, err
	}
	k := &binaryKernel{op: op, dt: out.dt, fn: fn}
	for i, in := range ni.ins {
		if in == nil || in.dt != out.dt {
			return nil, fmt.Errorf("input %d has dtype %v, want %v", i, dtOf(in), out.dt)
		}
	}
	if len(ni.ins) == 1 {
		k.single = true
		return k, nil
	}
	k.plans = append(k.plans, newBcastPlan(out.shape, ni.ins[0].shape, ni.ins[1].shape))
	for _, in := range ni.ins[2:] {
		k.plans = append(k.plans, newBcastPlan(out.shape, out.shape, in.shape))
	}
	for i := 0; i < 2; i++ {
		if slices.Equal(ni.ins[i].shape, out.shape) {
			k.inpl = append(k.inpl, i)
		}
	}
	return k, nil
}

func (k *binaryKernel) inPlace() []int { return k.inpl }

func (k *binaryKernel) run(rc *runCtx, ins, outs []any) error {
	if k.single {
		copyData(outs[0], ins[0])
		return nil
	}
	for i, p := range k.plans {
		a := ins[0]
		if i > 0 {
			a = outs[0]
		}
		k.fn(rc, p, k.op, outs[0], a, ins[i+1])
	}
	return nil
}

// binaryRun evaluates d = a op b over a broadcast plan, in parallel for
// large outputs.
func binaryRun[T numT](rc *runCtx, p *bcastPlan, op binOp, d, a, b []T) {
	if p.n == 0 {
		return
	}
	cost := 1
	if op == opPow {
		cost = 16
	}
	if p.rows == 1 {
		sa, sb := p.innerStride(0), p.innerStride(1)
		if chunks(rc.threads, p.n, cost) <= 1 {
			binaryRow(op, d, a, sa, b, sb)
			return
		}
		parallelFor(rc.threads, p.n, cost, func(lo, hi int) {
			binaryRow(op, d[lo:hi], a[lo*sa:], sa, b[lo*sb:], sb)
		})
		return
	}
	if chunks(rc.threads, p.n, cost) <= 1 {
		binaryRows(p, op, d, a, b, 0, p.rows)
		return
	}
	parallelFor(rc.threads, p.rows, p.inner*cost, func(lo, hi int) {
		binaryRows(p, op, d, a, b, lo, hi)
	})
}

func binaryRows[T numT](p *bcastPlan, op binOp, d, a, b []T, lo, hi int) {
	sa, sb, L := p.innerStride(0), p.innerStride(1), p.inner
	p.eachRow(lo, hi, func(r int, offs [3]int) {
		binaryRow(op, d[r*L:(r+1)*L], a[offs[0]:], sa, b[offs[1]:], sb)
	})
}

// binaryRow computes d[i] = a[i*sa] op b[i*sb] for strides 0 or 1.
func binaryRow[T numT](op binOp, d, a []T, sa int, b []T, sb int) {
	n := len(d)
	if n == 0 {
		return
	}
	switch {
	case sa == 1 && sb == 1:
		a, b = a[:n], b[:n]
		switch op {
		case opAdd:
			for i := range d {
				d[i] = a[i] + b[i]
			}
		case opSub:
			for i := range d {
				d[i] = a[i] - b[i]
			}
		case opMul:
			for i := range d {
				d[i] = a[i] * b[i]
			}
		case opDiv:
			divVV(d, a, b)
		case opMax:
			for i := range d {
				d[i] = graph.MaxNaN(a[i], b[i])
			}
		case opMin:
			for i := range d {
				d[i] = graph.MinNaN(a[i], b[i])
			}
		case opPow:
			for i := range d {
				d[i] = graph.Pow(a[i], b[i])
			}
		}
	case sa == 1:
		a = a[:n]
		s := b[0]
		switch op {
		case opAdd:
			for i := range d {
				d[i] = a[i] + s
			}
		case opSub:
			for i := range d {
				d[i] = a[i] - s
			}
		case opMul:
			for i := range d {
				d[i] = a[i] * s
			}
		case opDiv:
			divVS(d, a, s)
		case opMax:
			for i := range d {
				d[i] = graph.MaxNaN(a[i], s)
			}
		case opMin:
			for i := range d {
				d[i] = graph.MinNaN(a[i], s)
			}
		case opPow:
			powVS(d, a, s)
		}
	case sb == 1:
		b = b[:n]
		s := a[0]
		switch op {
		case opAdd:
			for i := range d {
				d[i] = s + b[i]
			}
		case opSub:
			for i := range d {
				d[i] = s - b[i]
			}
		case opMul:
			for i := range d {
				d[i] = s * b[i]
			}
		case opDiv:
			for i := range d {
				d[i] = graph.DivZero(s, b[i])
			}
		case opMax:
			for i := range d {
				d[i] = graph.MaxNaN(s, b[i])
			}
		case opMin:
			for i := range d {
				d[i] = graph.MinNaN(s, b[i])
			}
		case opPow:
			for i := range d {
				d[i] = graph.Pow(s, b[i])
			}
		}
	default:
		v := graph.ApplyBinary(op, a[0], b[0])
		for i := range d {
			d[i] = v
		}
	}
}

func divVV[T numT](d, a, b []T) {
	if graph.IsIntegral[T]() {
		for i := range d {
			d[i] = graph.DivZero(a[i], b[i])
		}
		return
	}
	for i := range d {
		d[i] = a[i] / b[i]
	}
}

func divVS[T numT](d, a []T, s T) {
	if graph.IsIntegral[T]() {
		if s == 0 {
			clear(d)
			return
		}
		for i := range d {
			d[i] = a[i] / s
		}
		return
	}
	if isPow2(float64(s)) {
		// 1/s is exact, so multiplying is bit-identical to dividing.
		r := 1 / s
		for i := range d {
			d[i] = a[i] * r
		}
		return
	}
	for i := range d {
		d[i] = a[i] / s
	}
}

// isPow2 reports whether |v| is a power of two of moderate size (so 1/v
// is exact and finite in float32).
func isPow2(v float64) bool {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return false
	}
	f, e := math.Frexp(math.Abs(v))
	return f == 0.5 && e > -100 && e < 100
}

// powVS raises a vector to a scalar power with fast paths for common
// exponents.
func powVS[T numT](d, a []T, s T) {
	switch float64(s) {
	case 1:
		copy(d, a)
	case 2:
		for i := range d {
			d[i] = a[i] * a[i]
		}
	case 3:
		for i := range d {
			d[i] = a[i] * a[i] * a[i]
		}
	case 0.5:
		if !graph.IsIntegral[T]() {
			for i := range d {
				d[i] = T(math.Sqrt(float64(a[i])))
			}
			return
		}
		fallthrough
	default:
		for i := range d {
			d[i] = graph.Pow(a[i], s)
		}
	}
}
