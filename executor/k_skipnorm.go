package executor

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newSkipNormKernel(false), kernelKey(graph.MicrosoftDomain, "SkipLayerNormalization"))
	registerKernel(newSkipNormKernel(true), kernelKey(graph.MicrosoftDomain, "SkipSimplifiedLayerNormalization"))
	registerKernel(newSimplifiedNormKernel, "SimplifiedLayerNormalization")
}

// skipNormKernel is com.microsoft SkipLayerNormalization and
// SkipSimplifiedLayerNormalization: each row of input + skip + bias is
// normalised over the hidden axis (by mean and variance, or by the root
// mean square when simplified), in float64. skip repeats every skipN
// elements (a [1, seq, hidden] or [seq, hidden] skip beside a 3-D input).
type skipNormKernel struct {
	rows, hidden int
	skipN        int
	eps          float64
	simplified   bool
	// beta and bias are the input positions of beta and bias, -1 when the
	// op has no such input.
	beta, bias int
}

func newSkipNormKernel(simplified bool) kernelFactory {
	return func(ni *nodeInfo) (kernel, error) {
		if !isFloatDT(ni.in(0).dt) {
			return nil, errDType(ni.node.Op, ni.in(0).dt)
		}
		rows, hidden, err := graph.SkipNormShape(ni.node)
		if err != nil {
			return nil, err
		}
		k := &skipNormKernel{rows: rows, hidden: hidden, skipN: ni.in(1).n, eps: float64(ni.node.AttrFloat("epsilon")),
			simplified: simplified, beta: 3, bias: 4}
		if simplified {
			k.beta, k.bias = -1, 3
		}
		return k, nil
	}
}

func (k *skipNormKernel) run(rc *runCtx, ins, outs []any) error {
	return floatIO(rc, k, ins, outs, skipNormRun[float32], skipNormRun[float64])
}

// optFloats returns input i as a []T, nil when i is negative or the input
// is absent.
func optFloats[T floatT](ins []any, i int) []T {
	if i < 0 {
		return nil
	}
	if v := optIn(ins, i); v != nil {
		return v.([]T)
	}
	return nil
}

func skipNormRun[T floatT](rc *runCtx, k *skipNormKernel, ins, outs []any) error {
	x, skip, gamma := ins[0].([]T), ins[1].([]T), ins[2].([]T)
	beta, bias := optFloats[T](ins, k.beta), optFloats[T](ins, k.bias)
	y := outs[0].([]T)
	var sum []T
	if len(outs) > 3 && outs[3] != nil {
		sum = outs[3].([]T)
	}
	h := k.hidden
	parallelFor(rc.threads, k.rows, 6*h, func(lo, hi int) {
		s := make([]float64, h)
		for r := lo; r < hi; r++ {
			off := r * h
			sk := skip[off%k.skipN:]
			for i := range s {
				v := float64(x[off+i]) + float64(sk[i])
				if bias != nil {
					v += float64(bias[i])
				}
				s[i] = v
			}
			if sum != nil {
				for i, v := range s {
					sum[off+i] = T(v)
				}
			}
			normRow(y[off:off+h], s, gamma, beta, k.eps, k.simplified)
		}
	})
	return nil
}

// normRow writes (s - mean) / sqrt(var + eps) * gamma + beta to y, or
// s / sqrt(mean(s^2) + eps) * gamma when simplified; beta may be nil.
func normRow[T floatT](y []T, s []float64, gamma, beta []T, eps float64, simplified bool) {
	n := float64(len(s))
	mean := 0.0
	if !simplified {
		for _, v := range s {
			mean += v
		}
		mean /= n
	}
	q := 0.0
	for _, v := range s {
		q += (v - mean) * (v - mean)
	}
	inv := 1 / math.Sqrt(q/n+eps)
	for i, v := range s {
		o := (v - mean) * inv * float64(gamma[i])
		if beta != nil {
			o += float64(beta[i])
		}
		y[i] = T(o)
	}
}

// simplifiedNormKernel is ONNX Runtime's SimplifiedLayerNormalization:
// each row of [outer, norm] divided by its root mean square (plus
// epsilon) and multiplied by scale, in float64.
type simplifiedNormKernel struct {
	outer, norm int
	eps         float64
}

func newSimplifiedNormKernel(ni *nodeInfo) (kernel, error) {
	in, axis, err := floatAxisInput(ni, "SimplifiedLayerNormalization")
	if err != nil {
		return nil, err
	}
	k := &simplifiedNormKernel{outer: 1, norm: 1, eps: float64(ni.node.AttrFloat("epsilon"))}
	for i, d := range in.shape {
		if i < axis {
			k.outer *= d
		} else {
			k.norm *= d
		}
	}
	return k, nil
}

func (k *simplifiedNormKernel) run(rc *runCtx, ins, outs []any) error {
	return floatIO(rc, k, ins, outs, simplifiedNormRun[float32], simplifiedNormRun[float64])
}

func simplifiedNormRun[T floatT](rc *runCtx, k *simplifiedNormKernel, ins, outs []any) error {
	x, scale, y := ins[0].([]T), ins[1].([]T), outs[0].([]T)
	parallelFor(rc.threads, k.outer, 4*k.norm, func(lo, hi int) {
		s := make([]float64, k.norm)
		for r := lo; r < hi; r++ {
			off := r * k.norm
			for i := range s {
				s[i] = float64(x[off+i])
			}
			normRow(y[off:off+k.norm], s, scale, nil, k.eps, true)
		}
	})
	return nil
}
