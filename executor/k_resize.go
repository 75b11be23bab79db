package executor

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newResizeKernel, "Resize")
}

// resizeKernel is Resize. Nearest mode without extrapolation is one gather
// through per-axis index tables. Otherwise the interpolation is separable:
// one pass per resized axis, each output row a weighted sum of a few input
// rows (2 taps for linear, 4 for cubic, 1 for nearest), shrinking axes
// first; intermediate results live in scratch.
type resizeKernel struct {
	dt     graph.DType
	table  *tablePlan
	passes []*resizePass
	// Scratch: two ping-pong buffers of bufElems float64s.
	bufElems int
	extrap   float64
}

type resizePass struct {
	outer, inLen, outLen, inner int
	taps                        int
	idx                         []int     // outLen*taps input positions
	w                           []float64 // outLen*taps weights
	extrap                      []bool    // output position lies outside the crop
}

func newResizeKernel(ni *nodeInfo) (kernel, error) {
	x, out := ni.in(0), ni.out(0)
	n := ni.node
	r := len(x.shape)
	mode := n.AttrString("mode")
	ctm := n.AttrString("coordinate_transformation_mode")
	nearest := n.AttrString("nearest_mode")
	switch mode {
	case "nearest":
	case "linear", "cubic":
		if !isFloatDT(x.dt) {
			return nil, errDType("Resize "+mode, x.dt)
		}
	default:
		return nil, fmt.Errorf("mode %q is not one of nearest, linear, cubic", mode)
	}
	switch ctm {
	case "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize", "tf_half_pixel_for_nn":
	default:
		return nil, fmt.Errorf("coordinate_transformation_mode %q is not supported", ctm)
	}
	switch nearest {
	case "round_prefer_floor", "round_prefer_ceil", "floor", "ceil":
	default:
		return nil, fmt.Errorf("nearest_mode %q is not supported", nearest)
	}
	if len(out.shape) != r {
		return nil, fmt.Errorf("output rank %d differs from input rank %d", len(out.shape), r)
	}
	axes := make([]int, 0, r)
	if a := n.AttrInts("axes"); a != nil {
		for _, v := range a {
			ax, err := graph.NormAxis(v, r)
			if err != nil {
				return nil, fmt.Errorf("attribute axes: %w", err)
			}
			axes = append(axes, ax)
		}
	} else {
		for i := 0; i < r; i++ {
			axes = append(axes, i)
		}
	}
	scale, err := resizeScales(ni, x.shape, out.shape, axes)
	if err != nil {
		return nil, err
	}
	roiStart, roiEnd := make([]float64, r), make([]float64, r)
	for i := range roiEnd {
		roiEnd[i] = 1
	}
	if ctm == "tf_crop_and_resize" {
		roi, ok, err := ni.constFloats(1)
		if err != nil {
			return nil, err
		}
		if ok && len(roi) > 0 {
			switch len(roi) {
			case 2 * len(axes):
				for i, a := range axes {
					roiStart[a], roiEnd[a] = roi[i], roi[i+len(axes)]
				}
			case 2 * r:
				copy(roiStart, roi[:r])
				copy(roiEnd, roi[r:])
			default:
				return nil, fmt.Errorf("roi %v has %d values, want %d", roi, len(roi), 2*len(axes))
			}
		}
	}
	if n.AttrInt("antialias") != 0 && mode != "nearest" {
		for a := 0; a < r; a++ {
			if scale[a] < 1 {
				return nil, fmt.Errorf("antialiased downsampling is not supported by the Go executor")
			}
		}
	}
	k := &resizeKernel{dt: x.dt, extrap: float64(n.AttrFloat("extrapolation_value"))}
	cubicA := float64(n.AttrFloat("cubic_coeff_a"))
	exclude := n.AttrInt("exclude_outside") != 0
	byAxis := make([]*resizePass, r) // nil for unchanged axes
	anyExtrap := false
	for a := 0; a < r; a++ {
		p := &resizePass{inLen: x.shape[a], outLen: out.shape[a]}
		for o := 0; o < p.outLen; o++ {
			xo, outside := origCoord(ctm, float64(o), scale[a], p.inLen, roiStart[a], roiEnd[a])
			p.extrap = append(p.extrap, outside)
			anyExtrap = anyExtrap || outside
			var idx []int
			var w []float64
			switch mode {
			case "nearest":
				idx, w = []int{nearestIndex(nearest, xo)}, []float64{1}
			case "linear":
				i0 := math.Floor(xo)
				f := xo - i0
				idx, w = []int{int(i0), int(i0) + 1}, []float64{1 - f, f}
			default:
				i0 := math.Floor(xo)
				f := xo - i0
				idx = []int{int(i0) - 1, int(i0), int(i0) + 1, int(i0) + 2}
				w = cubicCoeffs(f, cubicA)
			}
			fixTaps(idx, w, p.inLen, exclude && mode == "cubic")
			p.taps = len(idx)
			p.idx = append(p.idx, idx...)
			p.w = append(p.w, w...)
		}
		if !p.identity() {
			byAxis[a] = p
		}
	}
	if mode == "nearest" && !anyExtrap {
		// One gather: each output index reads the single tap's position.
		istr := contiguousStrides(x.shape)
		tbl := make([][]int, r)
		for a := 0; a < r; a++ {
			tbl[a] = make([]int, out.shape[a])
			for o := range tbl[a] {
				i := o
				if p := byAxis[a]; p != nil {
					i = p.idx[o]
				}
				tbl[a][o] = i * istr[a]
			}
		}
		k.table = newTablePlan(out.shape, tbl)
		return k, nil
	}
	if !isFloatDT(x.dt) {
		return nil, errDType("Resize with extrapolation", x.dt)
	}
	// Shrinking axes first keeps the intermediate results small.
	var order []int
	for a, p := range byAxis {
		if p != nil {
			order = append(order, a)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		pi, pj := byAxis[order[i]], byAxis[order[j]]
		return pi.outLen*max(pj.inLen, 1) < pj.outLen*max(pi.inLen, 1)
	})
	cur := slices.Clone(x.shape)
	for _, a := range order {
		p := byAxis[a]
		p.outer = graph.NumElements(cur[:a])
		p.inner = graph.NumElements(cur[a+1:])
		cur[a] = p.outLen
		k.passes = append(k.passes, p)
		k.bufElems = max(k.bufElems, graph.NumElements(cur))
	}
	return k, nil
}

