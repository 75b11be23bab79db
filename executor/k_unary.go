package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// The one-input elementwise ops whose schema function (graph.OpSchema.
// Unary) the executor runs as a typed loop rather than by calling it per
// element (the generic mathKernel): Relu on every numeric type, loops much
// cheaper than a call, Sigmoid (graph.Sigmoid called directly), and
// HardSigmoid and HardSwish, which compute in the element type (float32
// arithmetic rounds differently from float64).
// TestElementwiseMatchesSchema checks them against the schema's functions.

// unaryOp names a typed unary loop.
type unaryOp uint8

const (
	opRelu unaryOp = iota
	opSqrt
	opSigmoid
	opLeakyRelu
	opHardSigmoid
	opHardSwish
)

var unaryOps = map[string]unaryOp{
	"Relu": opRelu, "Sqrt": opSqrt, "Sigmoid": opSigmoid, "LeakyRelu": opLeakyRelu,
	"HardSigmoid": opHardSigmoid, "HardSwish": opHardSwish,
}

// unaryCost estimates the work of one element relative to an addition.
var unaryCost = map[unaryOp]int{
	opRelu: 1, opLeakyRelu: 1, opHardSigmoid: 1, opHardSwish: 1, opSqrt: 4, opSigmoid: 16,
}

func init() {
	names := make([]string, 0, len(unaryOps))
	for op := range unaryOps {
		names = append(names, op)
	}
	registerKernel(newUnaryKernel, names...)
	registerKernel(newClipKernel, "Clip")
}

type unaryKernel struct {
	op          unaryOp
	dt          graph.DType
	alpha, beta float64
	fn          func(rc *runCtx, k *unaryKernel, y, x any)
}

// Relu serves every numeric dtype, the other unary ops the floats.
var unaryRuns = numFns[func(rc *runCtx, k *unaryKernel, y, x any)]{
	unaryRun[float32], unaryRun[float64], reluInt[int64], reluInt[int32], reluInt[int16],
	reluInt[int8], reluInt[uint64], reluInt[uint32], reluInt[uint16], reluInt[uint8],
}

func newUnaryKernel(ni *nodeInfo) (kernel, error) {
	n := ni.node
	k := &unaryKernel{op: unaryOps[n.Op], dt: ni.out(0).dt}
	switch k.op {
	case opLeakyRelu:
		k.alpha = float64(n.AttrFloat("alpha"))
	case opHardSigmoid:
		k.alpha, k.beta = float64(n.AttrFloat("alpha")), float64(n.AttrFloat("beta"))
	}
	fns := unaryRuns
	if k.op != opRelu {
		fns = fns[:2]
	}
	var err error
	k.fn, err = fns.forDT(n.Op, k.dt)
	return k, err
}

func (k *unaryKernel) inPlace() []int { return []int{0} }

func (k *unaryKernel) run(rc *runCtx, ins, outs []any) error {
	k.fn(rc, k, outs[0], ins[0])
	return nil
}

// reluInt is Relu of an integer type (for the unsigned ones, a copy).
func reluInt[T intT](_ *runCtx, _ *unaryKernel, yd, xd any) {
	y, x := yd.([]T), xd.([]T)
	for i, v := range x {
		y[i] = max(v, 0)
	}
}

func unaryRun[T floatT](rc *runCtx, k *unaryKernel, yd, xd any) {
	y, x := yd.([]T), xd.([]T)
	cost := unaryCost[k.op]
	if chunks(rc.threads, len(x), cost) <= 1 {
		unaryFloat(k.op, y, x, T(k.alpha), T(k.beta))
		return
	}
	parallelFor(rc.threads, len(x), cost, func(lo, hi int) {
		unaryFloat(k.op, y[lo:hi], x[lo:hi], T(k.alpha), T(k.beta))
	})
}

