package runtime

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newSoftmaxKernel, "Softmax")
	registerKernel(newLayerNormKernel, "LayerNormalization")
	registerKernel(newBatchNormKernel, "BatchNormalization")
}

// softmaxKernel normalises along one axis viewed as [outer, axis, inner].
type softmaxKernel struct {
	outer, n, inner int
}

func newSoftmaxKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	if !isFloatDT(in.dt) {
		return nil, errDType("Softmax", in.dt)
	}
	axis, err := normAxis(ni.node.AttrInt("axis"), len(in.shape))
	if err != nil {
		return nil, err
	}
	k := &softmaxKernel{outer: 1, inner: 1, n: in.shape[axis]}
	for _, d := range in.shape[:axis] {
		k.outer *= d
	}
	for _, d := range in.shape[axis+1:] {
		k.inner *= d
	}
	return k, nil
}

func (k *softmaxKernel) inPlace() []int { return []int{0} }

func (k *softmaxKernel) run(rc *runCtx, ins, outs []any) error {
	switch x := ins[0].(type) {
	case []float32:
		softmaxRun(rc, k, outs[0].([]float32), x)
	case []float64:
		softmaxRun(rc, k, outs[0].([]float64), x)
	}
	return nil
}

func softmaxRun[T floatT](rc *runCtx, k *softmaxKernel, y, x []T) {
	lines := k.outer * k.inner
	parallelFor(rc.threads, lines, k.n*16, func(lo, hi int) {
		for l := lo; l < hi; l++ {
			o, in := l/k.inner, l%k.inner
			base := o*k.n*k.inner + in
			softmaxLine(y[base:], x[base:], k.n, k.inner)
		}
	})
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

// layerNormKernel normalises each row of [outer, norm]. Scale and B
// broadcast to the normalised shape; when smaller they are expanded into
// scratch at run time.
type layerNormKernel struct {
	outer, norm int
	eps         float64
	expand      [2]*copyPlan // for Scale, B when not already full size
	dt          graph.DType
}

func newLayerNormKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	if !isFloatDT(in.dt) {
		return nil, errDType("LayerNormalization", in.dt)
	}
	axis, err := normAxis(ni.node.AttrInt("axis"), len(in.shape))
	if err != nil {
		return nil, err
	}
	k := &layerNormKernel{outer: 1, norm: 1, eps: float64(ni.node.AttrFloat("epsilon")), dt: in.dt}
	for _, d := range in.shape[:axis] {
		k.outer *= d
	}
	nshape := in.shape[axis:]
	for _, d := range nshape {
		k.norm *= d
	}
	for i := 1; i <= 2; i++ {
		p := ni.in(i)
		if p == nil {
			continue
		}
		if p.dt != in.dt {
			return nil, fmt.Errorf("%s has dtype %v, want %v", ni.inputName(i), p.dt, in.dt)
		}
		if p.n == k.norm {
			continue
		}
		pl, err := expandPlan(p.shape, nshape)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ni.inputName(i), err)
		}
		k.expand[i-1] = pl
	}
	for i := 1; i <= 2; i++ {
		if o := ni.out(i); o != nil && (o.n != k.outer || !isFloatDT(o.dt)) {
			return nil, fmt.Errorf("output %d has %v[%s], want %d floats", i, o.dt, graph.ShapeString(o.shape), k.outer)
		}
	}
	return k, nil
}

// expandPlan plans the broadcast of shape from to shape to.
func expandPlan(from, to []int) (*copyPlan, error) {
	r := len(to)
	if len(from) > r {
		return nil, fmt.Errorf("shape %s does not broadcast to %s", graph.ShapeString(from), graph.ShapeString(to))
	}
	istr := contiguousStrides(from)
	sstr := make([]int, r)
	for i := range sstr {
		j := i - (r - len(from))
		if j < 0 || from[j] == 1 {
			continue
		}
		if from[j] != to[i] {
			return nil, fmt.Errorf("shape %s does not broadcast to %s", graph.ShapeString(from), graph.ShapeString(to))
		}
		sstr[i] = istr[j]
	}
	return newCopyPlan(to, contiguousStrides(to), sstr, 0, 0), nil
}

func (k *layerNormKernel) scratchBytes() int { return 2 * 8 * k.norm }

func (k *layerNormKernel) run(rc *runCtx, ins, outs []any) error {
	switch x := ins[0].(type) {
	case []float32:
		layerNormRun[float32](rc, k, x, ins, outs)
	case []float64:
		layerNormRun[float64](rc, k, x, ins, outs)
	}
	return nil
}

