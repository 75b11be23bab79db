package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newLayerNormKernel, "LayerNormalization")
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
	in, axis, err := floatAxisInput(ni, "LayerNormalization")
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
	return floatIO(rc, k, ins, outs, layerNormRun[float32], layerNormRun[float64])
}

func layerNormRun[T floatT](rc *runCtx, k *layerNormKernel, ins, outs []any) error {
	x := ins[0].([]T)
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
	if chunks(rc.threads, k.outer, 4*k.norm) <= 1 {
		layerNormRows(k, y, x, scale, bias, mean, inv, 0, k.outer)
		return nil
	}
	parallelFor(rc.threads, k.outer, 4*k.norm, func(lo, hi int) {
		layerNormRows(k, y, x, scale, bias, mean, inv, lo, hi)
	})
	return nil
}

// layerNormRows normalises rows [lo, hi), storing the statistics in mean
// and inv when they are requested.
func layerNormRows[T floatT](k *layerNormKernel, y, x, scale, bias []T, mean, inv any, lo, hi int) {
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
		if bias != nil {
			for i, v := range row {
				out[i] = (v-m)*sc*scale[i] + bias[i]
			}
		} else {
			for i, v := range row {
				out[i] = (v - m) * sc * scale[i]
			}
		}
		setFloat(mean, r, mu)
		setFloat(inv, r, is)
	}
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
