package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newEqualKernel, "Equal")
	registerKernel(newWhereKernel, "Where")
}

// equalKernel is Equal with broadcasting; output is bool.
type equalKernel struct {
	plan *bcastPlan
	dt   graph.DType
}

func newEqualKernel(ni *nodeInfo) (kernel, error) {
	a, b := ni.in(0), ni.in(1)
	if a.dt != b.dt {
		return nil, fmt.Errorf("inputs have dtypes %v and %v, want equal", a.dt, b.dt)
	}
	return &equalKernel{plan: newBcastPlan(ni.out(0).shape, a.shape, b.shape), dt: a.dt}, nil
}

func (k *equalKernel) run(rc *runCtx, ins, outs []any) error {
	d := outs[0].([]bool)
	switch a := ins[0].(type) {
	case []float32:
		equalRun(rc, k.plan, d, a, ins[1].([]float32))
	case []float64:
		equalRun(rc, k.plan, d, a, ins[1].([]float64))
	case []int64:
		equalRun(rc, k.plan, d, a, ins[1].([]int64))
	case []int32:
		equalRun(rc, k.plan, d, a, ins[1].([]int32))
	case []int16:
		equalRun(rc, k.plan, d, a, ins[1].([]int16))
	case []int8:
		equalRun(rc, k.plan, d, a, ins[1].([]int8))
	case []uint64:
		equalRun(rc, k.plan, d, a, ins[1].([]uint64))
	case []uint32:
		equalRun(rc, k.plan, d, a, ins[1].([]uint32))
	case []uint16:
		equalRun(rc, k.plan, d, a, ins[1].([]uint16))
	case []uint8:
		equalRun(rc, k.plan, d, a, ins[1].([]uint8))
	case []bool:
		equalRun(rc, k.plan, d, a, ins[1].([]bool))
	default:
		return errDType("Equal", k.dt)
	}
	return nil
}

func equalRun[T comparable](rc *runCtx, p *bcastPlan, d []bool, a, b []T) {
	if p.n == 0 {
		return
	}
	if chunks(rc.threads, p.n, 1) <= 1 {
		equalRows(p, d, a, b, 0, p.rows)
		return
	}
	parallelFor(rc.threads, p.rows, p.inner, func(lo, hi int) { equalRows(p, d, a, b, lo, hi) })
}

// equalRows compares rows [lo, hi) of the plan.
func equalRows[T comparable](p *bcastPlan, d []bool, a, b []T, lo, hi int) {
	sa, sb := p.innerStride(0), p.innerStride(1)
	L := p.inner
	var it rowIter
	it.start(p, lo)
	for r := lo; r < hi; r++ {
		if r > lo {
			it.next(r)
		}
		row := d[r*L : (r+1)*L]
		oa, ob := it.offs[0], it.offs[1]
		for i := range row {
			row[i] = a[oa+i*sa] == b[ob+i*sb]
		}
	}
}

// whereKernel is Where(condition, X, Y) with three-way broadcasting; it
// moves elements by size, so it serves every dtype.
type whereKernel struct {
	plan *bcastPlan
	size int
}

func newWhereKernel(ni *nodeInfo) (kernel, error) {
	c, x, y := ni.in(0), ni.in(1), ni.in(2)
	if c.dt != graph.Bool {
		return nil, fmt.Errorf("condition has dtype %v, want bool", c.dt)
	}
	if x.dt != y.dt {
		return nil, fmt.Errorf("X and Y have dtypes %v and %v, want equal", x.dt, y.dt)
	}
	return &whereKernel{plan: newBcastPlan(ni.out(0).shape, c.shape, x.shape, y.shape), size: elemSize(x.dt)}, nil
}

func (k *whereKernel) run(rc *runCtx, ins, outs []any) error {
	c := ins[0].([]bool)
	switch k.size {
	case 1:
		whereRun(rc, k.plan, words[uint8](outs[0]), c, words[uint8](ins[1]), words[uint8](ins[2]))
	case 2:
		whereRun(rc, k.plan, words[uint16](outs[0]), c, words[uint16](ins[1]), words[uint16](ins[2]))
	case 4:
		whereRun(rc, k.plan, words[uint32](outs[0]), c, words[uint32](ins[1]), words[uint32](ins[2]))
	default:
		whereRun(rc, k.plan, words[uint64](outs[0]), c, words[uint64](ins[1]), words[uint64](ins[2]))
	}
	return nil
}

func whereRun[W any](rc *runCtx, p *bcastPlan, d []W, c []bool, x, y []W) {
	if p.n == 0 {
		return
	}
	if chunks(rc.threads, p.n, 1) <= 1 {
		whereRows(p, d, c, x, y, 0, p.rows)
		return
	}
	parallelFor(rc.threads, p.rows, p.inner, func(lo, hi int) { whereRows(p, d, c, x, y, lo, hi) })
}

// whereRows selects rows [lo, hi) of the plan.
func whereRows[W any](p *bcastPlan, d []W, c []bool, x, y []W, lo, hi int) {
	sc, sx, sy := p.innerStride(0), p.innerStride(1), p.innerStride(2)
	L := p.inner
	var it rowIter
	it.start(p, lo)
	for r := lo; r < hi; r++ {
		if r > lo {
			it.next(r)
		}
		row := d[r*L : (r+1)*L]
		oc, ox, oy := it.offs[0], it.offs[1], it.offs[2]
		for i := range row {
			if c[oc+i*sc] {
				row[i] = x[ox+i*sx]
			} else {
				row[i] = y[oy+i*sy]
			}
		}
	}
}
