package executor

// im2colGeo is a convolution window normalised to three spatial axes
// (D, H, W; missing leading axes have size 1) with per-axis tap tables.
type im2colGeo struct {
	in, out, k [3]int
	tbl        [3][]int // tap t, output o -> input index or -1
	// Rows of the innermost axis: for tap tw, output positions [lo, hi)
	// read input positions off+o (stride 1); positions outside are padding.
	contig   bool
	wLo, wHi []int
	wOff     []int
	inPlane  int // D*H*W of the input
	outPlane int
	taps     int
}

func newIm2colGeo(w *convWindow) *im2colGeo {
	g := &im2colGeo{}
	sp := len(w.in)
	full := &convWindow{}
	for a := 0; a < 3; a++ {
		j := a - (3 - sp)
		if j < 0 {
			full.in = append(full.in, 1)
			full.out = append(full.out, 1)
			full.kernel = append(full.kernel, 1)
			full.stride = append(full.stride, 1)
			full.dilation = append(full.dilation, 1)
			full.padBegin = append(full.padBegin, 0)
			full.padEnd = append(full.padEnd, 0)
			continue
		}
		full.in = append(full.in, w.in[j])
		full.out = append(full.out, w.out[j])
		full.kernel = append(full.kernel, w.kernel[j])
		full.stride = append(full.stride, w.stride[j])
		full.dilation = append(full.dilation, w.dilation[j])
		full.padBegin = append(full.padBegin, w.padBegin[j])
		full.padEnd = append(full.padEnd, w.padEnd[j])
	}
	for a := 0; a < 3; a++ {
		g.in[a], g.out[a], g.k[a] = full.in[a], full.out[a], full.kernel[a]
		g.tbl[a] = full.tapTable(a)
	}
	g.inPlane = g.in[0] * g.in[1] * g.in[2]
	g.outPlane = g.out[0] * g.out[1] * g.out[2]
	g.taps = g.k[0] * g.k[1] * g.k[2]
	if full.stride[2] == 1 {
		g.contig = true
		OW := g.out[2]
		for t := 0; t < g.k[2]; t++ {
			off := t*full.dilation[2] - full.padBegin[2]
			lo := min(max(0, -off), OW)
			hi := max(lo, min(OW, g.in[2]-off))
			g.wLo = append(g.wLo, lo)
			g.wHi = append(g.wHi, hi)
			g.wOff = append(g.wOff, off)
		}
	}
	return g
}

// im2col fills col [channels*taps, outPlane] from x [channels, inPlane].
func im2col[T floatT](g *im2colGeo, col, x []T, channels, threads int) {
	rows := channels * g.taps
	P := g.outPlane
	if chunks(threads, rows*P, 1) <= 1 {
		im2colRows(g, col, x, 0, rows)
		return
	}
	parallelFor(threads, rows, P, func(lo, hi int) { im2colRows(g, col, x, lo, hi) })
}

func im2colRows[T floatT](g *im2colGeo, col, x []T, lo, hi int) {
	OD, OH, OW := g.out[0], g.out[1], g.out[2]
	IH, IW := g.in[1], g.in[2]
	KD, KH, KW := g.k[0], g.k[1], g.k[2]
	for r := lo; r < hi; r++ {
		tw := r % KW
		th := (r / KW) % KH
		td := (r / (KW * KH)) % KD
		c := r / (KW * KH * KD)
		dst := col[r*g.outPlane : (r+1)*g.outPlane]
		xc := x[c*g.inPlane : (c+1)*g.inPlane]
		tD := g.tbl[0][td*OD : (td+1)*OD]
		tH := g.tbl[1][th*OH : (th+1)*OH]
		tW := g.tbl[2][tw*OW : (tw+1)*OW]
		for od, id := range tD {
			plane := dst[od*OH*OW : (od+1)*OH*OW]
			if id < 0 {
				clear(plane)
				continue
			}
			for oh, ih := range tH {
				row := plane[oh*OW : (oh+1)*OW]
				if ih < 0 {
					clear(row)
					continue
				}
				src := xc[(id*IH+ih)*IW : (id*IH+ih+1)*IW]
				if g.contig {
					l, h, off := g.wLo[tw], g.wHi[tw], g.wOff[tw]
					clear(row[:l])
					if h > l {
						copy(row[l:h], src[l+off:h+off])
					}
					clear(row[h:])
					continue
				}
				for ow, iw := range tW {
					if iw < 0 {
						row[ow] = 0
					} else {
						row[ow] = src[iw]
					}
				}
			}
		}
	}
}

// col2im adds col [channels*taps, outPlane] (laid out over the geometry's
// "output" grid, which for ConvTranspose is the input grid) into y
// [channels, inPlane] (the geometry's "input" grid, which for
// ConvTranspose is the output).
func col2im[T floatT](g *im2colGeo, y, col []T, channels, threads int) {
	// Channels are independent; split them across workers.
	work := g.taps * g.outPlane
	if chunks(threads, channels, work) <= 1 {
		col2imChannels(g, y, col, 0, channels)
		return
	}
	parallelFor(threads, channels, work, func(lo, hi int) { col2imChannels(g, y, col, lo, hi) })
}

// col2imChannels scatters channels [lo, hi).
func col2imChannels[T floatT](g *im2colGeo, y, col []T, lo, hi int) {
	OD, OH, OW := g.out[0], g.out[1], g.out[2]
	IH, IW := g.in[1], g.in[2]
	KH, KW := g.k[1], g.k[2]
	for c := lo; c < hi; c++ {
		yc := y[c*g.inPlane : (c+1)*g.inPlane]
		for t := 0; t < g.taps; t++ {
			tw, th, td := t%KW, (t/KW)%KH, t/(KW*KH)
			src := col[(c*g.taps+t)*g.outPlane : (c*g.taps+t+1)*g.outPlane]
			tD := g.tbl[0][td*OD : (td+1)*OD]
			tH := g.tbl[1][th*OH : (th+1)*OH]
			tW := g.tbl[2][tw*OW : (tw+1)*OW]
			for od, id := range tD {
				if id < 0 {
					continue
				}
				for oh, ih := range tH {
					if ih < 0 {
						continue
					}
					row := src[(od*OH+oh)*OW : (od*OH+oh+1)*OW]
					dst := yc[(id*IH+ih)*IW : (id*IH+ih+1)*IW]
					for ow, iw := range tW {
						if iw >= 0 {
							dst[iw] += row[ow]
						}
					}
				}
			}
		}
	}
}
