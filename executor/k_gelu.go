package executor

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newBiasGeluKernel(geluErf), kernelKey(graph.MicrosoftDomain, "BiasGelu"))
	registerKernel(newBiasGeluKernel(geluTanh), kernelKey(graph.MicrosoftDomain, "FastGelu"))
}

// geluErf is the exact Gelu, x Phi(x) = 0.5 x (1 + erf(x / sqrt 2)).
func geluErf(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }

// geluTanh is the tanh approximation of Gelu,
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
func geluTanh(x float64) float64 {
	const c = 0.7978845608028654 // sqrt(2/pi)
	return 0.5 * x * (1 + math.Tanh(c*(x+0.044715*x*x*x)))
}

// biasGeluKernel is com.microsoft BiasGelu and FastGelu: f(x + bias) with
// a bias broadcast along the last axis (none for FastGelu without one),
// computed in float64.
type biasGeluKernel struct {
	f    func(float64) float64
	last int
}

func newBiasGeluKernel(f func(float64) float64) kernelFactory {
	return func(ni *nodeInfo) (kernel, error) {
		x := ni.in(0)
		if !isFloatDT(x.dt) {
			return nil, errDType(ni.node.Op, x.dt)
		}
		return &biasGeluKernel{f: f, last: x.shape[len(x.shape)-1]}, nil
	}
}

func (k *biasGeluKernel) run(rc *runCtx, ins, outs []any) error {
	return floatIO(rc, k, ins, outs, biasGeluRun[float32], biasGeluRun[float64])
}

func biasGeluRun[T floatT](rc *runCtx, k *biasGeluKernel, ins, outs []any) error {
	x, y := ins[0].([]T), outs[0].([]T)
	var b []T
	if v := optIn(ins, 1); v != nil {
		b = v.([]T)
	}
	rows := len(x) / max(k.last, 1)
	parallelFor(rc.threads, rows, 8*k.last, func(lo, hi int) {
		for i := lo * k.last; i < hi*k.last; i++ {
			v := float64(x[i])
			if b != nil {
				v += float64(b[i%k.last])
			}
			y[i] = T(k.f(v))
		}
	})
	return nil
}
