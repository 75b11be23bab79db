package rewrite

import (
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// span is a half-open index range [lo, hi) along one axis. Its bounds are
// dimensions: on a graph bound with symbols a span can cover a whole
// symbolic axis ([0, seq)) or an expression of the symbols ([0, batch) of
// an axis of batch*seq rows).
type span struct{ lo, hi graph.Dim }

// region is a box of a tensor: one span per axis.
type region []span

// fullRegion returns the box covering all of shape.
func fullRegion(shape graph.Shape) region {
	r := make(region, len(shape))
	for i, d := range shape {
		r[i] = span{fixedDim(0), d}
	}
	return r
}

// whole reports whether s covers all of an axis of size d.
func (s span) whole(d graph.Dim) bool { return s == span{fixedDim(0), d} }

// isFull reports whether r covers all of shape.
func (r region) isFull(shape graph.Shape) bool {
	for i, d := range shape {
		if !r[i].whole(d) {
			return false
		}
	}
	return true
}

// sizes returns the box's extent along each axis.
func (r region) sizes() graph.Shape {
	out := make(graph.Shape, len(r))
	for i, s := range r {
		out[i] = dimSub(s.hi, s.lo)
	}
	return out
}

// union returns the bounding box of r and o (nil counts as empty) in a
// tensor of the given shape: along an axis where neither bound is the
// same one at every binding, all of the axis.
func (r region) union(o region, shape graph.Shape) region {
	if r == nil {
		return slices.Clone(o)
	}
	out := slices.Clone(r)
	for i, s := range o {
		lo, ok1 := dimMinMax(out[i].lo, s.lo, true)
		hi, ok2 := dimMinMax(out[i].hi, s.hi, false)
		if !ok1 || !ok2 {
			lo, hi = fixedDim(0), shape[i]
		}
		out[i] = span{lo, hi}
	}
	return out
}

// needs returns, for node n whose (single) output is needed only over box
// out, the box of each input that computing it reads (in input order; nil
// for an absent input), and whether the op is understood at all. Ops it
// does not understand need all of every input. Every input must have a
// static shape. Boxes hold at every binding of the graph's symbols.
func needs(n *graph.Node, out region) ([]region, bool) {
	ins := make([]region, len(n.Inputs))
	shapes := make([]graph.Shape, len(n.Inputs))
	for i, v := range n.Inputs {
		if v == nil {
			continue
		}
		s := dims(v)
		if s == nil {
			return nil, false
		}
		shapes[i] = s
		ins[i] = fullRegion(s)
	}
	if n.IsOpaque() || n.Domain != "" || len(n.Outputs) != 1 {
		return ins, false
	}
	sc := n.Schema()
	switch {
	case sc != nil && sc.Elementwise:
		for i := range ins {
			if ins[i] != nil {
				ins[i] = broadcastNeed(shapes[i], out)
			}
		}
		return ins, true
	}
	rank := len(out)
	ok := true
	switch n.Op {
	case "Identity", "Dropout":
		ins[0] = slices.Clone(out)
	case "Shape":
		ins[0] = nil // reads no element
	case "Softmax":
		ax := normAxis(attrInt(n, "axis", -1), rank)
		if ins[0], ok = keepAxes(out, shapes[0], []int{ax}, false); !ok {
			return ins, false
		}
	case "LayerNormalization":
		ax := normAxis(attrInt(n, "axis", -1), rank)
		var axes []int
		for a := ax; a < rank; a++ {
			axes = append(axes, a)
		}
		if ins[0], ok = keepAxes(out, shapes[0], axes, false); !ok {
			return ins, false
		}
		for i := 1; i < len(ins); i++ {
			if ins[i] != nil {
				ins[i] = broadcastNeed(shapes[i], ins[0])
			}
		}
	case "ReduceMean", "ReduceSum", "ReduceMax":
		axes, ok := constAxes(n, 1, rank)
		if !ok || attrInt(n, "keepdims", 1) != 1 || len(axes) == 0 {
			return ins, false
		}
		if ins[0], ok = keepAxes(out, shapes[0], axes, true); !ok {
			return ins, false
		}
	case "Transpose":
		perm := attrInts(n, "perm")
		if perm == nil {
			for i := range rank {
				perm = append(perm, int64(rank-1-i))
			}
		}
		r := make(region, rank)
		for a, p := range perm {
			r[p] = out[a]
		}
		ins[0] = r
	case "MatMul":
		return matmulNeeds(shapes, out)
	case "Gemm":
		return gemmNeeds(n, shapes, out)
	case "Reshape", "Squeeze", "Unsqueeze", "Flatten":
		r, ok := reshapeNeed(shapes[0], dims(n.Outputs[0]), out)
		if !ok {
			return ins, false
		}
		ins[0] = r
	case "Slice":
		r, ok := sliceNeed(n, shapes[0], out)
		if !ok {
			return ins, false
		}
		ins[0] = r
	case "Gather":
		r, ok := gatherNeed(n, shapes[0], out)
		if !ok {
			return ins, false
		}
		ins[0] = r
	default:
		return ins, false
	}
	return ins, true
}

// broadcastNeed maps an output box to an input of shape in under numpy
// broadcasting: the input's trailing axes align with the output's, and
// axes where the input has a plain size 1 are read whole.
func broadcastNeed(in graph.Shape, out region) region {
	r := fullRegion(in)
	off := len(out) - len(in)
	for i, d := range in {
		if !isFixed(d, 1) && i+off >= 0 {
			r[i] = out[i+off]
		}
	}
	return r
}

// keepAxes is out with the listed axes (those an op reduces or
// normalises over) widened to all of shape. It fails when out cuts one of
// them: the op computes all of that axis or nothing (reduced is true when
// the axis has size 1 in the output).
func keepAxes(out region, shape graph.Shape, axes []int, reduced bool) (region, bool) {
	r := slices.Clone(out)
	for _, a := range axes {
		d := shape[a]
		if reduced {
			d = fixedDim(1)
		}
		if !out[a].whole(d) {
			return nil, false
		}
		r[a] = span{fixedDim(0), shape[a]}
	}
	return r, true
}

// matmulNeeds handles MatMul with both operands of rank 2 or more: A needs
// the output's rows, B its columns, both the batch axes (broadcast).
func matmulNeeds(shapes []graph.Shape, out region) ([]region, bool) {
	a, b := shapes[0], shapes[1]
	ins := []region{fullRegion(a), fullRegion(b)}
	if len(a) < 2 || len(b) < 2 {
		return ins, false
	}
	rank := len(out)
	batch := out[:rank-2]
	ins[0] = append(broadcastNeed(a[:len(a)-2], batch), out[rank-2], span{fixedDim(0), a[len(a)-1]})
	ins[1] = append(broadcastNeed(b[:len(b)-2], batch), span{fixedDim(0), b[len(b)-2]}, out[rank-1])
	return ins, true
}

// gemmNeeds handles Gemm: A needs the output's rows, B its columns, C is
// broadcast to the output.
func gemmNeeds(n *graph.Node, shapes []graph.Shape, out region) ([]region, bool) {
	ins := make([]region, len(shapes))
	for i, s := range shapes {
		if s != nil {
			ins[i] = fullRegion(s)
		}
	}
	if attrInt(n, "transA", 0) == 0 {
		ins[0][0] = out[0]
	} else {
		ins[0][1] = out[0]
	}
	if attrInt(n, "transB", 0) == 0 {
		ins[1][1] = out[1]
	} else {
		ins[1][0] = out[1]
	}
	if len(shapes) > 2 && shapes[2] != nil {
		ins[2] = broadcastNeed(shapes[2], out)
	}
	return ins, true
}

// sliceNeed handles Slice with constant bounds and unit steps.
func sliceNeed(n *graph.Node, in graph.Shape, out region) (region, bool) {
	starts, axes, ok := sliceBounds(n, in)
	if !ok {
		return nil, false
	}
	r := slices.Clone(out)
	for i, a := range axes {
		st := fixedDim(int64(starts[i]))
		r[a] = span{dimAdd(st, out[a].lo), dimAdd(st, out[a].hi)}
	}
	return r, true
}

// sliceBounds returns the normalised starts and axes of a Slice whose
// bounds are constants and whose steps are 1. Along a symbolic axis the
// start must be 0 (another start would be clamped to a size that depends
// on the binding).
func sliceBounds(n *graph.Node, in graph.Shape) (starts, axes []int, ok bool) {
	st, ok1 := constInts(n, 1)
	en, ok2 := constInts(n, 2)
	if !ok1 || !ok2 || len(st) != len(en) {
		return nil, nil, false
	}
	rank := len(in)
	var ax []int64
	if n.Input(3) != nil {
		if ax, ok = constInts(n, 3); !ok || len(ax) != len(st) {
			return nil, nil, false
		}
	} else {
		for i := range st {
			ax = append(ax, int64(i))
		}
	}
	if n.Input(4) != nil {
		steps, ok := constInts(n, 4)
		if !ok {
			return nil, nil, false
		}
		for _, s := range steps {
			if s != 1 {
				return nil, nil, false
			}
		}
	}
	for i := range st {
		a := normAxis(ax[i], rank)
		if a < 0 || a >= rank {
			return nil, nil, false
		}
		if in[a].Param != "" && st[i] != 0 {
			return nil, nil, false
		}
		d := in[a].Value
		s := st[i]
		if s < 0 {
			s += d
		}
		starts = append(starts, int(min(max(s, 0), d)))
		axes = append(axes, a)
	}
	return starts, axes, true
}

// gatherNeed handles Gather with a constant scalar index, or constant
// consecutive indices, on one axis (non-negative ones on a symbolic axis).
func gatherNeed(n *graph.Node, in graph.Shape, out region) (region, bool) {
	idx := n.Input(1)
	if !idx.IsConst() {
		return nil, false
	}
	ids, err := idx.Const.AsInt64()
	if err != nil || len(ids) == 0 || len(idx.Const.Shape) > 1 {
		return nil, false
	}
	rank := len(in)
	ax := normAxis(attrInt(n, "axis", 0), rank)
	if in[ax].Param != "" && slices.ContainsFunc(ids, func(i int64) bool { return i < 0 }) {
		return nil, false
	}
	first, ok := consecutive(ids, int(in[ax].Value))
	if !ok {
		return nil, false
	}
	r := make(region, rank)
	f := fixedDim(int64(first))
	if len(idx.Const.Shape) == 0 {
		copy(r, out[:ax])
		copy(r[ax+1:], out[ax:])
		r[ax] = span{f, fixedDim(int64(first) + 1)}
	} else {
		copy(r, out)
		r[ax] = span{dimAdd(f, out[ax].lo), dimAdd(f, out[ax].hi)}
	}
	return r, true
}

// consecutive returns the first of ids (negative ones counted from d) when
// they are consecutive ascending indices into an axis of size d.
func consecutive(ids []int64, d int) (int, bool) {
	first := -1
	for i, v := range ids {
		if v < 0 {
			v += int64(d)
		}
		if v < 0 || v >= int64(d) {
			return 0, false
		}
		if i == 0 {
			first = int(v)
		} else if int(v) != first+i {
			return 0, false
		}
	}
	return first, true
}

// constAxes returns input i's constant axes normalised to rank.
func constAxes(n *graph.Node, i, rank int) ([]int, bool) {
	if n.Input(i) == nil {
		return nil, true
	}
	vs, ok := constInts(n, i)
	if !ok {
		return nil, false
	}
	out := make([]int, len(vs))
	for j, v := range vs {
		out[j] = normAxis(v, rank)
		if out[j] < 0 || out[j] >= rank {
			return nil, false
		}
	}
	return out, true
}

// constInts returns input i's data when it is a constant integer tensor.
func constInts(n *graph.Node, i int) ([]int64, bool) {
	v := n.Input(i)
	if v == nil || !v.IsConst() {
		return nil, false
	}
	out, err := v.Const.AsInt64()
	return out, err == nil
}

func normAxis(a int64, rank int) int {
	if a < 0 {
		a += int64(rank)
	}
	return int(a)
}

func attrInt(n *graph.Node, name string, def int64) int64 {
	if a, ok := n.Attrs[name]; ok && a.Kind == graph.AttrInt {
		return a.Int
	}
	return def
}

func attrInts(n *graph.Node, name string) []int64 {
	if a, ok := n.Attrs[name]; ok && a.Kind == graph.AttrInts {
		return a.Ints
	}
	return nil
}
