package graph

import "math"

// The functions of the one-input elementwise rows (OpSchema.Unary).

// UnaryFunc builds, from node n's attributes, the function that n's op
// applies to each element, evaluated in float64; 1 and 0 stand for true
// and false. The Go executor builds it once when it compiles n.
type UnaryFunc func(n *Node) func(float64) float64

// unaryOf is the UnaryFunc of an op without attributes.
func unaryOf(f func(float64) float64) UnaryFunc {
	return func(*Node) func(float64) float64 { return f }
}

// Sigmoid is 1/(1+e^-x), evaluated in float64 without overflow for large
// |x| and rounded to T.
func Sigmoid[T ~float32 | ~float64](x T) T {
	if x >= 0 {
		return T(1 / (1 + math.Exp(-float64(x))))
	}
	e := math.Exp(float64(x))
	return T(e / (1 + e))
}

// softplus is ln(1+e^x), without overflow for large x.
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// signOf returns -1, 0 or 1 by the sign of x, and NaN for NaN.
func signOf(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x
}

func relu(x float64) float64       { return max(x, 0) }
func neg(x float64) float64        { return -x }
func reciprocal(x float64) float64 { return 1 / x }
func softsign(x float64) float64   { return x / (1 + math.Abs(x)) }
func mish(x float64) float64       { return x * math.Tanh(softplus(x)) }
func hardSwish(x float64) float64  { return x * min(max(x/6+0.5, 0), 1) }
func isNaN(x float64) float64      { return truth[float64](math.IsNaN(x)) }
func not(x float64) float64        { return truth[float64](x == 0) }

// leakyRelu is x, or alpha*x below 0.
func leakyRelu(n *Node) func(float64) float64 {
	a := float64(n.AttrFloat("alpha"))
	return func(x float64) float64 {
		if x < 0 {
			x *= a
		}
		return x
	}
}

// hardSigmoid is alpha*x + beta clamped to [0, 1].
func hardSigmoid(n *Node) func(float64) float64 {
	a, b := float64(n.AttrFloat("alpha")), float64(n.AttrFloat("beta"))
	return func(x float64) float64 { return min(max(a*x+b, 0), 1) }
}

// elu is x, or alpha*(e^x - 1) below 0.
func elu(n *Node) func(float64) float64 {
	a := float64(n.AttrFloat("alpha"))
	return func(x float64) float64 {
		if x < 0 {
			return a * math.Expm1(x)
		}
		return x
	}
}

// celu is max(0, x) + min(0, alpha*(e^(x/alpha) - 1)).
func celu(n *Node) func(float64) float64 {
	a := float64(n.AttrFloat("alpha"))
	return func(x float64) float64 { return max(0, x) + min(0, a*math.Expm1(x/a)) }
}

// selu is gamma*x above 0, else gamma*alpha*(e^x - 1).
func selu(n *Node) func(float64) float64 {
	a, g := float64(n.AttrFloat("alpha")), float64(n.AttrFloat("gamma"))
	return func(x float64) float64 {
		if x > 0 {
			return g * x
		}
		return g * a * math.Expm1(x)
	}
}

// thresholdedRelu is x above alpha, else 0.
func thresholdedRelu(n *Node) func(float64) float64 {
	a := float64(n.AttrFloat("alpha"))
	return func(x float64) float64 {
		if x > a {
			return x
		}
		return 0
	}
}

// shrink moves x towards 0 by bias outside [-lambd, lambd], else gives 0.
func shrink(n *Node) func(float64) float64 {
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
}

// gelu is x*Phi(x), or its tanh approximation when approximate is "tanh".
func gelu(n *Node) func(float64) float64 {
	if n.AttrString("approximate") == "tanh" {
		c := math.Sqrt(2 / math.Pi)
		return func(x float64) float64 { return 0.5 * x * (1 + math.Tanh(c*(x+0.044715*x*x*x))) }
	}
	return func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }
}

// isInf is 1 for +Inf when detect_positive is set and for -Inf when
// detect_negative is set, else 0.
func isInf(n *Node) func(float64) float64 {
	pos, negative := n.AttrInt("detect_positive") != 0, n.AttrInt("detect_negative") != 0
	return func(x float64) float64 {
		return truth[float64](pos && math.IsInf(x, 1) || negative && math.IsInf(x, -1))
	}
}
