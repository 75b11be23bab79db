package graph

import (
	"fmt"
	"math"
	"slices"
)

// Symbolic inference. On a graph bound with BindOptions.KeepSymbols, a
// dimension that depends on the model's symbolic input dimensions carries
// its expression in Dim.Param beside its size at the binding, and a small
// integer tensor computed from shapes carries its elements' expressions in
// Value.KnownDims. The op table's Infer functions compute sizes; ops whose
// output dimensions are not copies of input dimensions are then given
// their expressions here, after Infer, by a rule per op (symRules). A rule
// only labels: it never changes a size. An expression whose size disagrees
// with the size Infer computed, or that a rule cannot derive, becomes an
// opaque symbol of its own (unknownDim), which no other dimension equals:
// the conservative answer for rewrites.
//
// Ops without a rule either copy their input dimensions (which keeps the
// labels) or produce dimensions that do not depend on the inputs' sizes.

// symRule labels n's outputs; it runs only when some input is symbolic.
type symRule func(n *Node)

var symRules map[string]symRule

func init() {
	symRules = map[string]symRule{
		"Shape":               symShape,
		"Size":                symSize,
		"Gather":              symGather,
		"Slice":               symSlice,
		"Concat":              symConcat,
		"Unsqueeze":           symSameElems,
		"Squeeze":             symSameElems,
		"Identity":            symSameElems,
		"Flatten":             symFlatten,
		"Cast":                symCast,
		"Add":                 symArith,
		"Sub":                 symArith,
		"Mul":                 symArith,
		"Div":                 symArith,
		"Max":                 symArith,
		"Min":                 symArith,
		"Neg":                 symNeg,
		"Equal":               symEqual,
		"Where":               symWhere,
		"ConstantOfShape":     symConstantOfShape,
		"Expand":              symExpand,
		"Reshape":             symReshape,
		"Range":               symRange,
		"Tile":                symTile,
		"Split":               symSplit,
		"MatMul":              symMatMul,
		"Gemm":                symGemm,
		"Pad":                 symPad,
		"TopK":                symTopK,
		"Einsum":              symEinsum,
		"Attention":           symAttention,
		"GroupQueryAttention": symGroupQuery,
		"Resize":              symResize,
		"Conv":                symWindow,
		"ConvTranspose":       symWindow,
		"MaxPool":             symWindow,
		"AveragePool":         symWindow,
		"LpPool":              symWindow,
	}
}

// inferSymbolic labels n's outputs when any input is symbolic. A known
// output value computed from symbolic elements (or from a symbolic shape,
// for Shape and Size) is first marked as wholly unknown, so that it is
// never taken for a constant; the op's rule then labels what it can.
func inferSymbolic(n *Node) {
	if !readsSymbols(n) {
		return
	}
	if tainted(n) {
		for _, o := range n.Outputs {
			if o != nil && o.Known != nil {
				o.KnownDims = make([]Dim, o.Known.Len())
				for i := range o.KnownDims {
					o.KnownDims[i] = unknownDim(o, i, 0)
				}
			}
		}
	}
	if r := symRules[n.Op]; r != nil {
		r(n)
	}
}

// tainted reports whether n's known outputs may depend on the symbols.
func tainted(n *Node) bool {
	for _, in := range n.Inputs {
		if in != nil && in.KnownDims != nil {
			return true
		}
	}
	return (n.Op == "Shape" || n.Op == "Size") && n.Inputs[0].Shape.Symbolic()
}

// readsSymbols reports whether a present input has a symbolic dimension
// or symbolic known elements.
func readsSymbols(n *Node) bool {
	for _, in := range n.Inputs {
		if in != nil && (in.KnownDims != nil || in.Shape.Symbolic()) {
			return true
		}
	}
	return false
}

// unknownDim returns a dimension of size value that depends on the
// symbols in a way inference does not follow: an opaque symbol named
// after output v and position i.
func unknownDim(v *Value, i int, value int64) Dim {
	return Dim{Value: value, Param: SymAtom(fmt.Sprintf("?%s#%d", v.Name, i)).String()}
}

