package executor

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// LogSoftmax, Hardmax, InstanceNormalization, GroupNormalization, LRN,
// MeanVarianceNormalization and GlobalMaxPool. Statistics accumulate in
// float64.

func init() {
	registerKernel(newAxisLineKernel, "LogSoftmax", "Hardmax")
	registerKernel(newGroupNormKernel, "InstanceNormalization", "GroupNormalization")
	registerKernel(newLRNKernel, "LRN")
	registerKernel(newMVNKernel, "MeanVarianceNormalization")
	registerKernel(newGlobalMaxKernel, "GlobalMaxPool")
}

// axisLineKernel transforms every line along one axis viewed as
// [outer, n, inner].
type axisLineKernel struct {
	axisLines
	hardmax bool
}

func newAxisLineKernel(ni *nodeInfo) (kernel, error) {
	in, ax, err := floatAxisInput(ni, ni.node.Op)
	if err != nil {
		return nil, err
	}
	return &axisLineKernel{axisLines: linesAround(in.shape, ax), hardmax: ni.node.Op == "Hardmax"}, nil
}

func (k *axisLineKernel) run(rc *runCtx, ins, outs []any) error {
	floatYX(rc, k, outs[0], ins[0], axisLineRun[float32], axisLineRun[float64])
	return nil
}

func axisLineRun[T floatT](rc *runCtx, k *axisLineKernel, y, x []T) {
	if k.n == 0 {
		return
	}
	parallelFor(rc.threads, k.outer*k.inner, k.n*16, func(lo, hi int) {
		for l := lo; l < hi; l++ {
			o, in := l/k.inner, l%k.inner
			base := o*k.n*k.inner + in
			m, at := x[base], 0
			for i := 1; i < k.n; i++ {
				if v := x[base+i*k.inner]; v > m {
					m, at = v, i
				}
			}
			if k.hardmax {
				for i := 0; i < k.n; i++ {
					y[base+i*k.inner] = 0
				}
				y[base+at*k.inner] = 1
				continue
			}
			s := 0.0
			for i := 0; i < k.n; i++ {
				s += math.Exp(float64(x[base+i*k.inner] - m))
			}
			ls := math.Log(s)
			for i := 0; i < k.n; i++ {
				p := base + i*k.inner
				y[p] = T(float64(x[p]-m) - ls)
			}
		}
	})
}

// groupNormKernel normalises each of groups blocks of chans*spatial
// elements per sample, then applies per-channel scale and bias.
type groupNormKernel struct {
	n, groups, chans, spatial int
	eps                       float64
}

func newGroupNormKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	if !isFloatDT(in.dt) {
		return nil, errDType(ni.node.Op, in.dt)
	}
	c := in.shape[1]
	g := c
	if ni.node.Op == "GroupNormalization" {
		g = int(ni.node.AttrInt("num_groups"))
	}
	k := &groupNormKernel{n: in.shape[0], groups: g, chans: c / g, spatial: 1, eps: float64(ni.node.AttrFloat("epsilon"))}
	for _, d := range in.shape[2:] {
		k.spatial *= d
	}
	return k, nil
}

func (k *groupNormKernel) inPlace() []int { return []int{0} }

func (k *groupNormKernel) run(rc *runCtx, ins, outs []any) error {
	return floatIO(rc, k, ins, outs, groupNormIO[float32], groupNormIO[float64])
}

func groupNormIO[T floatT](rc *runCtx, k *groupNormKernel, ins, outs []any) error {
	groupNormRun(rc, k, outs[0].([]T), ins[0].([]T), ins[1].([]T), ins[2].([]T))
	return nil
}

func groupNormRun[T floatT](rc *runCtx, k *groupNormKernel, y, x, scale, bias []T) {
	m := k.chans * k.spatial
	if m == 0 {
		return
	}
	parallelFor(rc.threads, k.n*k.groups, m*4, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			xs := x[b*m : (b+1)*m]
			mean, inv := meanInvStd(xs, k.eps)
			g := b % k.groups
			for c := 0; c < k.chans; c++ {
				ch := g*k.chans + c
				sc, bi := float64(scale[ch]), float64(bias[ch])
				for s := c * k.spatial; s < (c+1)*k.spatial; s++ {
					y[b*m+s] = T((float64(xs[s])-mean)*inv*sc + bi)
				}
			}
		}
	})
}

// meanInvStd returns the mean of xs and 1/sqrt(variance + eps).
func meanInvStd[T floatT](xs []T, eps float64) (float64, float64) {
	s := 0.0
	for _, v := range xs {
		s += float64(v)
	}
	mean := s / float64(len(xs))
	ss := 0.0
	for _, v := range xs {
		d := float64(v) - mean
		ss += d * d
	}
	return mean, 1 / math.Sqrt(ss/float64(len(xs))+eps)
}

