package rules

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// Dist is a distribution of verification data. A rule must hold on every
// one of them: data confined to [-1, 1) hides rules that hold only for
// small magnitudes (Min(Mul(x, x), 1) is x*x only when |x| <= 1).
type Dist uint8

const (
	// DistUnit draws uniformly from [-1, 1).
	DistUnit Dist = iota
	// DistLarge draws magnitudes 10^u, u uniform in [0, 4), with random
	// signs: values from 1 to 10000.
	DistLarge
	// DistSpecial draws from exact values and the edges of op domains:
	// 0, 1, -1, 2, -2, 0.5, -0.5, ±1e-30 (next to the poles of Div, Log
	// and Sqrt's edge), ±100 and 710, -746 (where Exp overflows and
	// underflows in float64), with a quarter of the elements from
	// DistUnit.
	DistSpecial
	// DistMixed draws each element from DistUnit, DistLarge or DistSpecial
	// at random: mixed magnitudes and signs in one tensor.
	DistMixed
)

// Dists lists every distribution, in the order the verifier tries them.
var Dists = []Dist{DistUnit, DistLarge, DistSpecial, DistMixed}

// String names the distribution ("unit", "large", "special", "mixed").
func (d Dist) String() string {
	switch d {
	case DistUnit:
		return "unit"
	case DistLarge:
		return "large"
	case DistSpecial:
		return "special"
	case DistMixed:
		return "mixed"
	}
	return fmt.Sprintf("Dist(%d)", uint8(d))
}

// specialValues are the exact values and domain edges of DistSpecial.
var specialValues = []float64{0, 1, -1, 2, -2, 0.5, -0.5, 1e-30, -1e-30, 100, -100, 710, -746}

// Range is a value-range assumption on a tensor variable, declared after
// its template ("x[n] pos") and proved by the matcher at each match site.
type Range uint8

const (
	// RangeAny assumes nothing.
	RangeAny Range = iota
	// RangeNonNeg ("nonneg") assumes every element is >= 0 (or NaN). A
	// match proves it from a constant's data, or from the value's
	// producer: an op the op-schema table marks NonNegative.
	RangeNonNeg
	// RangePos ("pos") assumes every element is > 0. Only a constant's
	// data proves it (Exp and Sigmoid underflow to 0 in floating point),
	// so the rule must require isConst of the variable.
	RangePos
)

// String gives the keyword of the range ("" for RangeAny).
func (r Range) String() string {
	switch r {
	case RangeNonNeg:
		return "nonneg"
	case RangePos:
		return "pos"
	}
	return ""
}

// nonNegOpList names the ops whose values satisfy RangeNonNeg
// (graph.OpSchema.NonNegative) for messages ("Abs, Exp, ... or Sqrt").
func nonNegOpList() string {
	var ops []string
	for _, s := range graph.Schemas() {
		if s.NonNegative {
			ops = append(ops, s.Op)
		}
	}
	sort.Strings(ops)
	return strings.Join(ops[:len(ops)-1], ", ") + " or " + ops[len(ops)-1]
}

// draw returns one value of distribution d.
func (d Dist) draw(rng *rand.Rand) float64 {
	switch d {
	case DistLarge:
		v := math.Pow(10, 4*rng.Float64())
		if rng.IntN(2) == 0 {
			v = -v
		}
		return v
	case DistSpecial:
		if rng.IntN(4) == 0 {
			return DistUnit.draw(rng)
		}
		return specialValues[rng.IntN(len(specialValues))]
	case DistMixed:
		return Dist(rng.IntN(3)).draw(rng)
	}
	return -1 + 2*rng.Float64()
}

// FillDist fills a float tensor with values of distribution d that satisfy
// range r: their absolute values for RangeNonNeg; for RangePos those too,
// with zeros replaced by 1.
func FillDist(t *graph.Tensor, rng *rand.Rand, d Dist, r Range) {
	val := func() float64 {
		v := d.draw(rng)
		if r != RangeAny {
			v = math.Abs(v)
		}
		if r == RangePos && v == 0 {
			v = 1
		}
		return v
	}
	switch x := t.Data.(type) {
	case []float32:
		for i := range x {
			x[i] = float32(val())
		}
	case []float64:
		for i := range x {
			x[i] = val()
		}
	}
}

// holdsOn reports whether every element of t is in range r.
func (r Range) holdsOn(t *graph.Tensor) bool {
	if r == RangeAny {
		return true
	}
	xs, err := t.AsFloat64()
	if err != nil {
		return false
	}
	for _, x := range xs {
		if x < 0 || (r == RangePos && x == 0) || (r == RangePos && math.IsNaN(x)) {
			return false
		}
	}
	return true
}

// proved reports whether the matcher can prove range r for graph value v:
// from its data when it is a constant, otherwise from its producer.
func (r Range) proved(v *graph.Value, producer func(*graph.Value) *graph.Node) bool {
	switch {
	case r == RangeAny:
		return true
	case v == nil:
		return false
	case v.Const != nil:
		return r.holdsOn(v.Const)
	case r == RangeNonNeg && producer != nil:
		n := producer(v)
		if n == nil {
			return false
		}
		s := graph.Lookup(n.Domain, n.Op)
		return s != nil && s.NonNegative
	}
	return false
}