// dimArith returns the dimension vf(a, b) with expression sf(a, b); sf
// reports false when it has no expression, which gives an unknown symbol
// (named after v and i) when a or b is symbolic.
func dimArith(a, b Dim, v *Value, i int, vf func(x, y int64) int64, sf func(x, y Sym) (Sym, bool)) Dim {
	val := vf(a.Value, b.Value)
	if a.Param == "" && b.Param == "" {
		return Dim{Value: val}
	}
	e, ok := sf(a.Sym(), b.Sym())
	if !ok {
		return unknownDim(v, i, val)
	}
	return SymDim(val, e)
}

// labelShape gives output o the labels of dims, where each agrees with the
// size inference computed; a label that disagrees becomes unknown.
func labelShape(o *Value, dims []Dim) {
	if o == nil || !o.ShapeKnown || len(dims) != len(o.Shape) {
		return
	}
	s := o.Shape.Clone()
	for i, d := range dims {
		if d.Param == "" {
			continue
		}
		if d.Value != s[i].Value {
			s[i] = unknownDim(o, i, s[i].Value)
			continue
		}
		s[i] = d
	}
	o.Shape = s
}

// setKnownDims records elems as o's symbolic known elements, when o has a
// known integer value of the same length whose elements agree; elements
// that disagree become unknown. When no element is symbolic, o's value is
// the same for every binding and KnownDims is cleared.
func setKnownDims(o *Value, elems []Dim) {
	if o == nil || o.Known == nil {
		return
	}
	vals, err := o.Known.AsInt64()
	if err != nil || len(vals) != len(elems) {
		return
	}
	out := make([]Dim, len(elems))
	sym := false
	for i, e := range elems {
		out[i] = Dim{Value: vals[i]}
		if e.Param == "" {
			continue
		}
		sym = true
		if e.Value != vals[i] {
			out[i] = unknownDim(o, i, vals[i])
			continue
		}
		out[i] = e
	}
	o.KnownDims = nil
	if sym {
		o.KnownDims = out
	}
}

// elemsOf returns v's known integer elements as dimensions (symbolic ones
// from KnownDims), or false when v has no known integer value.
func elemsOf(v *Value) ([]Dim, bool) {
	if v == nil {
		return nil, false
	}
	if v.KnownDims != nil {
		return v.KnownDims, true
	}
	t := valueOf(v)
	if t == nil || !(t.DType.IsInt() || t.DType == Bool) {
		return nil, false
	}
	vals, err := t.AsInt64()
	if err != nil {
		return nil, false
	}
	out := make([]Dim, len(vals))
	for i, x := range vals {
		out[i] = Dim{Value: x}
	}
	return out, true
}

// shapeOfElems returns the output shape that a shape tensor's elements
// give, or false when it has none known.
func shapeOfElems(v *Value) (Shape, bool) {
	e, ok := elemsOf(v)
	return Shape(e), ok
}

func symShape(n *Node) {
	start, end := shapeRange(n)
	setKnownDims(n.Output(0), n.Inputs[0].Shape[start:end])
}

func symSize(n *Node) {
	p := Dim{Value: 1}
	for i, d := range n.Inputs[0].Shape {
		p = dimArith(p, d, n.Output(0), i, mulInt, mulSym)
	}
	setKnownDims(n.Output(0), []Dim{p})
}

func mulInt(x, y int64) int64          { return x * y }
func mulSym(x, y Sym) (Sym, bool)      { return x.Mul(y), true }
func addInt(x, y int64) int64          { return x + y }
func addSym(x, y Sym) (Sym, bool)      { return x.Add(y), true }
func subInt(x, y int64) int64          { return x - y }
func subSym(x, y Sym) (Sym, bool)      { return x.Sub(y), true }
func firstInt(x, _ int64) int64        { return x }
func noSym(_, _ Sym) (Sym, bool)       { return Sym{}, false }
func minSym(x, y Sym) (Sym, bool)      { return x.Min(y), true }
func maxSym(x, y Sym) (Sym, bool)      { return x.Max(y), true }
func minInt(x, y int64) int64          { return min(x, y) }
func maxInt(x, y int64) int64          { return max(x, y) }
func floorDivInt(x, y int64) int64     { return floorDiv(x, max(y, 1)) }
func truncDivInt(x, y int64) int64     { return x / max(y, 1) }
func floorDivSym(x, y Sym) (Sym, bool) { return divSym(x, y) }