// unaryFloat applies op to every element of x.
func unaryFloat[T floatT](op unaryOp, y, x []T, alpha, beta T) {
	y = y[:len(x)]
	switch op {
	case opRelu:
		for i, v := range x {
			y[i] = max(v, 0)
		}
	case opLeakyRelu:
		for i, v := range x {
			if v < 0 {
				v *= alpha
			}
			y[i] = v
		}
	case opSqrt:
		for i, v := range x {
			y[i] = T(math.Sqrt(float64(v)))
		}
	case opSigmoid:
		for i, v := range x {
			y[i] = graph.Sigmoid(v)
		}
	case opHardSigmoid:
		for i, v := range x {
			y[i] = min(max(alpha*v+beta, 0), 1)
		}
	case opHardSwish:
		for i, v := range x {
			y[i] = v * min(max(v/6+0.5, 0), 1)
		}
	}
}

// clipKernel is Clip with optional scalar min and max inputs read at run
// time.
type clipKernel struct {
	dt graph.DType
	fn func(rc *runCtx, y, x, lo, hi any)
}

var clipRuns = numFns[func(rc *runCtx, y, x, lo, hi any)]{
	clipRun[float32], clipRun[float64], clipRun[int64], clipRun[int32], clipRun[int16],
	clipRun[int8], clipRun[uint64], clipRun[uint32], clipRun[uint16], clipRun[uint8],
}

func newClipKernel(ni *nodeInfo) (kernel, error) {
	dt := ni.out(0).dt
	fn, err := clipRuns.forDT("Clip", dt)
	if err != nil {
		return nil, err
	}
	for i := 1; i <= 2; i++ {
		if v := ni.in(i); v != nil && (v.n != 1 || v.dt != dt) {
			if v.n == 0 {
				continue
			}
			return nil, fmt.Errorf("%s must be a %v scalar, got %v[%s]", ni.inputName(i), dt, v.dt, graph.ShapeString(v.shape))
		}
	}
	return &clipKernel{dt: dt, fn: fn}, nil
}

func (k *clipKernel) inPlace() []int { return []int{0} }

func (k *clipKernel) run(rc *runCtx, ins, outs []any) error {
	k.fn(rc, outs[0], ins[0], optIn(ins, 1), optIn(ins, 2))
	return nil
}

func clipRun[T numT](rc *runCtx, yd, xd, lo, hi any) {
	y, x := yd.([]T), xd.([]T)
	minV, maxV := lowest[T](), highest[T]()
	if s, ok := lo.([]T); ok && len(s) == 1 {
		minV = s[0]
	}
	if s, ok := hi.([]T); ok && len(s) == 1 {
		maxV = s[0]
	}
	if chunks(rc.threads, len(x), 1) <= 1 {
		clipRange(y, x, minV, maxV)
		return
	}
	parallelFor(rc.threads, len(x), 1, func(a, b int) { clipRange(y[a:b], x[a:b], minV, maxV) })
}

func clipRange[T numT](y, x []T, lo, hi T) {
	for i, v := range x {
		y[i] = min(max(v, lo), hi)
	}
}

// lowest and highest return the extreme values of T (±Inf for floats).
func lowest[T numT]() T { return extreme[T](false) }

func highest[T numT]() T { return extreme[T](true) }

// extreme returns the largest value of T when high is set and the smallest otherwise.
func extreme[T numT](high bool) T {
	var z T
	var lo, hi float64
	switch any(z).(type) {
	case float32, float64:
		lo, hi = math.Inf(-1), math.Inf(1)
	case int8:
		lo, hi = math.MinInt8, math.MaxInt8
	case int16:
		lo, hi = math.MinInt16, math.MaxInt16
	case int32:
		lo, hi = math.MinInt32, math.MaxInt32
	case int64:
		// float64 cannot hold these exactly, so they are converted from int64.
		m := int64(math.MinInt64)
		if high {
			m = math.MaxInt64
		}
		return T(m)
	case uint8:
		hi = math.MaxUint8
	case uint16:
		hi = math.MaxUint16
	case uint32:
		hi = math.MaxUint32
	case uint64:
		if high {
			m := uint64(math.MaxUint64)
			return T(m)
		}
	}
	if high {
		return T(hi)
	}
	return T(lo)
}
