package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// RoiAlign in avg mode: each output bin of a region averages bilinear
// samples of its input channel on a regular grid. Max mode, whose
// reference implementations disagree with the operator's text, is not run
// by the Go executor.

func init() {
	registerKernel(newRoiAlignKernel, "RoiAlign")
}

// roiAlignKernel is RoiAlign of X [n, c, h, w] over r regions into
// [r, c, oh, ow].
type roiAlignKernel struct {
	n, c, h, w, r, oh, ow int
	sampling              int
	scale, offset         float64
	minSize               float64 // the least region side (1 in output_half_pixel mode)
}

func newRoiAlignKernel(ni *nodeInfo) (kernel, error) {
	x, out, nd := ni.in(0), ni.out(0), ni.node
	if !isFloatDT(x.dt) {
		return nil, errDType("RoiAlign", x.dt)
	}
	if nd.AttrString("mode") != "avg" {
		return nil, fmt.Errorf("RoiAlign mode %q is not supported by the Go executor (only avg)", nd.AttrString("mode"))
	}
	if graph.NumElements(x.shape[2:]) == 0 {
		return nil, fmt.Errorf("RoiAlign input X %s has no pixels", graph.ShapeString(x.shape))
	}
	k := &roiAlignKernel{n: x.shape[0], c: x.shape[1], h: x.shape[2], w: x.shape[3], r: out.shape[0],
		oh: out.shape[2], ow: out.shape[3], sampling: int(nd.AttrInt("sampling_ratio")),
		scale: float64(nd.AttrFloat("spatial_scale"))}
	if nd.AttrString("coordinate_transformation_mode") == "half_pixel" {
		k.offset = 0.5
	} else {
		k.minSize = 1
	}
	return k, nil
}

func (k *roiAlignKernel) run(rc *runCtx, ins, outs []any) error {
	idx := make([]int, k.r)
	for i := range idx {
		b := int(intAt(ins[2], i))
		if b < 0 || b >= k.n {
			return fmt.Errorf("batch_indices[%d] = %d outside [0, %d)", i, b, k.n)
		}
		idx[i] = b
	}
	if x, ok := ins[0].([]float32); ok {
		roiAlignRun(k, outs[0].([]float32), x, ins[1].([]float32), idx)
	} else {
		roiAlignRun(k, outs[0].([]float64), ins[0].([]float64), ins[1].([]float64), idx)
	}
	return nil
}

// intAt returns element i of an int32 or int64 slice.
func intAt(d any, i int) int64 {
	if s, ok := d.([]int32); ok {
		return int64(s[i])
	}
	return d.([]int64)[i]
}

func roiAlignRun[T floatT](k *roiAlignKernel, y, x, rois []T, idx []int) {
	plane, bins := k.h*k.w, k.oh*k.ow
	for r, b := range idx {
		x1 := float64(rois[4*r])*k.scale - k.offset
		y1 := float64(rois[4*r+1])*k.scale - k.offset
		rw := max(float64(rois[4*r+2])*k.scale-k.offset-x1, k.minSize)
		rh := max(float64(rois[4*r+3])*k.scale-k.offset-y1, k.minSize)
		bh, bw := rh/float64(k.oh), rw/float64(k.ow)
		gh, gw := k.sampling, k.sampling
		if k.sampling == 0 {
			gh, gw = int(math.Ceil(bh)), int(math.Ceil(bw))
		}
		count := float64(max(gh*gw, 1))
		for c := range k.c {
			src := x[(b*k.c+c)*plane : (b*k.c+c+1)*plane]
			dst := y[(r*k.c+c)*bins : (r*k.c+c+1)*bins]
			for ph := range k.oh {
				for pw := range k.ow {
					sum := 0.0
					for iy := range gh {
						sy := y1 + float64(ph)*bh + (float64(iy)+0.5)*bh/float64(gh)
						for ix := range gw {
							sx := x1 + float64(pw)*bw + (float64(ix)+0.5)*bw/float64(gw)
							sum += roiSample(k, src, sy, sx)
						}
					}
					dst[ph*k.ow+pw] = T(sum / count)
				}
			}
		}
	}
}

// roiSample is the bilinear sample of a plane at (sy, sx): 0 more than one
// pixel outside it, edge values clamped within.
func roiSample[T floatT](k *roiAlignKernel, src []T, sy, sx float64) float64 {
	if sy < -1 || sy > float64(k.h) || sx < -1 || sx > float64(k.w) {
		return 0
	}
	y0, ly := roiLow(max(sy, 0), k.h)
	x0, lx := roiLow(max(sx, 0), k.w)
	y1, x1 := min(y0+1, k.h-1), min(x0+1, k.w-1)
	at := func(yi, xi int) float64 { return float64(src[yi*k.w+xi]) }
	return (1-ly)*((1-lx)*at(y0, x0)+lx*at(y0, x1)) + ly*((1-lx)*at(y1, x0)+lx*at(y1, x1))
}

// roiLow returns the lower pixel of coordinate v on an axis of size
// pixels and v's fraction past it; at or past the last pixel both are the
// last pixel and 0.
func roiLow(v float64, size int) (int, float64) {
	lo := int(v)
	if lo >= size-1 {
		return size - 1, 0
	}
	return lo, v - float64(lo)
}
