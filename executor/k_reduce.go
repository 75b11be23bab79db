package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

type reduceOp uint8

const (
	redSum reduceOp = iota
	redMean
	redMax
)

func init() {
	registerKernel(newReduceKernel, "ReduceSum", "ReduceMean", "ReduceMax")
}

// reduceKernel reduces over a set of axes. The input's axes are merged
// into alternating kept and reduced groups; the loop nest then runs over
// those groups with contiguous innermost work.
type reduceKernel struct {
	op     reduceOp
	dt     graph.DType
	groups []int  // group sizes, outermost first
	red    []bool // whether each group is reduced
	xStr   []int  // input stride of each group
	yStr   []int  // output stride of each group (0 for reduced)
	count  int    // elements reduced into each output
	noop   bool
	fn     func(rc *runCtx, k *reduceKernel, y, x any)
}

var reduceRuns = numFns[func(rc *runCtx, k *reduceKernel, y, x any)]{
	reduceRun[float32], reduceRun[float64], reduceRun[int64], reduceRun[int32], reduceRun[int16],
	reduceRun[int8], reduceRun[uint64], reduceRun[uint32], reduceRun[uint16], reduceRun[uint8],
}

func newReduceKernel(ni *nodeInfo) (kernel, error) {
	in, out := ni.in(0), ni.out(0)
	k := &reduceKernel{dt: out.dt}
	switch ni.node.Op {
	case "ReduceSum":
		k.op = redSum
	case "ReduceMean":
		k.op = redMean
	default:
		k.op = redMax
	}
	var err error
	if k.fn, err = reduceRuns.forDT(ni.node.Op, out.dt); err != nil {
		return nil, err
	}
	r := len(in.shape)
	axes, _, err := ni.constInts(1)
	if err != nil {
		return nil, err
	}
	reduced := make([]bool, r)
	if len(axes) == 0 {
		if ni.node.AttrInt("noop_with_empty_axes") != 0 {
			k.noop = true
			return k, nil
		}
		for i := range reduced {
			reduced[i] = true
		}
	}
	for _, a := range axes {
		ax, err := graph.NormAxis(a, r)
		if err != nil {
			return nil, err
		}
		reduced[ax] = true
	}
	k.count = 1
	outN := 1
	for i, d := range in.shape {
		if reduced[i] {
			k.count *= d
		} else {
			outN *= d
		}
	}
	if outN != out.n {
		return nil, fmt.Errorf("output has %d elements, want %d", out.n, outN)
	}
	// Merge neighbouring axes of the same kind; drop size-1 axes.
	for i, d := range in.shape {
		if d == 1 {
			continue
		}
		if n := len(k.groups); n > 0 && k.red[n-1] == reduced[i] {
			k.groups[n-1] *= d
			continue
		}
		k.groups = append(k.groups, d)
		k.red = append(k.red, reduced[i])
	}
	k.xStr = make([]int, len(k.groups))
	k.yStr = make([]int, len(k.groups))
	xs, ys := 1, 1
	for g := len(k.groups) - 1; g >= 0; g-- {
		k.xStr[g] = xs
		xs *= k.groups[g]
		if !k.red[g] {
			k.yStr[g] = ys
			ys *= k.groups[g]
		}
	}
	return k, nil
}

func (k *reduceKernel) run(rc *runCtx, ins, outs []any) error {
	return runReduce(rc, k, k.noop, k.fn, ins, outs)
}

// runReduce runs a reduction kernel k: a copy when noop (no axis is
// reduced), else fn on the typed data.
func runReduce[K any](rc *runCtx, k K, noop bool, fn func(rc *runCtx, k K, y, x any), ins, outs []any) error {
	if noop {
		copyData(outs[0], ins[0])
		return nil
	}
	fn(rc, k, outs[0], ins[0])
	return nil
}

func reduceRun[T numT](rc *runCtx, k *reduceKernel, yd, xd any) {
	y, x := yd.([]T), xd.([]T)
	init := T(0)
	if k.op == redMax {
		init = lowest[T]()
	}
	for i := range y {
		y[i] = init
	}
	if len(x) > 0 && len(k.groups) > 0 {
		if n := k.groups[0]; !k.red[0] && len(k.groups) > 1 && chunks(rc.threads, n, len(x)/n) > 1 {
			// Split the outermost kept group across workers (disjoint outputs).
			parallelFor(rc.threads, n, len(x)/n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					reduceGroup(k, 1, y, x, i*k.xStr[0], i*k.yStr[0])
				}
			})
		} else {
			reduceGroup(k, 0, y, x, 0, 0)
		}
	}
	if k.op == redMean {
		if k.count == 0 {
			for i := range y {
				y[i] = T(math.NaN())
			}
			return
		}
		c := T(k.count)
		for i := range y {
			y[i] /= c
		}
	}
}

// reduceGroup accumulates group g and those inside it.
func reduceGroup[T numT](k *reduceKernel, g int, y, x []T, xo, yo int) {
	last := g == len(k.groups)-1
	n := k.groups[g]
	if last {
		if k.red[g] {
			y[yo] = reduceSlice(k.op, y[yo], x[xo:xo+n])
		} else {
			accumulate(k.op, y[yo:yo+n], x[xo:xo+n])
		}
		return
	}
	xs, ys := k.xStr[g], k.yStr[g]
	for i := 0; i < n; i++ {
		reduceGroup(k, g+1, y, x, xo+i*xs, yo+i*ys)
	}
}

// reduceSlice folds a contiguous run into acc.
func reduceSlice[T numT](op reduceOp, acc T, x []T) T {
	if op == redMax {
		for _, v := range x {
			acc = graph.MaxNaN(acc, v)
		}
		return acc
	}
	if !graph.IsIntegral[T]() {
		s := 0.0
		for _, v := range x {
			s += float64(v)
		}
		return acc + T(s)
	}
	for _, v := range x {
		acc += v
	}
	return acc
}

// accumulate folds x into y elementwise.
func accumulate[T numT](op reduceOp, y, x []T) {
	x = x[:len(y)]
	if op == redMax {
		for i, v := range x {
			y[i] = graph.MaxNaN(y[i], v)
		}
		return
	}
	for i, v := range x {
		y[i] += v
	}
}
