package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newPoolKernel, "MaxPool", "AveragePool")
	registerKernel(newGlobalAvgPoolKernel, "GlobalAveragePool")
}

// poolKernel is MaxPool / AveragePool over up to three spatial axes using
// the tap tables of a Conv window; padding never wins a max and counts
// toward the mean only with count_include_pad.
type poolKernel struct {
	isMax    bool
	planes   int
	geo      *im2colGeo
	div      []float64 // average: divisor for every output position
	colMajor bool      // MaxPool storage_order=1 for Indices
	dt       graph.DType
	fn       func(rc *runCtx, k *poolKernel, y, x any, idx []int64)
}

// MaxPool serves every numeric dtype, AveragePool the floats.
var poolRuns = numFns[func(rc *runCtx, k *poolKernel, y, x any, idx []int64)]{
	poolRun[float32], poolRun[float64], poolRun[int64], poolRun[int32], poolRun[int16],
	poolRun[int8], poolRun[uint64], poolRun[uint32], poolRun[uint16], poolRun[uint8],
}

func newPoolKernel(ni *nodeInfo) (kernel, error) {
	x, out := ni.in(0), ni.out(0)
	n := ni.node
	k := &poolKernel{isMax: n.Op == "MaxPool", dt: x.dt}
	fns := poolRuns
	if !k.isMax {
		fns = fns[:2]
	}
	var err error
	if k.fn, err = fns.forDT(n.Op, x.dt); err != nil {
		return nil, err
	}
	r := len(x.shape)
	if r < 3 || len(out.shape) != r {
		return nil, fmt.Errorf("X must have rank >= 3 [N,C,D...]")
	}
	if r-2 > 3 {
		return nil, fmt.Errorf("%s with %d spatial axes is not supported by the Go executor (at most 3)", n.Op, r-2)
	}
	win, err := resolveWindow(n, x.shape[2:], out.shape[2:], nil)
	if err != nil {
		return nil, err
	}
	k.planes = x.shape[0] * x.shape[1]
	k.geo = newIm2colGeo(win)
	if k.isMax {
		k.colMajor = n.AttrInt("storage_order") != 0
		if o := ni.out(1); o != nil && o.dt != graph.Int64 {
			return nil, fmt.Errorf("Indices output has dtype %v, want int64", o.dt)
		}
		return k, nil
	}
	// Divisors per output position: the product over axes of the taps that
	// fall inside the input (or inside input+padding with count_include_pad).
	include := n.AttrInt("count_include_pad") != 0
	sp := len(win.in)
	per := make([][]int, 3)
	for a := 0; a < 3; a++ {
		j := a - (3 - sp)
		if j < 0 {
			per[a] = []int{1}
			continue
		}
		per[a] = make([]int, win.out[j])
		for o := range per[a] {
			cnt := 0
			for t := 0; t < win.kernel[j]; t++ {
				p := o*win.stride[j] - win.padBegin[j] + t*win.dilation[j]
				if p >= 0 && p < win.in[j] || include && p < win.in[j]+win.padEnd[j] {
					cnt++
				}
			}
			per[a][o] = cnt
		}
	}
	for _, d := range per[0] {
		for _, h := range per[1] {
			for _, w := range per[2] {
				k.div = append(k.div, float64(d*h*w))
			}
		}
	}
	return k, nil
}

func (k *poolKernel) run(rc *runCtx, ins, outs []any) error {
	var idx []int64
	if len(outs) > 1 && outs[1] != nil {
		idx = outs[1].([]int64)
	}
	k.fn(rc, k, outs[0], ins[0], idx)
	return nil
}

func poolRun[T numT](rc *runCtx, k *poolKernel, yd, xd any, idx []int64) {
	y, x := yd.([]T), xd.([]T)
	cost := k.geo.outPlane * k.geo.taps
	if chunks(rc.threads, k.planes, cost) <= 1 {
		poolPlanes(k, y, x, idx, 0, k.planes)
		return
	}
	parallelFor(rc.threads, k.planes, cost, func(lo, hi int) { poolPlanes(k, y, x, idx, lo, hi) })
}

