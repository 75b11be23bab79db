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
	fn   func(rc *runCtx, k *reduceMoreKernel, y, x any)
}

var reduceMoreRuns = numFns[func(rc *runCtx, k *reduceMoreKernel, y, x any)]{
	reduceMoreRun[float32], reduceMoreRun[float64], reduceMoreRun[int64], reduceMoreRun[int32],
	reduceMoreRun[int16], reduceMoreRun[int8], reduceMoreRun[uint64], reduceMoreRun[uint32],
	reduceMoreRun[uint16], reduceMoreRun[uint8],
}

func newReduceMoreKernel(ni *nodeInfo) (kernel, error) {
	in, out := ni.in(0), ni.out(0)
	fn, err := reduceMoreRuns.forDT(ni.node.Op, out.dt)
	if err != nil {
		return nil, err
	}
	axes, _, err := ni.constInts(1)
	if err != nil {
		return nil, err
	}
	k := &reduceMoreKernel{op: ni.node.Op, fn: fn}
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
	return runReduce(rc, k, k.noop, k.fn, ins, outs)
}

func reduceMoreRun[T numT](rc *runCtx, k *reduceMoreKernel, yd, xd any) {
	y, x := yd.([]T), xd.([]T)
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
	fn              func(rc *runCtx, k *argKernel, y []int64, x any)
}

var argRuns = numFns[func(rc *runCtx, k *argKernel, y []int64, x any)]{
	argRun[float32], argRun[float64], argRun[int64], argRun[int32], argRun[int16],
	argRun[int8], argRun[uint64], argRun[uint32], argRun[uint16], argRun[uint8],
}

func newArgKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	fn, err := argRuns.forDT(ni.node.Op, in.dt)
	if err != nil {
		return nil, err
	}
	ax, err := graph.NormAxis(ni.node.AttrInt("axis"), len(in.shape))
	if err != nil {
		return nil, err
	}
	k := &argKernel{n: in.shape[ax], max: ni.node.Op == "ArgMax",
		last: ni.node.AttrInt("select_last_index") != 0, fn: fn}
	k.outer, k.inner = aroundAxis(in.shape, ax)
	return k, nil
}

func (k *argKernel) run(rc *runCtx, ins, outs []any) error {
	k.fn(rc, k, outs[0].([]int64), ins[0])
	return nil
}

func argRun[T numT](rc *runCtx, k *argKernel, y []int64, xd any) {
	x := xd.([]T)
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
