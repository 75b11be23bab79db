package executor

import (
	"fmt"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// powKernel is Pow(X, Y): the result has X's dtype; Y may have another
// numeric dtype and is converted first.
type powKernel struct {
	plan   *bcastPlan
	dt     graph.DType
	expDT  graph.DType
	expN   int
	mixed  bool // Y's dtype differs from X's: convert Y into scratch
	inpl   []int
	viaF64 bool // integer base with float exponent: compute in float64
	xn     int
	outN   int
	fn     binaryFn
}

func newPowKernel(ni *nodeInfo) (kernel, error) {
	x, y, out := ni.in(0), ni.in(1), ni.out(0)
	if !isNumericDT(x.dt) || !isNumericDT(y.dt) {
		return nil, fmt.Errorf("Pow of %v by %v is not supported by the Go executor", x.dt, y.dt)
	}
	k := &powKernel{plan: newBcastPlan(out.shape, x.shape, y.shape), dt: x.dt, expDT: y.dt,
		expN: y.n, mixed: x.dt != y.dt, xn: x.n, outN: out.n}
	var err error
	if k.fn, err = binaryRuns.forDT("Pow", x.dt); err != nil {
		return nil, err
	}
	if slices.Equal(x.shape, out.shape) {
		k.inpl = []int{0}
	}
	if k.mixed && !isFloatDT(x.dt) && isFloatDT(y.dt) {
		k.viaF64 = true
	}
	return k, nil
}

func (k *powKernel) inPlace() []int { return k.inpl }

func (k *powKernel) scratchBytes() int {
	if k.viaF64 {
		return 8 * (words8(8*k.xn) + words8(8*k.expN) + words8(8*k.outN))
	}
	if k.mixed {
		return 8 * words8(k.expN*elemSize(k.dt))
	}
	return 0
}

func (k *powKernel) run(rc *runCtx, ins, outs []any) error {
	x, y := ins[0], ins[1]
	if k.viaF64 {
		xf := scratchView[float64](rc, 0, k.xn)
		yf := scratchView[float64](rc, 8*words8(8*k.xn), k.expN)
		of := scratchView[float64](rc, 8*(words8(8*k.xn)+words8(8*k.expN)), k.outN)
		castData(xf, x)
		castData(yf, y)
		binaryRun(rc, k.plan, opPow, of, xf, yf)
		castData(outs[0], of)
		return nil
	}
	if k.mixed {
		conv := scratchAny(rc, k.dt, k.expN)
		castData(conv, y)
		y = conv
	}
	k.fn(rc, k.plan, opPow, outs[0], x, y)
	return nil
}

// scratchAny returns n elements of dtype dt from the start of scratch.
func scratchAny(rc *runCtx, dt graph.DType, n int) any {
	if words8(n*elemSize(dt)) > len(rc.scratch) {
		panic(fmt.Sprintf("runtime: scratch overflow (%d elements of %v)", n, dt))
	}
	return viewAs(dt, rc.scratch, n)
}
