package executor

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp, ReduceSumSquare, and ArgMax/ArgMin. Each output element
// folds the input elements at base[o] + off[j]; floats accumulate in
// float64.

func init() {
	registerKernel(newReduceMoreKernel, "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
		"ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare")
	registerKernel(newArgKernel, "ArgMax", "ArgMin")
}

// reduceLayout lists, for a set of reduced axes, the offset of each output
// element's first input and the offsets of the reduced elements.
type reduceLayout struct {
	base []int
	off  []int
}

func newReduceLayout(shape []int, reduced []bool) reduceLayout {
	st := contiguousStrides(shape)
	var l reduceLayout
	l.base = []int{0}
	l.off = []int{0}
	for i, d := range shape {
		src := &l.base
		if reduced[i] {
			src = &l.off
		}
		next := make([]int, 0, len(*src)*d)
		for _, b := range *src {
			for j := 0; j < d; j++ {
				next = append(next, b+j*st[i])
			}
		}
		*src = next
	}
	return l
}

type reduceMoreKernel struct {
	op   string
	lay  reduceLayout
	noop bool
}

func newReduceMoreKernel(ni *nodeInfo) (kernel, error) {
	in, out := ni.in(0), ni.out(0)
	if !isNumericDT(out.dt) {
		return nil, errDType(ni.node.Op, out.dt)
	}
	axes, _, err := ni.constInts(1)
	if err != nil {
		return nil, err
	}
	k := &reduceMoreKernel{op: ni.node.Op}
	if len(axes) == 0 && ni.node.AttrInt("noop_with_empty_axes") != 0 {
		k.noop = true
		return k, nil
	}
	reduced := make([]bool, len(in.shape))
	for i := range reduced {
		reduced[i] = len(axes) == 0
	}
	for _, a := range axes {
		ax, err := graph.NormAxis(a, len(in.shape))
		if err != nil {
			return nil, err
		}
		reduced[ax] = true
	}
	k.lay = newReduceLayout(in.shape, reduced)
	return k, nil
}

func (k *reduceMoreKernel) run(rc *runCtx, ins, outs []any) error {
	if k.noop {
		copyData(outs[0], ins[0])
		return nil
	}
	switch x := ins[0].(type) {
	case []float32:
		reduceMoreRun(rc, k, outs[0].([]float32), x)
	case []float64:
		reduceMoreRun(rc, k, outs[0].([]float64), x)
	case []int64:
		reduceMoreRun(rc, k, outs[0].([]int64), x)
	case []int32:
		reduceMoreRun(rc, k, outs[0].([]int32), x)
	case []int16:
		reduceMoreRun(rc, k, outs[0].([]int16), x)
	case []int8:
		reduceMoreRun(rc, k, outs[0].([]int8), x)
	case []uint64:
		reduceMoreRun(rc, k, outs[0].([]uint64), x)
	case []uint32:
		reduceMoreRun(rc, k, outs[0].([]uint32), x)
	case []uint16:
		reduceMoreRun(rc, k, outs[0].([]uint16), x)
	case []uint8:
		reduceMoreRun(rc, k, outs[0].([]uint8), x)
	default:
		return errDType(k.op, graph.Undefined)
	}
	return nil
}

func reduceMoreRun[T numT](rc *runCtx, k *reduceMoreKernel, y, x []T) {
	off := k.lay.off
	parallelFor(rc.threads, len(y), len(off), func(lo, hi int) {
		for o := lo; o < hi; o++ {
			b := k.lay.base[o]
			y[o] = reduceOne(k.op, x, b, off)
		}
	})
}

// reduceOne folds x[b+off[j]] for every j.
func reduceOne[T numT](op string, x []T, b int, off []int) T {
	switch op {
	case "ReduceMin":
		acc := highest[T]()
		for _, j := range off {
			acc = graph.MinNaN(acc, x[b+j])
		}
		return acc
	case "ReduceProd":
		if graph.IsIntegral[T]() {
			acc := T(1)
			for _, j := range off {
				acc *= x[b+j]
			}
			return acc
		}
		acc := 1.0
		for _, j := range off {
			acc *= float64(x[b+j])
		}
		return T(acc)
	case "ReduceLogSumExp":
		m := math.Inf(-1)
		for _, j := range off {
			m = math.Max(m, float64(x[b+j]))
		}
		if math.IsInf(m, 0) {
			m = 0
		}
		s := 0.0
		for _, j := range off {
			s += math.Exp(float64(x[b+j]) - m)
		}
		return T(math.Log(s) + m)
	}
	if graph.IsIntegral[T]() && op != "ReduceL2" && op != "ReduceLogSum" {
		var acc T
		for _, j := range off {
			v := x[b+j]
			switch op {
			case "ReduceL1":
				if v < 0 {
					v = 0 - v
				}
			case "ReduceSumSquare":
				v *= v
			}
			acc += v
		}
		return acc
	}
	s := 0.0
	for _, j := range off {
		v := float64(x[b+j])
		switch op {
		case "ReduceL1":
			v = math.Abs(v)
		case "ReduceL2", "ReduceSumSquare":
			v *= v
		}
		s += v
	}
	switch op {
	case "ReduceL2":
		s = math.Sqrt(s)
	case "ReduceLogSum":
		s = math.Log(s)
	}
	return T(s)
}

// argKernel is ArgMax or ArgMin along one axis viewed as [outer, n, inner].
type argKernel struct {
	outer, n, inner int
	max, last       bool
}

func newArgKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	if !isNumericDT(in.dt) {
		return nil, errDType(ni.node.Op, in.dt)
	}
	ax, err := graph.NormAxis(ni.node.AttrInt("axis"), len(in.shape))
	if err != nil {
		return nil, err
	}
	k := &argKernel{outer: 1, inner: 1, n: in.shape[ax], max: ni.node.Op == "ArgMax",
		last: ni.node.AttrInt("select_last_index") != 0}
	for _, d := range in.shape[:ax] {
		k.outer *= d
	}
	for _, d := range in.shape[ax+1:] {
		k.inner *= d
	}
	return k, nil
}

func (k *argKernel) run(rc *runCtx, ins, outs []any) error {
	y := outs[0].([]int64)
	switch x := ins[0].(type) {
	case []float32:
		argRun(rc, k, y, x)
	case []float64:
		argRun(rc, k, y, x)
	case []int64:
		argRun(rc, k, y, x)
	case []int32:
		argRun(rc, k, y, x)
	case []int16:
		argRun(rc, k, y, x)
	case []int8:
		argRun(rc, k, y, x)
	case []uint64:
		argRun(rc, k, y, x)
	case []uint32:
		argRun(rc, k, y, x)
	case []uint16:
		argRun(rc, k, y, x)
	case []uint8:
		argRun(rc, k, y, x)
	}
	return nil
}

func argRun[T numT](rc *runCtx, k *argKernel, y []int64, x []T) {
	if k.n == 0 {
		return
	}
	parallelFor(rc.threads, k.outer*k.inner, k.n, func(lo, hi int) {
		for l := lo; l < hi; l++ {
			o, i := l/k.inner, l%k.inner
			base := o*k.n*k.inner + i
			best, at := x[base], 0
			for j := 1; j < k.n; j++ {
				v := x[base+j*k.inner]
				better := v > best
				if !k.max {
					better = v < best
				}
				if better || (k.last && v == best) {
					best, at = v, j
				}
			}
			y[l] = int64(at)
		}
	})
}