// divSym divides by a positive constant or exactly.
func divSym(x, y Sym) (Sym, bool) {
	if c, ok := y.Const(); ok && c > 0 {
		return x.FloorDiv(c), true
	}
	return x.DivExact(y)
}

func symGather(n *Node) {
	data, o := n.Inputs[0], n.Output(0)
	if o == nil || o.Known == nil {
		symGatherShape(n)
		return
	}
	elems, ok := elemsOf(data)
	idx, ok2 := elemsOf(n.Inputs[1])
	if !ok || !ok2 || len(data.Shape) != 1 {
		return
	}
	out := make([]Dim, len(idx))
	for i, j := range idx {
		k := j.Value
		if k < 0 {
			k += int64(len(elems))
		}
		if j.Param != "" || k < 0 || k >= int64(len(elems)) {
			return
		}
		out[i] = elems[k]
	}
	setKnownDims(o, out)
}

// symGatherShape labels a Gather's output: data's dimensions around the
// indices' dimensions, which Infer copies; only a symbolic index count is
// relabelled here (it is a copy too).
func symGatherShape(n *Node) {
	x, ind, o := n.Inputs[0], n.Inputs[1], n.Output(0)
	ax, err := NormAxis(n.AttrInt("axis"), len(x.Shape))
	if err != nil || o == nil {
		return
	}
	dims := append(append(append([]Dim{}, x.Shape[:ax]...), ind.Shape...), x.Shape[ax+1:]...)
	labelShape(o, dims)
}

// symSlice labels a Slice: the elements of a known 1-D value, or the
// sliced dimensions of a tensor.
func symSlice(n *Node) {
	x, o := n.Inputs[0], n.Output(0)
	starts, ok1 := elemsOf(n.Input(1))
	ends, ok2 := elemsOf(n.Input(2))
	if !ok1 || !ok2 || o == nil || len(starts) != len(ends) {
		return
	}
	r := len(x.Shape)
	axes := make([]int, len(starts))
	steps := make([]int64, len(starts))
	for j := range starts {
		axes[j], steps[j] = j, 1
	}
	if a, ok := elemsOf(n.Input(3)); ok && len(a) == len(starts) {
		for j, d := range a {
			ax, err := NormAxis(d.Value, r)
			if err != nil || d.Param != "" {
				return
			}
			axes[j] = ax
		}
	}
	if s, ok := elemsOf(n.Input(4)); ok && len(s) == len(starts) {
		for j, d := range s {
			if d.Param != "" {
				return
			}
			steps[j] = d.Value
		}
	}
	dims := o.Shape.Clone()
	if len(dims) != r {
		return
	}
	copy(dims, x.Shape)
	for j := range starts {
		dims[axes[j]] = sliceCount(o, axes[j], x.Shape[axes[j]], starts[j], ends[j], steps[j])
	}
	labelShape(o, dims)
	if elems, ok := elemsOf(x); ok && r == 1 && o.Known != nil && steps[0] > 0 &&
		starts[0].Param == "" && ends[0].Param == "" {
		rg := sliceAxis(starts[0].Value, ends[0].Value, steps[0], int64(len(elems)))
		out := make([]Dim, 0, rg.count)
		for i := int64(0); i < rg.count; i++ {
			out = append(out, elems[rg.start+i*rg.step])
		}
		setKnownDims(o, out)
	}
}

// sliceCount returns the size of a sliced axis of size d from start to end
// in steps of step; only positive steps get an expression.
func sliceCount(o *Value, axis int, d, start, end Dim, step int64) Dim {
	rg := sliceAxis(start.Value, end.Value, step, d.Value)
	if d.Param == "" && start.Param == "" && end.Param == "" {
		return Dim{Value: rg.count}
	}
	if step <= 0 {
		return unknownDim(o, axis, rg.count)
	}
	ds := d.Sym()
	bound := func(b Dim) Sym {
		if b.Param == "" {
			switch {
			case b.Value >= math.MaxInt32:
				return ds
			case b.Value < 0:
				return ds.Add(SymConst(b.Value)).Max(SymConst(0))
			}
		}
		return b.Sym().Min(ds)
	}
	s, e := bound(start), bound(end)
	count := e.Sub(s).Add(SymConst(step - 1)).FloorDiv(step).Max(SymConst(0))
	return SymDim(rg.count, count)
}

