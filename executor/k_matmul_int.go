package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// Integer matrix products of 8-bit operands: MatMulInteger and
// QLinearMatMul. The operands less their zero points are integers of at
// most 9 bits, so every product and every sum of fewer than 2^35 of them
// is exact in float64: the product runs as a float64 MatMul.

func init() {
	registerKernel(newIntMatMulKernel, "MatMulInteger", "QLinearMatMul")
}

// intMatMulKernel is MatMulInteger (int32 output) or, when quant,
// QLinearMatMul (output requantised with y_scale and y_zero_point).
type intMatMulKernel struct {
	mm *matMulKernel
	// b, zpA and zpB are the input positions of B and of the zero points
	// (A is input 0).
	b, zpA, zpB int
	na, nb, nc  int
	quant       bool
	lo, hi      float64
}

func newIntMatMulKernel(ni *nodeInfo) (kernel, error) {
	k := &intMatMulKernel{b: 1, zpA: 2, zpB: 3}
	if k.quant = ni.node.Op == "QLinearMatMul"; k.quant {
		k.b, k.zpB = 3, 5
		var ok bool
		if k.lo, k.hi, ok = intRange(ni.out(0).dt); !ok {
			return nil, errDType("QLinearMatMul output", ni.out(0).dt)
		}
	} else if ni.out(0).dt != graph.Int32 {
		return nil, errDType("MatMulInteger output", ni.out(0).dt)
	}
	a, b, out := ni.in(0), ni.in(k.b), ni.out(0)
	for _, v := range []*valInfo{a, b} {
		if v.dt != graph.Uint8 && v.dt != graph.Int8 {
			return nil, errDType(ni.node.Op+" operand", v.dt)
		}
	}
	mm, err := newMatMulGeometry(a, b, out)
	if err != nil {
		return nil, err
	}
	k.mm, k.na, k.nb, k.nc = mm, a.n, b.n, out.n
	return k, nil
}

func (k *intMatMulKernel) scratchBytes() int { return 8 * (k.na + k.nb + k.nc) }

func (k *intMatMulKernel) run(rc *runCtx, ins, outs []any) error {
	buf := scratchAny(rc, graph.Float64, k.na+k.nb+k.nc).([]float64)
	a, b, c := buf[:k.na], buf[k.na:k.na+k.nb], buf[k.na+k.nb:]
	zpA, zpB := optIn(ins, k.zpA), optIn(ins, k.zpB)
	castData(a, ins[0])
	castData(b, ins[k.b])
	kk := k.mm.k
	for i := range a {
		a[i] -= paramAt(zpA, i/kk%k.mm.m)
	}
	for i := range b {
		b[i] -= paramAt(zpB, i%k.mm.n)
	}
	matMulRun(rc, k.mm, c, a, b)
	if !k.quant {
		castData(outs[0], c)
		return nil
	}
	ys, yzp := paramAt(ins[6], 0), paramAt(ins[7], 0)
	for i, v := range c {
		r, col := i/k.mm.n%k.mm.m, i%k.mm.n
		scale := paramAt(ins[1], r) * paramAt(ins[4], col) / ys
		q := math.RoundToEven(v*scale) + yzp
		if q != q {
			return fmt.Errorf("QLinearMatMul: scales give NaN at element %d", i)
		}
		c[i] = min(max(q, k.lo), k.hi)
	}
	castData(outs[0], c)
	return nil
}

// paramAt returns element i of a quantisation parameter, element 0 when it
// has one element, or 0 when it is absent.
func paramAt(d any, i int) float64 {
	switch s := d.(type) {
	case nil:
		return 0
	case []uint8:
		return elemAt(s, i)
	case []int8:
		return elemAt(s, i)
	case []float32:
		return elemAt(s, i)
	}
	return elemAt(d.([]float64), i)
}

func elemAt[T numT](s []T, i int) float64 {
	if len(s) == 1 {
		return float64(s[0])
	}
	return float64(s[i])
}