// resizeScales returns the scale of every axis: the given scales, or
// output/input sizes (with keep_aspect_ratio_policy's common scale).
func resizeScales(ni *nodeInfo, in, out []int, axes []int) ([]float64, error) {
	r := len(in)
	scale := make([]float64, r)
	for i := range scale {
		scale[i] = 1
	}
	sc, hasScales, err := ni.constFloats(2)
	if err != nil {
		return nil, err
	}
	if hasScales && len(sc) > 0 {
		if len(sc) != len(axes) {
			return nil, fmt.Errorf("scales %v has %d values, want %d", sc, len(sc), len(axes))
		}
		for i, a := range axes {
			if sc[i] <= 0 {
				return nil, fmt.Errorf("scales %v must be positive", sc)
			}
			scale[a] = sc[i]
		}
		return scale, nil
	}
	sizes, hasSizes, err := ni.constInts(3)
	if err != nil {
		return nil, err
	}
	if !hasSizes || len(sizes) != len(axes) {
		return nil, fmt.Errorf("one of scales and sizes must be given for every resized axis")
	}
	policy := ni.node.AttrString("keep_aspect_ratio_policy")
	common := 0.0
	for i, a := range axes {
		s := float64(sizes[i]) / float64(in[a])
		scale[a] = s
		if i == 0 || (policy == "not_larger" && s < common) || (policy == "not_smaller" && s > common) {
			common = s
		}
	}
	if policy == "not_larger" || policy == "not_smaller" {
		for _, a := range axes {
			scale[a] = common
		}
	}
	for a := range scale {
		if in[a] == 0 {
			scale[a] = 1
		}
	}
	return scale, nil
}

// origCoord maps output coordinate x to the input axis. The resized
// length is taken as scale*inLen like ONNX's reference implementation. The
// bool reports a position outside the crop box of tf_crop_and_resize.
func origCoord(mode string, x, scale float64, inLen int, roiStart, roiEnd float64) (float64, bool) {
	lenIn := float64(inLen)
	lenOut := scale * lenIn
	switch mode {
	case "align_corners":
		if lenOut == 1 {
			return 0, false
		}
		return x * (lenIn - 1) / (lenOut - 1), false
	case "asymmetric":
		return x / scale, false
	case "tf_half_pixel_for_nn":
		return (x + 0.5) / scale, false
	case "pytorch_half_pixel":
		if lenOut == 1 {
			return -0.5, false
		}
		return (x+0.5)/scale - 0.5, false
	case "half_pixel_symmetric":
		adj := math.Floor(lenOut) / lenOut
		center := lenIn / 2
		return center*(1-adj) + (x+0.5)/scale - 0.5, false
	case "tf_crop_and_resize":
		var xo float64
		if lenOut == 1 {
			xo = (roiEnd - roiStart) * (lenIn - 1) / 2
		} else {
			xo = x * (roiEnd - roiStart) * (lenIn - 1) / (lenOut - 1)
		}
		xo += roiStart * (lenIn - 1)
		return xo, xo < 0 || xo > lenIn-1
	}
	return (x+0.5)/scale - 0.5, false // half_pixel
}

