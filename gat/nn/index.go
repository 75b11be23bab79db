package nn

// GatherRows writes dst[i] = src[idx[i]] for rows of width cols.
func GatherRows[F Float](src []F, cols int, idx []int32, dst []F) {
	for i, j := range idx {
		copy(dst[i*cols:(i+1)*cols], src[int(j)*cols:int(j+1)*cols])
	}
}

// ScatterAddRows adds src[i] into dst[idx[i]] for rows of width cols. It
// is the backward pass of GatherRows, and a segment sum when idx holds
// the segment id of each row.
func ScatterAddRows[F Float](src []F, cols int, idx []int32, dst []F) {
	for i, j := range idx {
		d := dst[int(j)*cols : int(j+1)*cols]
		for c, v := range src[i*cols : (i+1)*cols] {
			d[c] += v
		}
	}
}

// SegmentSum writes dst[s] = sum over e in [off[s], off[s+1]) of
// w[e] * src[idx[e]], for len(off)-1 segments and rows of width cols. A
// nil w means weight 1. It is the per-graph sum of node rows when segment
// s lists the nodes of graph s.
func SegmentSum[F Float](src []F, cols int, off, idx []int32, w []F, dst []F) {
	for s := 0; s+1 < len(off); s++ {
		d := dst[s*cols : (s+1)*cols]
		clear(d)
		for e := off[s]; e < off[s+1]; e++ {
			x := src[int(idx[e])*cols : int(idx[e]+1)*cols]
			k := F(1)
			if w != nil {
				k = w[e]
			}
			for c, v := range x {
				d[c] += k * v
			}
		}
	}
}

// SegmentSumBackward adds w[e] * ddst[s] into dsrc[idx[e]] for every e of
// segment s (accumulating: dsrc is not cleared).
func SegmentSumBackward[F Float](ddst []F, cols int, off, idx []int32, w []F, dsrc []F) {
	for s := 0; s+1 < len(off); s++ {
		g := ddst[s*cols : (s+1)*cols]
		for e := off[s]; e < off[s+1]; e++ {
			d := dsrc[int(idx[e])*cols : int(idx[e]+1)*cols]
			k := F(1)
			if w != nil {
				k = w[e]
			}
			for c, v := range g {
				d[c] += k * v
			}
		}
	}
}

// ConcatCols writes the rows of a (rows×ca) and b (rows×cb) side by side
// into dst (rows×(ca+cb)).
func ConcatCols[F Float](a []F, ca int, b []F, cb int, rows int, dst []F) {
	w := ca + cb
	for r := 0; r < rows; r++ {
		copy(dst[r*w:r*w+ca], a[r*ca:(r+1)*ca])
		copy(dst[r*w+ca:(r+1)*w], b[r*cb:(r+1)*cb])
	}
}

// SplitCols is the backward pass of ConcatCols: it writes the first ca
// columns of d into da and the remaining cb into db. A nil da or db is
// skipped.
func SplitCols[F Float](d []F, ca, cb, rows int, da, db []F) {
	w := ca + cb
	for r := 0; r < rows; r++ {
		if da != nil {
			copy(da[r*ca:(r+1)*ca], d[r*w:r*w+ca])
		}
		if db != nil {
			copy(db[r*cb:(r+1)*cb], d[r*w+ca:(r+1)*w])
		}
	}
}
