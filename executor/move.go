package executor

// Data movement shared by Transpose, Slice, Expand, Concat, Split and Pad.
// A copyPlan copies a strided view of the source into a strided view of
// the destination; axes are merged when both views are contiguous across
// them, and rows whose source and destination are both contiguous become
// single copies. Elements move as unsigned words of their size, so one
// instantiation per element size serves every dtype.

type copyPlan struct {
	dims       []int // merged dims; the last is the row length
	dstStr     []int
	srcStr     []int
	dOff, sOff int
	n          int
	rows       int
	// tile is set when the innermost destination axis is strided in the
	// source but another axis is contiguous there (a transpose): rows are
	// then copied in square tiles for cache locality.
	tile     bool
	tileAxis int
	outer    []int // axes other than tileAxis and the last
	nOuter   int   // positions of the outer axes
	tilesA   int   // tiles along tileAxis
}

// newCopyPlan plans dst[dOff + sum(i_k*dstStr_k)] = src[sOff + sum(i_k*srcStr_k)]
// for every index i over dims.
func newCopyPlan(dims, dstStr, srcStr []int, dOff, sOff int) *copyPlan {
	p := &copyPlan{dOff: dOff, sOff: sOff, n: 1}
	for _, d := range dims {
		p.n *= d
	}
	for i, d := range dims {
		if d == 1 {
			continue
		}
		if k := len(p.dims) - 1; k >= 0 && p.dstStr[k] == dstStr[i]*d && p.srcStr[k] == srcStr[i]*d {
			p.dims[k] *= d
			p.dstStr[k], p.srcStr[k] = dstStr[i], srcStr[i]
			continue
		}
		p.dims = append(p.dims, d)
		p.dstStr = append(p.dstStr, dstStr[i])
		p.srcStr = append(p.srcStr, srcStr[i])
	}
	if len(p.dims) == 0 {
		p.dims, p.dstStr, p.srcStr = []int{1}, []int{1}, []int{1}
	}
	last := len(p.dims) - 1
	if p.n > 0 {
		p.rows = p.n / p.dims[last]
	}
	if p.srcStr[last] != 1 && p.dims[last] >= 16 {
		for i := last - 1; i >= 0; i-- {
			if p.srcStr[i] == 1 && p.dims[i] >= 16 {
				p.tile, p.tileAxis = true, i
				p.nOuter = 1
				for j := 0; j < last; j++ {
					if j != i {
						p.outer = append(p.outer, j)
						p.nOuter *= p.dims[j]
					}
				}
				p.tilesA = (p.dims[i] + copyTile - 1) / copyTile
				break
			}
		}
	}
	return p
}

// contiguousStrides returns row-major strides of shape.
func contiguousStrides(shape []int) []int {
	st := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= shape[i]
	}
	return st
}

// run executes the plan on typed slices of equal element type.
func (p *copyPlan) run(rc *runCtx, dst, src any) {
	if p.n == 0 {
		return
	}
	moveWords(rc, p, dst, src, copyPlanRun[uint8], copyPlanRun[uint16], copyPlanRun[uint32], copyPlanRun[uint64])
}

func copyPlanRun[W any](rc *runCtx, p *copyPlan, dst, src []W) {
	if p.tile {
		copyTiled(rc, p, dst, src)
		return
	}
	L := p.dims[len(p.dims)-1]
	if chunks(rc.threads, p.n, 1) <= 1 {
		copyRows(p, dst, src, 0, p.rows)
		return
	}
	parallelFor(rc.threads, p.rows, L, func(lo, hi int) { copyRows(p, dst, src, lo, hi) })
}

// copyRows copies rows [lo, hi) of the plan.
func copyRows[W any](p *copyPlan, dst, src []W, lo, hi int) {
	last := len(p.dims) - 1
	L, ds, ss := p.dims[last], p.dstStr[last], p.srcStr[last]
	var cnt [maxIterRank]int
	do, so := p.offsets(lo, cnt[:])
	for r := lo; r < hi; r++ {
		if r > lo {
			do, so = p.advance(cnt[:], do, so, r)
		}
		switch {
		case ds == 1 && ss == 1:
			copy(dst[do:do+L], src[so:so+L])
		case ss == 0:
			v := src[so]
			row := dst[do:]
			for i := 0; i < L; i++ {
				row[i*ds] = v
			}
		case ds == 1:
			row := dst[do : do+L]
			for i := range row {
				row[i] = src[so+i*ss]
			}
		default:
			for i := 0; i < L; i++ {
				dst[do+i*ds] = src[so+i*ss]
			}
		}
	}
}

// offsets returns the destination and source offsets of row r and sets
// the per-axis counters (axes above the row axis).
func (p *copyPlan) offsets(r int, cnt []int) (int, int) {
	do, so := p.dOff, p.sOff
	for i := len(p.dims) - 2; i >= 0; i-- {
		c := r % p.dims[i]
		r /= p.dims[i]
		if i < len(cnt) {
			cnt[i] = c
		}
		do += c * p.dstStr[i]
		so += c * p.srcStr[i]
	}
	return do, so
}

// advance moves the counters to the next row.
func (p *copyPlan) advance(cnt []int, do, so, r int) (int, int) {
	nd := len(p.dims) - 1
	if nd > len(cnt) {
		return p.offsets(r, cnt)
	}
	for i := nd - 1; i >= 0; i-- {
		cnt[i]++
		do += p.dstStr[i]
		so += p.srcStr[i]
		if cnt[i] < p.dims[i] {
			break
		}
		do -= p.dstStr[i] * p.dims[i]
		so -= p.srcStr[i] * p.dims[i]
		cnt[i] = 0
	}
	return do, so
}

// copyTiled copies a transposing plan in 32x32 tiles of the innermost axis
// and the axis that is contiguous in the source (p.tileAxis); the other
// axes (p.outer) are iterated around the tiles.
func copyTiled[W any](rc *runCtx, p *copyPlan, dst, src []W) {
	jobs := p.nOuter * p.tilesA
	if chunks(rc.threads, p.n, 1) <= 1 {
		copyTiles(p, dst, src, 0, jobs)
		return
	}
	parallelFor(rc.threads, jobs, p.n/max(jobs, 1), func(lo, hi int) { copyTiles(p, dst, src, lo, hi) })
}

// copyTile is the tile edge of copyTiled.
const copyTile = 32

// copyTiles copies tiles [lo, hi).
func copyTiles[W any](p *copyPlan, dst, src []W, lo, hi int) {
	last := len(p.dims) - 1
	a := p.tileAxis
	La, Ll := p.dims[a], p.dims[last]
	dsa, ssa, dsl, ssl := p.dstStr[a], p.srcStr[a], p.dstStr[last], p.srcStr[last]
	for job := lo; job < hi; job++ {
		o, ta := job/p.tilesA, job%p.tilesA
		do, so := p.dOff, p.sOff
		for k := len(p.outer) - 1; k >= 0; k-- {
			i := p.outer[k]
			c := o % p.dims[i]
			o /= p.dims[i]
			do += c * p.dstStr[i]
			so += c * p.srcStr[i]
		}
		a0, a1 := ta*copyTile, min(ta*copyTile+copyTile, La)
		for l0 := 0; l0 < Ll; l0 += copyTile {
			l1 := min(l0+copyTile, Ll)
			for x := a0; x < a1; x++ {
				db, sb := do+x*dsa, so+x*ssa
				for l := l0; l < l1; l++ {
					dst[db+l*dsl] = src[sb+l*ssl]
				}
			}
		}
	}
}
