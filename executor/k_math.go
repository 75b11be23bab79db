package executor

import "github.com/xrl-dev/xrl/graph"

// Elementwise math on one input: the generic kernel of every op whose
// schema row has a Unary function (evaluated in float64 for both float
// precisions) and no typed loop of its own (k_unary.go), sign ops on every
// signed type, and the bool-valued predicates IsNaN, IsInf and Not.

func init() {
	registerKernel(newSignedKernel, "Neg", "Abs", "Sign")
	registerKernel(newPredicateKernel, "IsNaN", "IsInf", "Not")
}

// mathKernel applies the schema's float64 function to every element.
type mathKernel struct{ f func(float64) float64 }

func newMathKernel(ni *nodeInfo) (kernel, error) {
	if dt := ni.out(0).dt; !isFloatDT(dt) {
		return nil, errDType(ni.node.Op, dt)
	}
	return &mathKernel{f: ni.node.Schema().Unary(ni.node)}, nil
}

func (k *mathKernel) inPlace() []int { return []int{0} }

func (k *mathKernel) run(rc *runCtx, ins, outs []any) error {
	switch x := ins[0].(type) {
	case []float32:
		y, f := outs[0].([]float32), k.f
		if chunks(rc.threads, len(x), 16) <= 1 {
			mathBlocks(f, y, x)
			return nil
		}
		parallelFor(rc.threads, len(x), 16, func(lo, hi int) { mathBlocks(f, y[lo:hi], x[lo:hi]) })
	case []float64:
		mapRun(rc, outs[0].([]float64), x, 16, k.f)
	}
	return nil
}

// mathBlocks sets y[i] = f(x[i]) for float32 data, through a float64
// block on the stack: each call then reads its argument from memory.
// Converting the argument in the calling loop instead makes every call
// wait for the one before (the conversion writes only part of the
// register that holds the previous result), which costs a third of the
// time of Sin or Tanh.
func mathBlocks(f func(float64) float64, y, x []float32) {
	var buf [256]float64
	for len(x) > 0 {
		b := buf[:min(len(x), len(buf))]
		for i := range b {
			b[i] = float64(x[i])
		}
		for i, v := range b {
			b[i] = f(v)
		}
		for i, v := range b {
			y[i] = float32(v)
		}
		x, y = x[len(b):], y[len(b):]
	}
}

// mapRun sets y[i] = f(x[i]), in parallel for large inputs.
func mapRun[A, B any](rc *runCtx, y []B, x []A, cost int, f func(A) B) {
	if chunks(rc.threads, len(x), cost) <= 1 {
		for i, v := range x {
			y[i] = f(v)
		}
		return
	}
	parallelFor(rc.threads, len(x), cost, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] = f(x[i])
		}
	})
}

// signedKernel is Neg, Abs or Sign on any signed type.
type signedKernel struct {
	op string
	fn func(rc *runCtx, op string, y, x any)
}

// signedRuns covers the floats and the signed integers.
var signedRuns = numFns[func(rc *runCtx, op string, y, x any)]{
	signedRun[float32], signedRun[float64], signedRun[int64], signedRun[int32], signedRun[int16], signedRun[int8],
}

func newSignedKernel(ni *nodeInfo) (kernel, error) {
	fn, err := signedRuns.forDT(ni.node.Op, ni.out(0).dt)
	if err != nil {
		return nil, err
	}
	return &signedKernel{op: ni.node.Op, fn: fn}, nil
}

func (k *signedKernel) inPlace() []int { return []int{0} }

func (k *signedKernel) run(rc *runCtx, ins, outs []any) error {
	k.fn(rc, k.op, outs[0], ins[0])
	return nil
}

type signedT interface {
	~float32 | ~float64 | ~int8 | ~int16 | ~int32 | ~int64
}

func signedRun[T signedT](rc *runCtx, op string, yd, xd any) {
	y, x := yd.([]T), xd.([]T)
	switch op {
	case "Neg":
		mapRun(rc, y, x, 1, func(v T) T { return -v })
	case "Abs":
		mapRun(rc, y, x, 1, func(v T) T {
			if v < 0 {
				return -v
			}
			return v
		})
	default:
		mapRun(rc, y, x, 1, func(v T) T {
			switch {
			case v > 0:
				return 1
			case v < 0:
				return T(0) - 1
			}
			return v // 0, or NaN
		})
	}
}

// predicateKernel is IsNaN, IsInf (float in: the schema's function, 1
// for true) or Not (bool in); output bool.
type predicateKernel struct {
	f func(float64) float64
}

func newPredicateKernel(ni *nodeInfo) (kernel, error) {
	n := ni.node
	dt := ni.in(0).dt
	if (n.Op == "Not") != (dt == graph.Bool) || (n.Op != "Not" && !isFloatDT(dt)) {
		return nil, errDType(n.Op, dt)
	}
	return &predicateKernel{f: n.Schema().Unary(n)}, nil
}

func (k *predicateKernel) run(rc *runCtx, ins, outs []any) error {
	y := outs[0].([]bool)
	switch x := ins[0].(type) {
	case []bool:
		mapRun(rc, y, x, 1, func(v bool) bool { return !v })
	case []float32:
		mapRun(rc, y, x, 1, func(v float32) bool { return k.f(float64(v)) != 0 })
	case []float64:
		mapRun(rc, y, x, 1, func(v float64) bool { return k.f(v) != 0 })
	}
	return nil
}
