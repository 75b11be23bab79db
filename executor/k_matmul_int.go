package executor

import (
	"fmt"
	"math"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// Integer matrix products of 8-bit operands: MatMulInteger and
// QLinearMatMul. The operands less their zero points are integers of at
// most 9 bits, so every product and every sum of fewer than 2^35 of them
// is exact in float64: the product runs as a float64 MatMul.

func init() {
	registerKernel(newIntMatMulKernel, "MatMulInteger", "QLinearMatMul")
}

// intForm is what the integer matrix products and convolutions share:
// where the second operand and the zero points are, and for the QLinear
// forms the output's integer range.
type intForm struct {
	// b, zpA and zpB are the input positions of the second operand and of
	// the zero points (the first operand is input 0).
	b, zpA, zpB int
	quant       bool // QLinearMatMul or QLinearConv
	lo, hi      float64
}

// newIntForm reads the form of an integer product node and returns its
// two 8-bit operands.
func newIntForm(ni *nodeInfo) (f intForm, a, b *valInfo, err error) {
	f = intForm{b: 1, zpA: 2, zpB: 3}
	op, out := ni.node.Op, ni.out(0)
	if f.quant = strings.HasPrefix(op, "QLinear"); f.quant {
		f.b, f.zpB = 3, 5
		var ok bool
		if f.lo, f.hi, ok = intRange(out.dt); !ok {
			return f, nil, nil, errDType(op+" output", out.dt)
		}
	} else if out.dt != graph.Int32 {
		return f, nil, nil, errDType(op+" output", out.dt)
	}
	a, b = ni.in(0), ni.in(f.b)
	for _, v := range []*valInfo{a, b} {
		if v.dt != graph.Uint8 && v.dt != graph.Int8 {
			return f, nil, nil, errDType(op+" operand", v.dt)
		}
	}
	return f, a, b, nil
}

// intMatMulKernel is MatMulInteger (int32 output) or QLinearMatMul
// (output requantised with y_scale and y_zero_point).
type intMatMulKernel struct {
	intForm
	mm         *matMulKernel
	na, nb, nc int
}

func newIntMatMulKernel(ni *nodeInfo) (kernel, error) {
	f, a, b, err := newIntForm(ni)
	if err != nil {
		return nil, err
	}
	mm, err := newMatMulGeometry(a, b, ni.out(0))
	if err != nil {
		return nil, err
	}
	return &intMatMulKernel{intForm: f, mm: mm, na: a.n, nb: b.n, nc: ni.out(0).n}, nil
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
