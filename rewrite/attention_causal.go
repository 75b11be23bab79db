package rewrite

import (
	"math"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// Causal masks computed at run time. GroupQueryAttention masks every key
// after its query itself, so a block becomes one only when its own mask
// does exactly that at every sequence length: 0 at and below the
// diagonal, at most causalFill above it (a fill that softmax weighs as
// zero, whether added or put in place of the score). A mask computed
// from the length is recognised by its construction, not by its values
// at one length (a sliding window would agree with a causal mask up to
// its width). The constructions exporters use:
//
//   - Slices from row and column 0 of a constant causal table (an
//     additive -inf triu buffer, GPT-2's boolean tril buffer);
//   - Where(keep, 0, fill) or Where(masked, fill, 0), keep the Less of
//     Range(0, S, 1) against Range(0, S, 1) + 1 as a column (j < i+1,
//     LLaMA's), masked a Trilu(upper, k = 1) of all-true values, or
//     either a Slice of a constant boolean table;
//
// each possibly through Casts, Unsqueezes and Reshapes that add leading
// unit axes.

// causalValue reports whether v, [.., S, S] with leading ones, is a
// causal additive mask built as above.
func (f *attnFuser) causalValue(v *graph.Value) bool {
	v = f.unitWrapped(v)
	if v.IsConst() {
		return causalConst(v.Const)
	}
	if t, ok := f.topLeft(v); ok {
		return causalConst(t)
	}
	w, ok := f.producer(v, "Where")
	if !ok {
		return false
	}
	fill, zero := 2, 1 // Where(keep, 0, fill)
	keep := true
	if c, ok := fillConst(f, w.Input(1)); ok && c <= causalFill {
		fill, zero, keep = 1, 2, false // Where(masked, fill, 0)
	}
	if c, ok := fillConst(f, w.Input(fill)); !ok || c > causalFill {
		return false
	}
	if c, ok := fillConst(f, w.Input(zero)); !ok || c != 0 {
		return false
	}
	cond := f.unitWrapped(w.Input(0))
	if t, ok := f.topLeft(cond); ok {
		return boolTriangle(t, keep)
	}
	if keep {
		return f.lessThanNext(cond)
	}
	return f.strictUpper(cond)
}

// unitWrapped strips Casts between float and boolean types (which keep
// zero and non-zero apart) and the Unsqueezes and Reshapes that only add
// or remove leading unit axes from v.
func (f *attnFuser) unitWrapped(v *graph.Value) *graph.Value {
	for {
		p := f.prod[v]
		if p == nil || !defaultDomain(p) || len(p.Outputs) != 1 {
			return v
		}
		in, out := dims(p.Input(0)), dims(v)
		switch {
		case p.Op == "Cast" && floatOrBool(p.Input(0).DType) && floatOrBool(v.DType):
		case (p.Op == "Unsqueeze" || p.Op == "Reshape" || p.Op == "Squeeze") && len(in) >= 2 && len(out) >= 2 &&
			allOnes(in[:len(in)-2]) && allOnes(out[:len(out)-2]) && in[len(in)-2:].Equal(out[len(out)-2:]):
		default:
			return v
		}
		v = p.Input(0)
	}
}

// topLeft returns the constant table [.., P, P] (leading ones) that v is
// the top-left corner of: Slices from 0 along the last two axes, step 1.
func (f *attnFuser) topLeft(v *graph.Value) (*graph.Tensor, bool) {
	sliced := false
	for {
		v = f.unitWrapped(v)
		if v.IsConst() {
			s := v.Const.Shape
			if !sliced || len(s) < 2 || s[len(s)-1] != s[len(s)-2] {
				return nil, false
			}
			return v.Const, true
		}
		sl, ok := f.producer(v, "Slice")
		if !ok {
			return nil, false
		}
		in := dims(sl.Input(0))
		axes, ok := zeroSlice(sl, len(in))
		if !ok || len(in) < 2 || slices.ContainsFunc(axes, func(a int) bool { return a < len(in)-2 }) {
			return nil, false
		}
		sliced, v = true, sl.Input(0)
	}
}

// zeroSlice returns the axes of the Slice sl, normalised to its input's
// rank, when every start is the constant 0 and every step 1 (the ends may
// be computed: the output's shape says how far it reaches).
func zeroSlice(sl *graph.Node, rank int) ([]int, bool) {
	starts, ok := constInts(sl, 1)
	if !ok || slices.ContainsFunc(starts, func(s int64) bool { return s != 0 }) {
		return nil, false
	}
	if sl.Input(4) != nil {
		steps, ok := constInts(sl, 4)
		if !ok || slices.ContainsFunc(steps, func(s int64) bool { return s != 1 }) {
			return nil, false
		}
	}
	if sl.Input(3) == nil {
		axes := make([]int, len(starts))
		for i := range axes {
			axes[i] = i
		}
		return axes, true
	}
	axes, ok := constAxes(sl, 3, rank)
	return axes, ok && len(axes) == len(starts)
}

// fillConst returns the value of a scalar float constant, or of a
// ConstantOfShape's value.
func fillConst(f *attnFuser, v *graph.Value) (float64, bool) {
	v = f.unitWrapped(v)
	if c, ok := scalarValue(v); ok {
		return c, true
	}
	p := f.prod[v]
	if p == nil || p.Op != "ConstantOfShape" || !defaultDomain(p) {
		return 0, false
	}
	t := p.AttrTensor("value")
	if t == nil {
		return 0, true // the default value, 0
	}
	d, err := t.AsFloat64()
	if err != nil || len(d) != 1 || math.IsNaN(d[0]) {
		return 0, false
	}
	return d[0], true
}

// boolTriangle reports whether the square table t [.., P, P] (leading
// ones) is true (non-zero) exactly at and below the diagonal (keep), or
// exactly above it (not keep).
func boolTriangle(t *graph.Tensor, keep bool) bool {
	return everyCell(t, func(i, j int, x float64) bool { return (x != 0) == ((j <= i) == keep) })
}

// lessThanNext reports whether c [S, S] is Less(R, Reshape(Add(R, 1)))
// with R = Range(0, S, 1) and the Reshape a column [S, 1]: key j kept by
// query i where j < i+1.
func (f *attnFuser) lessThanNext(c *graph.Value) bool {
	l, ok := f.producer(c, "Less")
	if !ok {
		return false
	}
	r := l.Input(0)
	col, ok := f.producer(l.Input(1), "Reshape")
	if !ok || !isColumn(dims(col.Outputs[0]), dims(r)) {
		return false
	}
	add, ok := f.producer(col.Input(0), "Add")
	if !ok {
		return false
	}
	for i := range 2 {
		if add.Input(i) == r && isIntScalar(add.Input(1-i), 1) {
			return f.zeroToN(r)
		}
	}
	return false
}

// floatOrBool reports whether dt is a floating-point type or bool.
func floatOrBool(dt graph.DType) bool { return dt.IsFloat() || dt == graph.Bool }

// isColumn reports whether cs is [n, 1] for rs [n].
func isColumn(cs, rs graph.Shape) bool {
	return len(cs) == 2 && len(rs) == 1 && cs[0] == rs[0] && isFixed(cs[1], 1)
}

// zeroToN reports whether r is Range(0, n, 1).
func (f *attnFuser) zeroToN(r *graph.Value) bool {
	p, ok := f.producer(r, "Range")
	return ok && isIntScalar(p.Input(0), 0) && isIntScalar(p.Input(2), 1)
}

// isIntScalar reports whether v is a one-element constant equal to x.
func isIntScalar(v *graph.Value, x float64) bool {
	if v == nil || !v.IsConst() || v.Const.Len() != 1 {
		return false
	}
	d, err := v.Const.AsFloat64()
	return err == nil && d[0] == x
}

// strictUpper reports whether c [S, S] is Trilu(X, upper = 1, k = 1) of
// an all-true X (a ConstantOfShape of a non-zero value, or a constant of
// non-zero elements): true exactly above the diagonal.
func (f *attnFuser) strictUpper(c *graph.Value) bool {
	t, ok := f.producer(c, "Trilu")
	if !ok || attrInt(t, "upper", 1) != 1 {
		return false
	}
	if k, ok := constInts(t, 1); !ok || len(k) != 1 || k[0] != 1 {
		return false
	}
	x := f.unitWrapped(t.Input(0))
	if x.IsConst() {
		d, err := x.Const.AsFloat64()
		return err == nil && !slices.Contains(d, 0)
	}
	if c, ok := fillConst(f, x); ok {
		return c != 0
	}
	return false
}
