package rewrite

import "github.com/xrl-dev/xrl/graph"

// reshapeNeed maps an output box of a reshape (of input shape in and
// output shape os) back to its input. Both shapes are cut into their
// common refinement (refine): chunks such that every input axis and every
// output axis is a run of consecutive chunks. An output axis's span then
// becomes spans of its chunks: all of a single chunk's, or a span of its
// outermost chunk with the inner ones whole; an input axis reads the span
// its chunks make, which is a box when the chunks outside the innermost
// cut one are read at one index. It handles [seq, batch*heads, h] to
// [seq*batch, D] at every binding of seq and batch. When the shapes have
// no common refinement, an axis the box cuts must correspond to an input
// axis of the same size with the same number of elements before it (then
// the elements on both sides are laid out alike). Otherwise the reshape
// needs its whole input.
func reshapeNeed(in, os graph.Shape, out region) (region, bool) {
	if os == nil || len(os) != len(out) {
		return nil, false
	}
	if c, ok := refine(in, os); ok {
		if r, ok := c.need(in, os, out); ok {
			return r, true
		}
	}
	return reshapeSameAxes(in, os, out)
}

// reshapeSameAxes maps the cut output axes to input axes of the same size
// with the same number of elements before them.
func reshapeSameAxes(in, os graph.Shape, out region) (region, bool) {
	r := fullRegion(in)
	for a, s := range out {
		if s.whole(os[a]) {
			continue
		}
		before := dimProduct(os[:a])
		found := false
		for b := range in {
			if in[b] == os[a] && dimProduct(in[:b]) == before {
				r[b] = s
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return r, true
}

// chunking is the common refinement of a reshape's input and output
// shapes: the chunk sizes, and for each input and output axis the index
// of its first chunk (the last entry is the number of chunks).
type chunking struct {
	sizes       []graph.Dim
	inAt, outAt []int
}

// refine returns the common refinement of in and os: their running
// products merged in order, each dividing the next at every binding.
func refine(in, os graph.Shape) (chunking, bool) {
	pi, po := runningProducts(in), runningProducts(os)
	bounds := []graph.Dim{fixedDim(1)}
	c := chunking{inAt: make([]int, len(pi)), outAt: make([]int, len(po))}
	i, j := 1, 1
	for i < len(pi) || j < len(po) {
		if i >= len(pi) || j >= len(po) {
			return c, false
		}
		x, y := pi[i], po[j]
		switch {
		case x == y:
			bounds = append(bounds, x)
			c.inAt[i], c.outAt[j] = len(bounds)-1, len(bounds)-1
			i, j = i+1, j+1
		case divides(x, y):
			bounds = append(bounds, x)
			c.inAt[i] = len(bounds) - 1
			i++
		case divides(y, x):
			bounds = append(bounds, y)
			c.outAt[j] = len(bounds) - 1
			j++
		default:
			return c, false
		}
	}
	for k := 1; k < len(bounds); k++ {
		d, ok := dimDiv(bounds[k], bounds[k-1])
		if !ok {
			return c, false
		}
		c.sizes = append(c.sizes, d)
	}
	return c, true
}

// runningProducts returns 1 and the products of s's leading dimensions.
func runningProducts(s graph.Shape) []graph.Dim {
	out := []graph.Dim{fixedDim(1)}
	for _, d := range s {
		out = append(out, dimMul(out[len(out)-1], d))
	}
	return out
}

// divides reports whether a divides b at every binding.
func divides(a, b graph.Dim) bool {
	_, ok := dimDiv(b, a)
	return ok
}

// real returns the chunks from first to end that are not a plain 1.
func (c chunking) real(first, end int) []int {
	var out []int
	for k := first; k < end; k++ {
		if !isFixed(c.sizes[k], 1) {
			out = append(out, k)
		}
	}
	return out
}

// need maps the output box through the chunks to the input.
func (c chunking) need(in, os graph.Shape, out region) (region, bool) {
	cs := make([]span, len(c.sizes))
	for k, d := range c.sizes {
		cs[k] = span{fixedDim(0), d}
	}
	for a, s := range out {
		if s.whole(os[a]) {
			continue
		}
		ks := c.real(c.outAt[a], c.outAt[a+1])
		if len(ks) == 0 {
			return nil, false
		}
		inner := fixedDim(1)
		for _, k := range ks[1:] {
			inner = dimMul(inner, c.sizes[k])
		}
		lo, ok1 := dimDiv(s.lo, inner)
		hi, ok2 := dimDiv(s.hi, inner)
		if !ok1 || !ok2 {
			return nil, false
		}
		cs[ks[0]] = span{lo, hi}
	}
	r := make(region, len(in))
	for b, d := range in {
		s, ok := c.compose(cs, c.real(c.inAt[b], c.inAt[b+1]), d)
		if !ok {
			return nil, false
		}
		r[b] = s
	}
	return r, true
}

// compose returns the span of an axis of size d made of chunks ks whose
// spans are cs: the chunks before the first one read over more than one
// index must be read at one index, those after it whole.
func (c chunking) compose(cs []span, ks []int, d graph.Dim) (span, bool) {
	j := len(ks) - 1
	for i, k := range ks {
		if !isFixed(dimSub(cs[k].hi, cs[k].lo), 1) {
			j = i
			break
		}
	}
	whole := true
	for i, k := range ks {
		w := cs[k].whole(c.sizes[k])
		whole = whole && w
		if i > j && !w {
			return span{}, false
		}
	}
	if whole {
		return span{fixedDim(0), d}, true
	}
	base := fixedDim(0)
	for i := 0; i <= j; i++ {
		stride := fixedDim(1)
		for _, k := range ks[i+1:] {
			stride = dimMul(stride, c.sizes[k])
		}
		if i == j {
			return span{dimAdd(base, dimMul(cs[ks[i]].lo, stride)), dimAdd(base, dimMul(cs[ks[i]].hi, stride))}, true
		}
		base = dimAdd(base, dimMul(cs[ks[i]].lo, stride))
	}
	return span{}, false
}