// nearestIndex rounds a coordinate by nearest_mode (before clamping).
func nearestIndex(mode string, x float64) int {
	fl := math.Floor(x)
	switch mode {
	case "floor":
		return int(fl)
	case "ceil":
		return int(math.Ceil(x))
	case "round_prefer_ceil":
		if x-fl >= 0.5 {
			return int(fl) + 1
		}
		return int(fl)
	}
	if x-fl > 0.5 {
		return int(fl) + 1
	}
	return int(fl)
}

// cubicCoeffs returns the four Keys cubic weights for taps at distances
// 1+f, f, 1-f, 2-f.
func cubicCoeffs(f, a float64) []float64 {
	near := func(d float64) float64 { return ((a+2)*d-(a+3))*d*d + 1 }
	far := func(d float64) float64 { return ((a*d-5*a)*d+8*a)*d - 4*a }
	return []float64{far(1 + f), near(f), near(1 - f), far(2 - f)}
}

// fixTaps clamps tap positions to the axis (edge padding) or, with
// exclude, drops outside taps and renormalises the weights.
func fixTaps(idx []int, w []float64, n int, exclude bool) {
	if exclude {
		sum := 0.0
		for i, p := range idx {
			if p < 0 || p >= n {
				w[i] = 0
			}
			sum += w[i]
		}
		if sum != 0 {
			for i := range w {
				w[i] /= sum
			}
		}
	}
	for i, p := range idx {
		idx[i] = min(max(p, 0), max(n-1, 0))
	}
}

// identity reports whether the pass copies the axis unchanged.
func (p *resizePass) identity() bool {
	if p.inLen != p.outLen {
		return false
	}
	for o := 0; o < p.outLen; o++ {
		if p.extrap[o] {
			return false
		}
		for t := 0; t < p.taps; t++ {
			w := p.w[o*p.taps+t]
			if w != 0 && (w != 1 || p.idx[o*p.taps+t] != o) {
				return false
			}
		}
	}
	return true
}

func (k *resizeKernel) scratchBytes() int {
	if len(k.passes) <= 1 {
		return 0
	}
	return 2 * 8 * words8(k.bufElems*elemSize(k.dt))
}

func (k *resizeKernel) run(rc *runCtx, ins, outs []any) error {
	if k.table != nil {
		k.table.run(rc, outs[0], ins[0])
		return nil
	}
	if len(k.passes) == 0 {
		copyData(outs[0], ins[0])
		return nil
	}
	floatYX(rc, k, outs[0], ins[0], resizeRun[float32], resizeRun[float64])
	return nil
}

func resizeRun[T floatT](rc *runCtx, k *resizeKernel, y, x []T) {
	half := 8 * words8(k.bufElems*elemSize(k.dt))
	src := x
	for i, p := range k.passes {
		var dst []T
		switch {
		case i == len(k.passes)-1:
			dst = y
		default:
			dst = scratchView[T](rc, (i%2)*half, p.outer*p.outLen*p.inner)
		}
		resizePassRun(rc, p, dst, src, T(k.extrap))
		src = dst
	}
}

// resizePassRun interpolates along one axis of [outer, inLen, inner].
func resizePassRun[T floatT](rc *runCtx, p *resizePass, dst, src []T, ext T) {
	rows := p.outer * p.outLen
	if chunks(rc.threads, rows, p.inner*p.taps) <= 1 {
		resizeRows(p, dst, src, ext, 0, rows)
		return
	}
	parallelFor(rc.threads, rows, p.inner*p.taps, func(lo, hi int) { resizeRows(p, dst, src, ext, lo, hi) })
}

// resizeRows computes output rows [lo, hi) of a pass.
func resizeRows[T floatT](p *resizePass, dst, src []T, ext T, lo, hi int) {
	for r := lo; r < hi; r++ {
		o := r % p.outLen
		base := (r / p.outLen) * p.inLen
		d := dst[r*p.inner : (r+1)*p.inner]
		if p.extrap[o] {
			for i := range d {
				d[i] = ext
			}
			continue
		}
		idx := p.idx[o*p.taps : (o+1)*p.taps]
		w := p.w[o*p.taps : (o+1)*p.taps]
		if p.inner == 1 {
			s := 0.0
			for t, at := range idx {
				s += w[t] * float64(src[base+at])
			}
			d[0] = T(s)
			continue
		}
		clear(d)
		for t, at := range idx {
			if w[t] == 0 {
				continue
			}
			wt := T(w[t])
			row := src[(base+at)*p.inner : (base+at+1)*p.inner]
			for i, v := range row {
				d[i] += wt * v
			}
		}
	}
}