// lrnKernel normalises across neighbouring channels.
type lrnKernel struct {
	n, c, spatial            int
	lo, hi                   int // channel window [c-lo, c+hi]
	alpha, beta, bias, scale float64
}

func newLRNKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	if !isFloatDT(in.dt) {
		return nil, errDType("LRN", in.dt)
	}
	n := ni.node
	size := int(n.AttrInt("size"))
	k := &lrnKernel{n: in.shape[0], c: in.shape[1], spatial: 1, lo: (size - 1) / 2, hi: size / 2,
		alpha: float64(n.AttrFloat("alpha")), beta: float64(n.AttrFloat("beta")), bias: float64(n.AttrFloat("bias"))}
	k.scale = k.alpha / float64(size)
	for _, d := range in.shape[2:] {
		k.spatial *= d
	}
	return k, nil
}

func (k *lrnKernel) run(rc *runCtx, ins, outs []any) error {
	floatYX(rc, k, outs[0], ins[0], lrnRun[float32], lrnRun[float64])
	return nil
}

func lrnRun[T floatT](rc *runCtx, k *lrnKernel, y, x []T) {
	parallelFor(rc.threads, k.n*k.c, k.spatial*(k.lo+k.hi+1), func(lo, hi int) {
		for nc := lo; nc < hi; nc++ {
			b, c := nc/k.c, nc%k.c
			for s := 0; s < k.spatial; s++ {
				sum := 0.0
				for j := max(0, c-k.lo); j <= min(k.c-1, c+k.hi); j++ {
					v := float64(x[(b*k.c+j)*k.spatial+s])
					sum += v * v
				}
				p := nc*k.spatial + s
				y[p] = T(float64(x[p]) / math.Pow(k.bias+k.scale*sum, k.beta))
			}
		}
	})
}

// mvnKernel is MeanVarianceNormalization over a set of axes.
type mvnKernel struct{ lay reduceLayout }

func newMVNKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	if !isFloatDT(in.dt) {
		return nil, errDType("MeanVarianceNormalization", in.dt)
	}
	reduced := make([]bool, len(in.shape))
	for _, a := range ni.node.AttrInts("axes") {
		ax, err := graph.NormAxis(a, len(in.shape))
		if err != nil {
			return nil, err
		}
		reduced[ax] = true
	}
	return &mvnKernel{lay: newReduceLayout(in.shape, reduced)}, nil
}

func (k *mvnKernel) run(rc *runCtx, ins, outs []any) error {
	floatYX(rc, k, outs[0], ins[0], mvnRun[float32], mvnRun[float64])
	return nil
}

func mvnRun[T floatT](rc *runCtx, k *mvnKernel, y, x []T) {
	off := k.lay.off
	if len(off) == 0 {
		return
	}
	parallelFor(rc.threads, len(k.lay.base), len(off)*4, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			b := k.lay.base[o]
			s, ss := 0.0, 0.0
			for _, j := range off {
				v := float64(x[b+j])
				s += v
				ss += v * v
			}
			n := float64(len(off))
			mean := s / n
			std := math.Sqrt(max(ss/n-mean*mean, 0)) + 1e-9
			for _, j := range off {
				y[b+j] = T((float64(x[b+j]) - mean) / std)
			}
		}
	})
}

// globalMaxKernel takes the maximum of each [N*C] row of spatial elements.
type globalMaxKernel struct {
	rows, spatial int
	fn            func(k *globalMaxKernel, y, x any)
}

func newGlobalMaxKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	fn, err := globalMaxRuns.forDT("GlobalMaxPool", in.dt)
	if err != nil {
		return nil, err
	}
	return &globalMaxKernel{rows: ni.out(0).n, spatial: in.n / max(ni.out(0).n, 1), fn: fn}, nil
}

// GlobalMaxPool serves the floats and the 64- and 32-bit signed integers.
var globalMaxRuns = numFns[func(k *globalMaxKernel, y, x any)]{
	globalMaxRun[float32], globalMaxRun[float64], globalMaxRun[int64], globalMaxRun[int32],
}

func (k *globalMaxKernel) run(rc *runCtx, ins, outs []any) error {
	k.fn(k, outs[0], ins[0])
	return nil
}

func globalMaxRun[T numT](k *globalMaxKernel, yd, xd any) {
	y, x := yd.([]T), xd.([]T)
	for r := range y {
		m := lowest[T]()
		for _, v := range x[r*k.spatial : (r+1)*k.spatial] {
			m = graph.MaxNaN(m, v)
		}
		y[r] = m
	}
}