func symConcat(n *Node) {
	o := n.Output(0)
	if o == nil {
		return
	}
	if o.Known != nil {
		var all []Dim
		for _, in := range n.Inputs {
			e, ok := elemsOf(in)
			if !ok {
				all = nil
				break
			}
			all = append(all, e...)
		}
		if all != nil {
			setKnownDims(o, all)
		}
	}
	ax, err := NormAxis(n.AttrInt("axis"), len(o.Shape))
	if err != nil {
		return
	}
	dims := o.Shape.Clone()
	sum := Dim{}
	for _, in := range n.Inputs {
		if in != nil && len(in.Shape) == len(dims) {
			sum = dimArith(sum, in.Shape[ax], o, ax, addInt, addSym)
		}
	}
	dims[ax] = sum
	for i := range dims {
		if i == ax {
			continue
		}
		for _, in := range n.Inputs {
			if in != nil && len(in.Shape) == len(dims) && in.Shape[i].Param != "" {
				dims[i] = in.Shape[i]
			}
		}
	}
	labelShape(o, dims)
}

// symSameElems carries input 0's known elements to output 0 (ops that
// only change the shape of a value).
func symSameElems(n *Node) {
	if e := n.Inputs[0].KnownDims; e != nil {
		setKnownDims(n.Output(0), e)
	}
}

func symCast(n *Node) {
	to := DType(n.AttrInt("to"))
	if to.IsInt() {
		symSameElems(n)
	}
}

func symFlatten(n *Node) {
	x, o := n.Inputs[0], n.Output(0)
	ax := n.AttrInt("axis")
	if ax < 0 {
		ax += int64(len(x.Shape))
	}
	if o == nil || ax < 0 || ax > int64(len(x.Shape)) {
		return
	}
	prod := func(ds []Dim) Dim {
		p := Dim{Value: 1}
		for _, d := range ds {
			p = dimArith(p, d, o, 0, mulInt, mulSym)
		}
		return p
	}
	labelShape(o, []Dim{prod(x.Shape[:ax]), prod(x.Shape[ax:])})
}

// symArith labels integer Add, Sub, Mul, Div, Max and Min of known
// elements (shape arithmetic).
func symArith(n *Node) {
	o := n.Output(0)
	if o == nil || o.Known == nil || !o.DType.IsInt() {
		return
	}
	vf, sf := addInt, addSym
	switch n.Op {
	case "Sub":
		vf, sf = subInt, subSym
	case "Mul":
		vf, sf = mulInt, mulSym
	case "Div":
		vf, sf = truncDivInt, floorDivSym
	case "Max":
		vf, sf = maxInt, maxSym
	case "Min":
		vf, sf = minInt, minSym
	}
	var acc []Dim
	for k, in := range n.Inputs {
		e, ok := elemsOf(in)
		if !ok {
			return
		}
		if k == 0 {
			acc = e
			continue
		}
		acc = zipElems(acc, e, func(a, b Dim, i int) Dim { return dimArith(a, b, o, i, vf, sf) })
		if acc == nil {
			return
		}
	}
	setKnownDims(o, acc)
}

// zipElems applies f elementwise, broadcasting a single element; nil when
// the lengths do not broadcast.
func zipElems(a, b []Dim, f func(a, b Dim, i int) Dim) []Dim {
	n := max(len(a), len(b))
	if (len(a) != n && len(a) != 1) || (len(b) != n && len(b) != 1) {
		return nil
	}
	out := make([]Dim, n)
	for i := range out {
		out[i] = f(a[min(i, len(a)-1)], b[min(i, len(b)-1)], i)
	}
	return out
}

func symNeg(n *Node) {
	e, ok := elemsOf(n.Inputs[0])
	if !ok {
		return
	}
	out := make([]Dim, len(e))
	for i, d := range e {
		out[i] = dimArith(Dim{}, d, n.Output(0), i, subInt, subSym)
	}
	setKnownDims(n.Output(0), out)
}

