package executor

import "math"

func init() {
	registerKernel(newSoftmaxKernel, "Softmax")
}

// softmaxKernel normalises along one axis viewed as [outer, axis, inner].
type softmaxKernel struct{ axisLines }

func newSoftmaxKernel(ni *nodeInfo) (kernel, error) {
	in, axis, err := floatAxisInput(ni, "Softmax")
	if err != nil {
		return nil, err
	}
	return &softmaxKernel{linesAround(in.shape, axis)}, nil
}

func (k *softmaxKernel) run(rc *runCtx, ins, outs []any) error {
	floatYX(rc, k, outs[0], ins[0], softmaxRun[float32], softmaxRun[float64])
	return nil
}

func softmaxRun[T floatT](rc *runCtx, k *softmaxKernel, y, x []T) {
	lines := k.outer * k.inner
	if chunks(rc.threads, lines, k.n*16) <= 1 {
		softmaxLines(k, y, x, 0, lines)
		return
	}
	parallelFor(rc.threads, lines, k.n*16, func(lo, hi int) { softmaxLines(k, y, x, lo, hi) })
}

// softmaxLines normalises lines [lo, hi) of the [outer, inner] grid.
func softmaxLines[T floatT](k *softmaxKernel, y, x []T, lo, hi int) {
	for l := lo; l < hi; l++ {
		o, in := l/k.inner, l%k.inner
		base := o*k.n*k.inner + in
		softmaxLine(y[base:], x[base:], k.n, k.inner)
	}
}

// softmaxLine normalises n elements at stride st.
func softmaxLine[T floatT](y, x []T, n, st int) {
	if n == 0 {
		return
	}
	m := x[0]
	for i := 1; i < n; i++ {
		m = max(m, x[i*st])
	}
	sum := 0.0
	for i := 0; i < n; i++ {
		e := math.Exp(float64(x[i*st] - m))
		y[i*st] = T(e)
		sum += e
	}
	inv := 1 / sum
	for i := 0; i < n; i++ {
		y[i*st] = T(float64(y[i*st]) * inv)
	}
}
