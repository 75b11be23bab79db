package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newWhereKernel, "Where")
}

// Equal compares with broadcasting into a bool output; it serves every
// dtype.
var equalRuns = numFns[bcastFn]{
	equalRun[float32], equalRun[float64], equalRun[int64], equalRun[int32], equalRun[int16],
	equalRun[int8], equalRun[uint64], equalRun[uint32], equalRun[uint16], equalRun[uint8],
}

func newEqualKernel(ni *nodeInfo) (kernel, error) { return newBcast2(ni, equalRuns, equalRun[bool]) }

func equalRun[T comparable](k *bcastKernel, rc *runCtx, ins, outs []any) {
	p, d, a, b := k.plan, outs[0].([]bool), ins[0].([]T), ins[1].([]T)
	if p.serial(rc, 1) {
		equalRows(p, d, a, b, 0, p.rows)
	} else {
		parallelFor(rc.threads, p.rows, p.inner, func(lo, hi int) { equalRows(p, d, a, b, lo, hi) })
	}
}

// equalRows compares rows [lo, hi) of the plan.
func equalRows[T comparable](p *bcastPlan, d []bool, a, b []T, lo, hi int) {
	sa, sb, L := p.innerStride(0), p.innerStride(1), p.inner
	p.eachRow(lo, hi, func(r int, offs [3]int) {
		row := d[r*L : (r+1)*L]
		oa, ob := offs[0], offs[1]
		for i := range row {
			row[i] = a[oa+i*sa] == b[ob+i*sb]
		}
	})
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

// whereRun selects over the plan's rows, in parallel for large outputs.
func whereRun[W any](rc *runCtx, p *bcastPlan, d []W, c []bool, x, y []W) {
	if p.serial(rc, 1) {
		whereRows(p, d, c, x, y, 0, p.rows)
	} else {
		parallelFor(rc.threads, p.rows, p.inner, func(lo, hi int) { whereRows(p, d, c, x, y, lo, hi) })
	}
}

// whereRows selects rows [lo, hi) of the plan.
func whereRows[W any](p *bcastPlan, d []W, c []bool, x, y []W, lo, hi int) {
	sc, sx, sy, L := p.innerStride(0), p.innerStride(1), p.innerStride(2), p.inner
	p.eachRow(lo, hi, func(r int, offs [3]int) {
		row := d[r*L : (r+1)*L]
		oc, ox, oy := offs[0], offs[1], offs[2]
		for i := range row {
			if c[oc+i*sc] {
				row[i] = x[ox+i*sx]
			} else {
				row[i] = y[oy+i*sy]
			}
		}
	})
}
