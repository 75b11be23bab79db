package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newBatchNormKernel, "BatchNormalization")
}

// batchNormKernel is BatchNormalization per channel (axis 1). In inference
// mode it applies the given statistics; in training mode it uses the
// batch's mean and (biased) variance and also returns the updated running
// statistics.
type batchNormKernel struct {
	n, c, hw int
	eps, mom float64
	training bool
}

func newBatchNormKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	if !isFloatDT(in.dt) {
		return nil, errDType("BatchNormalization", in.dt)
	}
	k := &batchNormKernel{n: in.shape[0], c: in.shape[1], hw: 1, eps: float64(ni.node.AttrFloat("epsilon")),
		mom: float64(ni.node.AttrFloat("momentum")), training: ni.node.AttrInt("training_mode") != 0}
	for _, d := range in.shape[2:] {
		k.hw *= d
	}
	for i := 1; i <= 4; i++ {
		p := ni.in(i)
		if !isFloatDT(p.dt) || p.n != k.c {
			return nil, fmt.Errorf("%s has %v[%s], want %d floats", ni.inputName(i), p.dt, graph.ShapeString(p.shape), k.c)
		}
	}
	for i := 1; i < len(ni.outs); i++ {
		if o := ni.out(i); o != nil && (!isFloatDT(o.dt) || o.n != k.c) {
			return nil, fmt.Errorf("output %d has %v[%s], want %d floats", i, o.dt, graph.ShapeString(o.shape), k.c)
		}
	}
	return k, nil
}

func (k *batchNormKernel) inPlace() []int {
	if k.training {
		return nil
	}
	return []int{0}
}

// scratchBytes holds per-channel a, b, batch mean and batch variance.
func (k *batchNormKernel) scratchBytes() int { return 4 * 8 * k.c }

func (k *batchNormKernel) run(rc *runCtx, ins, outs []any) error {
	a := scratchView[float64](rc, 0, k.c)
	b := scratchView[float64](rc, 8*k.c, k.c)
	bm := scratchView[float64](rc, 16*k.c, k.c)
	bv := scratchView[float64](rc, 24*k.c, k.c)
	scale, bias, mean, vr := ins[1], ins[2], ins[3], ins[4]
	if k.training {
		switch x := ins[0].(type) {
		case []float32:
			batchStats(k, x, bm, bv)
		case []float64:
			batchStats(k, x, bm, bv)
		}
	}
	for c := 0; c < k.c; c++ {
		m, v := floatAt(mean, c), floatAt(vr, c)
		if k.training {
			m, v = bm[c], bv[c]
		}
		a[c] = floatAt(scale, c) / math.Sqrt(v+k.eps)
		b[c] = floatAt(bias, c) - m*a[c]
	}
	switch x := ins[0].(type) {
	case []float32:
		affineChannels(rc, k.n, k.c, k.hw, outs[0].([]float32), x, a, b)
	case []float64:
		affineChannels(rc, k.n, k.c, k.hw, outs[0].([]float64), x, a, b)
	}
	if k.training {
		for c := 0; c < k.c; c++ {
			if len(outs) > 1 {
				setFloat(outs[1], c, floatAt(mean, c)*k.mom+bm[c]*(1-k.mom))
			}
			if len(outs) > 2 {
				setFloat(outs[2], c, floatAt(vr, c)*k.mom+bv[c]*(1-k.mom))
			}
			if len(outs) > 3 {
				setFloat(outs[3], c, bm[c])
			}
			if len(outs) > 4 {
				setFloat(outs[4], c, bv[c])
			}
		}
	} else {
		// Inference: the optional statistics outputs pass the inputs through.
		stats := [4]any{mean, vr, mean, vr}
		for i := 1; i < len(outs); i++ {
			for c := 0; c < k.c; c++ {
				setFloat(outs[i], c, floatAt(stats[i-1], c))
			}
		}
	}
	return nil
}

// floatAt reads element i of a float slice as float64.
func floatAt(d any, i int) float64 {
	switch s := d.(type) {
	case []float32:
		return float64(s[i])
	case []float64:
		return s[i]
	}
	return 0
}

// batchStats computes per-channel mean and biased variance over N and the
// spatial axes.
func batchStats[T floatT](k *batchNormKernel, x []T, mean, vr []float64) {
	cnt := float64(k.n * k.hw)
	for c := 0; c < k.c; c++ {
		s := 0.0
		for n := 0; n < k.n; n++ {
			for _, v := range x[(n*k.c+c)*k.hw : (n*k.c+c+1)*k.hw] {
				s += float64(v)
			}
		}
		mu := s / cnt
		q := 0.0
		for n := 0; n < k.n; n++ {
			for _, v := range x[(n*k.c+c)*k.hw : (n*k.c+c+1)*k.hw] {
				d := float64(v) - mu
				q += d * d
			}
		}
		mean[c], vr[c] = mu, q/cnt
	}
}

// affineChannels computes y = x*a[c] + b[c] over [N, C, HW].
func affineChannels[T floatT](rc *runCtx, n, c, hw int, y, x []T, a, b []float64) {
	if chunks(rc.threads, n*c, hw) <= 1 {
		affinePlanes(c, hw, y, x, a, b, 0, n*c)
		return
	}
	parallelFor(rc.threads, n*c, hw, func(lo, hi int) { affinePlanes(c, hw, y, x, a, b, lo, hi) })
}

// affinePlanes applies the per-channel affine map to planes [lo, hi).
func affinePlanes[T floatT](c, hw int, y, x []T, a, b []float64, lo, hi int) {
	for p := lo; p < hi; p++ {
		ch := p % c
		ac, bc := T(a[ch]), T(b[ch])
		row := x[p*hw : (p+1)*hw]
		out := y[p*hw : (p+1)*hw]
		for i, v := range row {
			out[i] = v*ac + bc
		}
	}
}