// symEqual decides equality of symbolic elements where the difference's
// sign is known (sizes are at least 1); an undecided element is unknown.
func symEqual(n *Node) {
	a, ok1 := elemsOf(n.Inputs[0])
	b, ok2 := elemsOf(n.Inputs[1])
	o := n.Output(0)
	if !ok1 || !ok2 || o == nil || o.Known == nil {
		return
	}
	out := zipElems(a, b, func(x, y Dim, i int) Dim {
		v := int64(0)
		if x.Value == y.Value {
			v = 1
		}
		if x.Param == "" && y.Param == "" {
			return Dim{Value: v}
		}
		diff := x.Sym().Sub(y.Sym())
		if c, ok := diff.Const(); ok {
			return Dim{Value: b2i(c == 0)}
		}
		if s := symSign(diff); s != 0 && nonZero(diff, s) {
			return Dim{Value: 0}
		}
		return unknownDim(o, i, v)
	})
	if out != nil {
		setKnownDims(o, out)
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// nonZero reports whether diff, of known sign s, is never zero: its
// bound in that direction is at least 1 away.
func nonZero(diff Sym, s int) bool {
	lo := symBound(diff, s)
	return (s > 0 && lo >= 1) || (s < 0 && lo <= -1)
}

func symWhere(n *Node) {
	c, ok1 := elemsOf(n.Inputs[0])
	x, ok2 := elemsOf(n.Inputs[1])
	y, ok3 := elemsOf(n.Inputs[2])
	o := n.Output(0)
	if !ok1 || !ok2 || !ok3 || o == nil || o.Known == nil {
		return
	}
	xy := zipElems(x, y, func(a, b Dim, _ int) Dim { return Dim{Value: 0} })
	out := zipElems(c, xy, func(cond, _ Dim, i int) Dim {
		if cond.Param != "" {
			return unknownDim(o, i, 0)
		}
		if cond.Value != 0 {
			return x[min(i, len(x)-1)]
		}
		return y[min(i, len(y)-1)]
	})
	if out != nil {
		setKnownDims(o, out)
	}
}

func symConstantOfShape(n *Node) {
	if s, ok := shapeOfElems(n.Inputs[0]); ok {
		labelShape(n.Output(0), s)
	}
}

func symExpand(n *Node) {
	s, ok := shapeOfElems(n.Inputs[1])
	if !ok {
		return
	}
	if out, err := broadcast2(n.Inputs[0].Shape, s); err == nil {
		labelShape(n.Output(0), out)
	}
}

func symReshape(n *Node) {
	symSameElems(n) // the elements keep their order: a shape tensor reshaped to [-1] keeps its labels
	x, o := n.Inputs[0], n.Output(0)
	spec, ok := elemsOf(n.Inputs[1])
	if !ok || o == nil || len(spec) != len(o.Shape) {
		return
	}
	allowZero := n.AttrInt("allowzero") != 0
	dims := make([]Dim, len(spec))
	total := Dim{Value: 1}
	for i, d := range x.Shape {
		total = dimArith(total, d, o, i, mulInt, mulSym)
	}
	prod, infer := Dim{Value: 1}, -1
	for i, d := range spec {
		switch {
		case d.Param == "" && d.Value == -1:
			infer = i
			continue
		case d.Param == "" && d.Value == 0 && !allowZero && i < len(x.Shape):
			d = x.Shape[i]
		}
		dims[i] = d
		prod = dimArith(prod, d, o, i, mulInt, mulSym)
	}
	switch {
	case infer >= 0:
		dims[infer] = dimArith(total, prod, o, infer, floorDivInt, func(a, b Sym) (Sym, bool) { return a.DivExact(b) })
	case !prod.Sym().Equal(total.Sym()):
		// The target keeps the element count only at this binding (a
		// constant shape of a symbolic input, say): no dimension of the
		// output is known for every binding.
		for i := range dims {
			dims[i] = unknownDim(o, i, o.Shape[i].Value)
		}
	}
	labelShape(o, dims)
}

func symRange(n *Node) {
	start, ok1 := elemsOf(n.Inputs[0])
	limit, ok2 := elemsOf(n.Inputs[1])
	delta, ok3 := elemsOf(n.Inputs[2])
	o := n.Output(0)
	if !ok1 || !ok2 || !ok3 || len(start) != 1 || len(limit) != 1 || len(delta) != 1 || o == nil || len(o.Shape) != 1 {
		return
	}
	d := delta[0]
	if d.Param != "" || d.Value <= 0 {
		labelShape(o, []Dim{unknownDim(o, 0, o.Shape[0].Value)})
		return
	}
	span := limit[0].Sym().Sub(start[0].Sym())
	count := span.Add(SymConst(d.Value - 1)).FloorDiv(d.Value).Max(SymConst(0))
	labelShape(o, []Dim{SymDim(o.Shape[0].Value, count)})
	if o.Known != nil {
		elems := make([]Dim, o.Shape[0].Value)
		for i := range elems {
			e := start[0].Sym().Add(SymConst(int64(i) * d.Value))
			elems[i] = SymDim(start[0].Value+int64(i)*d.Value, e)
		}
		setKnownDims(o, elems)
	}
}

func symTile(n *Node) {
	x, o := n.Inputs[0], n.Output(0)
	reps, ok := elemsOf(n.Inputs[1])
	if !ok || o == nil || len(reps) != len(x.Shape) {
		return
	}
	dims := make([]Dim, len(reps))
	for i := range reps {
		dims[i] = dimArith(x.Shape[i], reps[i], o, i, mulInt, mulSym)
	}
	labelShape(o, dims)
}

func symSplit(n *Node) {
	x := n.Inputs[0]
	axis, err := NormAxis(n.AttrInt("axis"), len(x.Shape))
	if err != nil {
		return
	}
	d := x.Shape[axis]
	sizes, has := elemsOf(n.Input(1))
	for i, o := range n.Outputs {
		if o == nil || len(o.Shape) != len(x.Shape) {
			continue
		}
		dims := o.Shape.Clone()
		copy(dims, x.Shape)
		switch {
		case has && i < len(sizes):
			dims[axis] = sizes[i]
		case !has && !n.HasAttr("num_outputs") && d.Param != "":
			dims[axis] = SymDim(o.Shape[axis].Value, d.Sym().FloorDiv(int64(len(n.Outputs))))
		default:
			dims[axis] = o.Shape[axis]
			if d.Param != "" {
				dims[axis] = unknownDim(o, axis, o.Shape[axis].Value)
			}
		}
		labelShape(o, dims)
	}
}

func symMatMul(n *Node) {
	a, b, o := n.Inputs[0].Shape, n.Inputs[1].Shape, n.Output(0)
	if o == nil {
		return
	}
	dims := o.Shape.Clone()
	k := len(dims)
	if len(b) >= 2 {
		dims[k-1] = b[len(b)-1]
		k--
	}
	if len(a) >= 2 {
		dims[k-1] = a[len(a)-2]
	}
	labelShape(o, dims)
}

func symGemm(n *Node) {
	a, b, o := n.Inputs[0].Shape, n.Inputs[1].Shape, n.Output(0)
	if o == nil || len(a) != 2 || len(b) != 2 {
		return
	}
	m, nn := a[0], b[1]
	if n.AttrInt("transA") != 0 {
		m = a[1]
	}
	if n.AttrInt("transB") != 0 {
		nn = b[0]
	}
	labelShape(o, []Dim{m, nn})
}

func symPad(n *Node) {
	x, o := n.Inputs[0], n.Output(0)
	pads, ok := elemsOf(n.Input(1))
	if !ok || o == nil {
		return
	}
	r := len(x.Shape)
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if a, ok := elemsOf(n.Input(3)); ok {
		axes = axes[:0]
		for _, d := range a {
			ax, err := NormAxis(d.Value, r)
			if err != nil {
				return
			}
			axes = append(axes, ax)
		}
	}
	k := len(axes)
	if len(pads) != 2*k {
		return
	}
	dims := x.Shape.Clone()
	for j, ax := range axes {
		d := dimArith(x.Shape[ax], pads[j], o, ax, addInt, addSym)
		dims[ax] = dimArith(d, pads[j+k], o, ax, addInt, addSym)
	}
	labelShape(o, dims)
}

func symTopK(n *Node) {
	x := n.Inputs[0]
	k, ok := elemsOf(n.Inputs[1])
	ax, err := NormAxis(n.AttrInt("axis"), len(x.Shape))
	if !ok || len(k) != 1 || err != nil {
		return
	}
	for _, o := range n.Outputs {
		if o != nil && len(o.Shape) == len(x.Shape) {
			dims := x.Shape.Clone()
			dims[ax] = k[0]
			labelShape(o, dims)
		}
	}
}

func symEinsum(n *Node) {
	o := n.Output(0)
	ranks := make([]int, len(n.Inputs))
	for i, in := range n.Inputs {
		ranks[i] = len(in.Shape)
	}
	spec, err := ParseEinsum(n.AttrString("equation"), ranks)
	if err != nil || o == nil || len(spec.Output) != len(o.Shape) {
		return
	}
	byLabel := map[int]Dim{}
	for i, labels := range spec.Inputs {
		for j, l := range labels {
			if d := n.Inputs[i].Shape[j]; d.Param != "" || byLabel[int(l)] == (Dim{}) {
				byLabel[int(l)] = d
			}
		}
	}
	dims := make([]Dim, len(spec.Output))
	for i, l := range spec.Output {
		dims[i] = byLabel[int(l)]
	}
	labelShape(o, dims)
}

// symAttention labels com.microsoft Attention's output [batch, seq,
// hidden]: batch and sequence are the input's.
func symAttention(n *Node) {
	x, o := n.Inputs[0], n.Output(0)
	if n.Domain != MicrosoftDomain || o == nil || len(x.Shape) != 3 || len(o.Shape) != 3 {
		return
	}
	labelShape(o, []Dim{x.Shape[0], x.Shape[1], o.Shape[2]})
}

// symSign returns +1 when e >= 0 and -1 when e <= 0 for every binding of
// its symbols to sizes of at least 1 (derived atoms at least 0), and 0
// when neither is certain.
func symSign(e Sym) int {
	pos, neg := true, true
	for _, t := range e.terms {
		if len(t.atoms) == 0 {
			continue
		}
		if t.coef < 0 {
			pos = false
		}
		if t.coef > 0 {
			neg = false
		}
	}
	switch {
	case pos && symBound(e, 1) >= 0, dominates(e, 1):
		return 1
	case neg && symBound(e, -1) <= 0, dominates(e, -1):
		return -1
	}
	return 0
}

// dominates reports whether s*e >= 0 at every binding because each term of
// the other sign is covered by terms of sign s over a superset of its
// symbols: with every symbol at least 1, batch*seq >= batch, so
// batch*seq - batch >= 0, and c >= 1 for any monomial covers a constant
// c. Terms with derived atoms are not used (they may be 0). The covering is
// greedy, largest monomials first, so it can miss a valid cover but never
// claims a false one.
func dominates(e Sym, s int64) bool {
	type term struct {
		coef  int64
		atoms []string
	}
	var supply, need []term
	for _, t := range e.terms {
		for _, at := range t.atoms {
			if isDerivedAtom(at) {
				return false
			}
		}
		if t.coef*s > 0 {
			supply = append(supply, term{t.coef * s, t.atoms})
		} else {
			need = append(need, term{-t.coef * s, t.atoms})
		}
	}
	if len(need) == 0 {
		return false // the plain test above decides sums of one sign
	}
	// Cover the most specific needs first: a need over more symbols has fewer
	// supplies that can cover it.
	slices.SortStableFunc(need, func(a, b term) int { return len(b.atoms) - len(a.atoms) })
	for _, n := range need {
		for i := range supply {
			if n.coef == 0 {
				break
			}
			if supply[i].coef == 0 || !subMultiset(n.atoms, supply[i].atoms) {
				continue
			}
			take := min(n.coef, supply[i].coef)
			n.coef -= take
			supply[i].coef -= take
		}
		if n.coef > 0 {
			return false
		}
	}
	return true
}

// subMultiset reports whether every atom of a (sorted, with repetition)
// occurs in b (sorted) at least as often.
func subMultiset(a, b []string) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
		j++
	}
	return true
}

// symBound returns e's least value (s > 0) or greatest value (s < 0) when
// its non-constant terms all have that sign: every plain symbol at 1 and
// every derived atom at 0.
func symBound(e Sym, s int) int64 {
	var b int64
	for _, t := range e.terms {
		derived := false
		for _, at := range t.atoms {
			if isDerivedAtom(at) {
				derived = true
			}
		}
		if !derived {
			b += t.coef
		}
	}
	return b
}
