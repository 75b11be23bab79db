package executor

// bcastPlan describes how up to three inputs broadcast (numpy rules) to an
// output shape. Adjacent axes that broadcast alike are merged, so the
// common cases collapse to one flat loop (same shape), a scalar operand, or
// rows of a trailing vector. Iteration goes row by row over the merged
// innermost axis; each input's stride along that axis is 0 (broadcast) or
// 1 (contiguous).
type bcastPlan struct {
	dims  []int   // merged output dims; the last is the row length
	str   [][]int // per input, stride of each merged dim (0 = broadcast)
	n     int     // output elements
	inner int     // row length
	rows  int     // number of rows
}

// newBcastPlan plans the broadcast of input shapes ins to shape out, which
// must be their broadcast (checked by shape inference).
func newBcastPlan(out []int, ins ...[]int) *bcastPlan {
	r := len(out)
	// Full strides of every input over the output axes.
	full := make([][]int, len(ins))
	for k, s := range ins {
		st := make([]int, r)
		acc := 1
		for i := r - 1; i >= 0; i-- {
			j := i - (r - len(s))
			if j >= 0 && s[j] != 1 {
				st[i] = acc
				acc *= s[j]
			} else if j >= 0 {
				acc *= s[j]
			}
		}
		full[k] = st
	}
	// Drop size-1 output axes, then merge neighbours whose strides agree.
	var dims []int
	strs := make([][]int, len(ins))
	for i := 0; i < r; i++ {
		if out[i] == 1 {
			continue
		}
		if len(dims) > 0 {
			merge := true
			for k := range ins {
				last := strs[k][len(strs[k])-1]
				if last != full[k][i]*out[i] {
					merge = false
					break
				}
			}
			if merge {
				dims[len(dims)-1] *= out[i]
				for k := range ins {
					strs[k][len(strs[k])-1] = full[k][i]
				}
				continue
			}
		}
		dims = append(dims, out[i])
		for k := range ins {
			strs[k] = append(strs[k], full[k][i])
		}
	}
	if len(dims) == 0 {
		dims = []int{1}
		for k := range ins {
			strs[k] = []int{0}
		}
	}
	p := &bcastPlan{dims: dims, str: strs, inner: dims[len(dims)-1]}
	p.n = 1
	for _, d := range dims {
		p.n *= d
	}
	if p.n > 0 {
		p.rows = p.n / p.inner
	}
	return p
}

// innerStride returns input k's stride along rows (0 or 1).
func (p *bcastPlan) innerStride(k int) int { return p.str[k][len(p.dims)-1] }

// rowOffsets computes, for row index row, the offset of its first element
// in each input.
func (p *bcastPlan) rowOffsets(row int, offs []int) {
	for k := range offs {
		offs[k] = 0
	}
	for i := len(p.dims) - 2; i >= 0; i-- {
		c := row % p.dims[i]
		row /= p.dims[i]
		for k := range offs {
			offs[k] += c * p.str[k][i]
		}
	}
}

// rowIter walks rows in order, keeping per-input offsets up to date
// without divisions.
type rowIter struct {
	p    *bcastPlan
	cnt  [maxIterRank]int
	offs [3]int
}

// maxIterRank bounds the number of merged axes a rowIter tracks; plans
// with more fall back to rowOffsets per row.
const maxIterRank = 16

// start positions the iterator at row.
func (it *rowIter) start(p *bcastPlan, row int) {
	it.p = p
	it.p.rowOffsets(row, it.offs[:len(p.str)])
	r := row
	for i := len(p.dims) - 2; i >= 0; i-- {
		if i < maxIterRank {
			it.cnt[i] = r % p.dims[i]
		}
		r /= p.dims[i]
	}
}

// next advances to the following row.
func (it *rowIter) next(row int) {
	p := it.p
	nd := len(p.dims) - 1
	if nd > maxIterRank {
		p.rowOffsets(row, it.offs[:len(p.str)])
		return
	}
	for i := nd - 1; i >= 0; i-- {
		it.cnt[i]++
		for k := range p.str {
			it.offs[k] += p.str[k][i]
		}
		if it.cnt[i] < p.dims[i] {
			return
		}
		for k := range p.str {
			it.offs[k] -= p.str[k][i] * p.dims[i]
		}
		it.cnt[i] = 0
	}
}

// serial reports whether the plan's output is too small for cost units of
// work per element to pay for splitting it across threads.
func (p *bcastPlan) serial(rc *runCtx, cost int) bool {
	return chunks(rc.threads, p.n, cost) <= 1
}

// eachRow calls f for the rows [lo, hi) in order with the row's index and
// the offsets of its first element in each input.
func (p *bcastPlan) eachRow(lo, hi int, f func(r int, offs [3]int)) {
	if p.n == 0 || lo >= hi {
		return
	}
	var it rowIter
	it.start(p, lo)
	for r := lo; r < hi; r++ {
		if r > lo {
			it.next(r)
		}
		f(r, it.offs)
	}
}

// broadcastShape returns the numpy broadcast of shapes (assumed valid).
func broadcastShape(shapes ...[]int) []int {
	r := 0
	for _, s := range shapes {
		r = max(r, len(s))
	}
	out := make([]int, r)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for j, d := range s {
			i := j + r - len(s)
			if d != 1 {
				out[i] = d
			}
		}
	}
	return out
}
