package rules

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/graph"
)

// Constant-value predicates let a rule tell apart forms that differ only
// by the value of a constant (GELU's 0.5 and sqrt(2), an attention scale
// of 1/sqrt(d)):
//
//	isConstValue(t, v)  every element of the constant t is v, rounded to t's type
//	isConstNear(t, v)   every element of the constant t is within NearTolerance of v
//
// v is a float expression over the rule's symbols and variables
// (1.0 / sqrt(dim(q, -1))). The verifier knows what they mean: a variable
// pinned by isConstValue becomes a constant holding exactly v, and one
// pinned by isConstNear a constant holding v moved by up to half the
// tolerance either way, so a rule verifies only when its target computes
// the same function for every value the predicate accepts (a target must
// reuse the matched constant, not a fresh copy of v).

// NearTolerance is the relative tolerance of isConstNear: a value x is near
// v when |x - v| <= NearTolerance*|v| + 1e-8, the margin ONNX Runtime's
// fusions allow an exported constant.
const NearTolerance = 1e-5

// nearAbs is the absolute part of isConstNear's margin.
const nearAbs = 1e-8

func init() {
	register("isConstValue", "isConstValue(t, v) holds when t is a constant whose every element equals v rounded to t's element type.", KBool, []Kind{KTensor, KFloat}, func(a []Value) (Value, error) {
		return boolVal(constAll(a[0], func(x float64, dt graph.DType) bool { return x == roundTo(dt, a[1].Float) })), nil
	})
	register("isConstNear", "isConstNear(t, v) holds when t is a constant whose every element x has |x - v| <= 1e-5*|v| + 1e-8.", KBool, []Kind{KTensor, KFloat}, func(a []Value) (Value, error) {
		return boolVal(constAll(a[0], func(x float64, _ graph.DType) bool { return near(x, a[1].Float) })), nil
	})
	register("sqrt", "sqrt(x) is the square root of the number x (x >= 0).", KFloat, []Kind{KFloat}, func(a []Value) (Value, error) {
		if a[0].Float < 0 {
			return Value{}, fmt.Errorf("sqrt(%g): negative", a[0].Float)
		}
		return floatVal(math.Sqrt(a[0].Float)), nil
	})
}

// near reports whether x is within isConstNear's margin of v.
func near(x, v float64) bool {
	return math.Abs(x-v) <= NearTolerance*math.Abs(v)+nearAbs
}

// roundTo returns v as the nearest value of the float type dt (float64
// for other types).
func roundTo(dt graph.DType, v float64) float64 {
	if dt == graph.Float32 {
		return float64(float32(v))
	}
	return v
}

// constAll reports whether v is a non-empty float constant whose every
// element satisfies ok.
func constAll(v Value, ok func(x float64, dt graph.DType) bool) bool {
	t := v.Tensor
	if t == nil || t.Const == nil || (t.DType != graph.Float32 && t.DType != graph.Float64) {
		return false
	}
	xs, err := t.Const.AsFloat64()
	if err != nil || len(xs) == 0 {
		return false
	}
	for _, x := range xs {
		if !ok(x, t.DType) {
			return false
		}
	}
	return true
}

// constPin is the value a constant-value predicate gives a variable.
type constPin struct {
	value *Expr
	near  bool
}

// constPins returns the tensor variables a condition pins to a value
// (isConstValue or isConstNear as a plain condition, not under ! or ||).
func (r *Rule) constPins() map[*Var]constPin {
	out := map[*Var]constPin{}
	for _, c := range r.Conds {
		if c.Op == ECall && (c.Name == "isConstValue" || c.Name == "isConstNear") && len(c.Args) == 2 && c.Args[0].Var != nil {
			out[c.Args[0].Var] = constPin{value: c.Args[1], near: c.Name == "isConstNear"}
		}
	}
	return out
}

// fillPinned fills the data of the pinned constants of an instance once
// every variable has its shape: exactly the pinned value, or for
// isConstNear the value moved by -1/2, 0 or +1/2 of the tolerance at
// random.
func (r *Rule) fillPinned(pins map[*Var]constPin, m *Match, en *env, rng *rand.Rand) error {
	for _, v := range r.Vars {
		p, ok := pins[v]
		if !ok {
			continue
		}
		val, err := (&env{m: m, syms: en.syms}).eval(p.value)
		if err != nil {
			return fmt.Errorf("the value of %s: %w", v.Name, err)
		}
		x := val.asFloat()
		if p.near {
			x += float64(rng.IntN(3)-1) * NearTolerance / 2 * math.Abs(x)
		}
		data := m.Values[v.Index].Const.Float32s()
		for i := range data {
			data[i] = float32(x)
		}
		if p.near && !near(float64(float32(x)), val.asFloat()) {
			// float32 rounding pushed a moved value past the margin.
			for i := range data {
				data[i] = float32(val.asFloat())
			}
		}
	}
	return nil
}

// Pinned reports the tensor variables whose value a constant-value
// predicate fixes: a verifier must keep their data (the rule holds for
// those values only), where it may replace other constants' data.
func (r *Rule) Pinned() map[*Var]bool {
	out := map[*Var]bool{}
	for v := range r.constPins() {
		out[v] = true
	}
	return out
}
