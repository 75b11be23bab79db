package executor

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// Elementwise math on one input: functions evaluated in float64 for both
// float precisions, sign and rounding ops on every signed type, and the
// bool-valued predicates IsNaN, IsInf and Not.

// mathFuncs builds each float op's function from the node's attributes.
var mathFuncs = map[string]func(n *graph.Node) func(float64) float64{
	"Reciprocal": fixed(func(x float64) float64 { return 1 / x }),
	"Floor":      fixed(math.Floor),
	"Ceil":       fixed(math.Ceil),
	"Round":      fixed(math.RoundToEven),
	"Sin":        fixed(math.Sin),
	"Cos":        fixed(math.Cos),
	"Tan":        fixed(math.Tan),
	"Asin":       fixed(math.Asin),
	"Acos":       fixed(math.Acos),
	"Atan":       fixed(math.Atan),
	"Sinh":       fixed(math.Sinh),
	"Cosh":       fixed(math.Cosh),
	"Asinh":      fixed(math.Asinh),
	"Acosh":      fixed(math.Acosh),
	"Atanh":      fixed(math.Atanh),
	"Softplus":   fixed(softplus),
	"Softsign":   fixed(func(x float64) float64 { return x / (1 + math.Abs(x)) }),
	"Mish":       fixed(func(x float64) float64 { return x * math.Tanh(softplus(x)) }),
	"Elu": func(n *graph.Node) func(float64) float64 {
		a := float64(n.AttrFloat("alpha"))
		return func(x float64) float64 {
			if x < 0 {
				return a * math.Expm1(x)
			}
			return x
		}
	},
	"Celu": func(n *graph.Node) func(float64) float64 {
		a := float64(n.AttrFloat("alpha"))
		return func(x float64) float64 { return max(0, x) + min(0, a*math.Expm1(x/a)) }
	},
	"Selu": func(n *graph.Node) func(float64) float64 {
		a, g := float64(n.AttrFloat("alpha")), float64(n.AttrFloat("gamma"))
		return func(x float64) float64 {
			if x > 0 {
				return g * x
			}
			return g * a * math.Expm1(x)
		}
	},
	"ThresholdedRelu": func(n *graph.Node) func(float64) float64 {
		a := float64(n.AttrFloat("alpha"))
		return func(x float64) float64 {
			if x > a {
				return x
			}
			return 0
		}
	},
	"Shrink": func(n *graph.Node) func(float64) float64 {
		l, b := float64(n.AttrFloat("lambd")), float64(n.AttrFloat("bias"))
		return func(x float64) float64 {
			switch {
			case x < -l:
				return x + b
			case x > l:
				return x - b
			}
			return 0
		}
	},
	"Gelu": func(n *graph.Node) func(float64) float64 {
		if n.AttrString("approximate") == "tanh" {
			c := math.Sqrt(2 / math.Pi)
			return func(x float64) float64 { return 0.5 * x * (1 + math.Tanh(c*(x+0.044715*x*x*x))) }
		}
		return func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }
	},
}

func fixed(f func(float64) float64) func(*graph.Node) func(float64) float64 {
	return func(*graph.Node) func(float64) float64 { return f }
}

// softplus is ln(1+e^x), without overflow for large x.
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

func init() {
	for op := range mathFuncs {
		registerKernel(newMathKernel, op)
	}
	registerKernel(newSignedKernel, "Neg", "Abs", "Sign")
	registerKernel(newPredicateKernel, "IsNaN", "IsInf", "Not")
}

// mathKernel applies a float64 function to every element.
type mathKernel struct{ f func(float64) float64 }

func newMathKernel(ni *nodeInfo) (kernel, error) {
	if dt := ni.out(0).dt; !isFloatDT(dt) {
		return nil, errDType(ni.node.Op, dt)
	}
	return &mathKernel{f: mathFuncs[ni.node.Op](ni.node)}, nil
}

func (k *mathKernel) inPlace() []int { return []int{0} }

func (k *mathKernel) run(rc *runCtx, ins, outs []any) error {
	switch x := ins[0].(type) {
	case []float32:
		mapRun(rc, outs[0].([]float32), x, 16, func(v float32) float32 { return float32(k.f(float64(v))) })
	case []float64:
		mapRun(rc, outs[0].([]float64), x, 16, k.f)
	}
	return nil
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

// predicateKernel is IsNaN, IsInf (float in) or Not (bool in); output bool.
type predicateKernel struct {
	op       string
	pos, neg bool
}

func newPredicateKernel(ni *nodeInfo) (kernel, error) {
	n := ni.node
	dt := ni.in(0).dt
	if (n.Op == "Not") != (dt == graph.Bool) || (n.Op != "Not" && !isFloatDT(dt)) {
		return nil, errDType(n.Op, dt)
	}
	k := &predicateKernel{op: n.Op}
	if n.Op == "IsInf" {
		k.pos, k.neg = n.AttrInt("detect_positive") != 0, n.AttrInt("detect_negative") != 0
	}
	return k, nil
}

func (k *predicateKernel) run(rc *runCtx, ins, outs []any) error {
	y := outs[0].([]bool)
	switch x := ins[0].(type) {
	case []bool:
		mapRun(rc, y, x, 1, func(v bool) bool { return !v })
	case []float32:
		mapRun(rc, y, x, 1, func(v float32) bool { return k.test(float64(v)) })
	case []float64:
		mapRun(rc, y, x, 1, k.test)
	}
	return nil
}

func (k *predicateKernel) test(v float64) bool {
	if k.op == "IsNaN" {
		return math.IsNaN(v)
	}
	return k.pos && math.IsInf(v, 1) || k.neg && math.IsInf(v, -1)
}