// poolPlanes pools planes [lo, hi).
func poolPlanes[T numT](k *poolKernel, y, x []T, idx []int64, lo, hi int) {
	g := k.geo
	for p := lo; p < hi; p++ {
		xp := x[p*g.inPlane : (p+1)*g.inPlane]
		yp := y[p*g.outPlane : (p+1)*g.outPlane]
		var ip []int64
		if idx != nil {
			ip = idx[p*g.outPlane : (p+1)*g.outPlane]
		}
		poolPlane(k, yp, xp, ip, int64(p*g.inPlane))
	}
}

// poolPlane pools one [D,H,W] plane.
func poolPlane[T numT](k *poolKernel, y, x []T, idx []int64, base int64) {
	g := k.geo
	OD, OH, OW := g.out[0], g.out[1], g.out[2]
	ID, IH, IW := g.in[0], g.in[1], g.in[2]
	KD, KH, KW := g.k[0], g.k[1], g.k[2]
	o := 0
	for od := 0; od < OD; od++ {
		for oh := 0; oh < OH; oh++ {
			for ow := 0; ow < OW; ow++ {
				best := lowest[T]()
				bestAt := -1
				sum := 0.0
				for td := 0; td < KD; td++ {
					id := g.tbl[0][td*OD+od]
					if id < 0 {
						continue
					}
					for th := 0; th < KH; th++ {
						ih := g.tbl[1][th*OH+oh]
						if ih < 0 {
							continue
						}
						row := (id*IH + ih) * IW
						for tw := 0; tw < KW; tw++ {
							iw := g.tbl[2][tw*OW+ow]
							if iw < 0 {
								continue
							}
							v := x[row+iw]
							if k.isMax {
								if bestAt < 0 || v > best || (v != v && best == best) {
									best, bestAt = v, row+iw
								}
							} else {
								sum += float64(v)
							}
						}
					}
				}
				if k.isMax {
					y[o] = best
					if idx != nil {
						at := bestAt
						if k.colMajor && at >= 0 {
							d, h, w := at/(IH*IW), (at/IW)%IH, at%IW
							at = (w*IH+h)*ID + d
						}
						idx[o] = base + int64(at)
					}
				} else if d := k.div[o]; d > 0 {
					y[o] = T(sum / d)
				} else {
					y[o] = T(math.NaN())
				}
				o++
			}
		}
	}
}

// globalAvgPoolKernel averages every [N, C] plane.
type globalAvgPoolKernel struct{ planes, size int }

func newGlobalAvgPoolKernel(ni *nodeInfo) (kernel, error) {
	x := ni.in(0)
	if !isFloatDT(x.dt) || len(x.shape) < 2 {
		return nil, fmt.Errorf("GlobalAveragePool needs a float tensor of rank >= 2, got %v[%s]", x.dt, graph.ShapeString(x.shape))
	}
	k := &globalAvgPoolKernel{planes: x.shape[0] * x.shape[1]}
	k.size = graph.NumElements(x.shape[2:])
	return k, nil
}

func (k *globalAvgPoolKernel) run(rc *runCtx, ins, outs []any) error {
	floatYX(rc, k, outs[0], ins[0], globalAvg[float32], globalAvg[float64])
	return nil
}

func globalAvg[T floatT](rc *runCtx, k *globalAvgPoolKernel, y, x []T) {
	if chunks(rc.threads, k.planes, k.size) <= 1 {
		meanPlanes(k.size, y, x, 0, k.planes)
		return
	}
	parallelFor(rc.threads, k.planes, k.size, func(lo, hi int) { meanPlanes(k.size, y, x, lo, hi) })
}

// meanPlanes averages planes [lo, hi) of size elements.
func meanPlanes[T floatT](size int, y, x []T, lo, hi int) {
	for p := lo; p < hi; p++ {
		s := 0.0
		for _, v := range x[p*size : (p+1)*size] {
			s += float64(v)
		}
		y[p] = T(s / float64(size))
	}
}