func layerNormRun[T floatT](rc *runCtx, k *layerNormKernel, x []T, ins, outs []any) {
	var params [2][]T
	for i := 0; i < 2; i++ {
		v := optIn(ins, i+1)
		if v == nil {
			continue
		}
		p := v.([]T)
		if k.expand[i] != nil {
			full := scratchView[T](rc, i*8*k.norm, k.norm)
			k.expand[i].run(rc, full, p)
			p = full
		}
		params[i] = p
	}
	y := outs[0].([]T)
	var mean, inv any
	if len(outs) > 1 {
		mean = outs[1]
	}
	if len(outs) > 2 {
		inv = outs[2]
	}
	scale, bias := params[0], params[1]
	parallelFor(rc.threads, k.outer, 4*k.norm, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := x[r*k.norm : (r+1)*k.norm]
			out := y[r*k.norm : (r+1)*k.norm]
			s := 0.0
			for _, v := range row {
				s += float64(v)
			}
			mu := s / float64(k.norm)
			q := 0.0
			for _, v := range row {
				d := float64(v) - mu
				q += d * d
			}
			is := 1 / math.Sqrt(q/float64(k.norm)+k.eps)
			m, sc := T(mu), T(is)
			switch {
			case bias != nil:
				for i, v := range row {
					out[i] = (v-m)*sc*scale[i] + bias[i]
				}
			default:
				for i, v := range row {
					out[i] = (v - m) * sc * scale[i]
				}
			}
			setFloat(mean, r, mu)
			setFloat(inv, r, is)
		}
	})
}

// setFloat stores v at index i of a float slice (no-op for nil).
func setFloat(d any, i int, v float64) {
	switch s := d.(type) {
	case []float32:
		s[i] = float32(v)
	case []float64:
		s[i] = v
	}
}

// batchNormKernel is BatchNormalization per channel (axis 1). In inference
// mode it applies the given statistics; in training mode it uses the
// batch's mean and (biased) variance and also returns the updated running
// statistics.
type batchNormKernel struct {
	n, c, hw  int
	eps, mom  float64
	training  bool
	paramDT   graph.DType
	nOutputs  int
	dataDType graph.DType
}

func newBatchNormKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	if !isFloatDT(in.dt) {
		return nil, errDType("BatchNormalization", in.dt)
	}
	k := &batchNormKernel{n: in.shape[0], c: in.shape[1], hw: 1, eps: float64(ni.node.AttrFloat("epsilon")),
		mom: float64(ni.node.AttrFloat("momentum")), training: ni.node.AttrInt("training_mode") != 0,
		dataDType: in.dt, nOutputs: len(ni.outs)}
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
	scale, bias, mean, vr := floatAt(ins[1]), floatAt(ins[2]), floatAt(ins[3]), floatAt(ins[4])
	if k.training {
		switch x := ins[0].(type) {
		case []float32:
			batchStats(k, x, bm, bv)
		case []float64:
			batchStats(k, x, bm, bv)
		}
	}
	for c := 0; c < k.c; c++ {
		m, v := mean(c), vr(c)
		if k.training {
			m, v = bm[c], bv[c]
		}
		a[c] = scale(c) / math.Sqrt(v+k.eps)
		b[c] = bias(c) - m*a[c]
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
				setFloat(outs[1], c, mean(c)*k.mom+bm[c]*(1-k.mom))
			}
			if len(outs) > 2 {
				setFloat(outs[2], c, vr(c)*k.mom+bv[c]*(1-k.mom))
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
		for c := 0; c < k.c; c++ {
			for i, f := range []func(int) float64{mean, vr, mean, vr} {
				if i+1 < len(outs) {
					setFloat(outs[i+1], c, f(c))
				}
			}
		}
	}
	return nil
}

// floatAt returns an accessor reading a float slice as float64.
func floatAt(d any) func(int) float64 {
	switch s := d.(type) {
	case []float32:
		return func(i int) float64 { return float64(s[i]) }
	case []float64:
		return func(i int) float64 { return s[i] }
	}
	return func(int) float64 { return 0 }
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
	parallelFor(rc.threads, n*c, hw, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			ch := p % c
			ac, bc := T(a[ch]), T(b[ch])
			row := x[p*hw : (p+1)*hw]
			out := y[p*hw : (p+1)*hw]
			for i, v := range row {
				out[i] = v*ac + bc
			}
		}
	})
}
