package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// Integer convolutions of 8-bit operands: ConvInteger and QLinearConv. As
// for the integer matrix products, the operands less their zero points
// and every sum of their products are exact in float64, so a float64 Conv
// computes them; padding contributes zero, as the zero point would.

func init() {
	registerKernel(newIntConvKernel, "ConvInteger", "QLinearConv")
}

// intConvKernel is ConvInteger (int32 output) or, when quant, QLinearConv
// (optional int32 bias B, output requantised with y_scale and
// y_zero_point).
type intConvKernel struct {
	intForm
	conv       *convKernel // the float64 convolution
	nx, nw, ny int
	m, outSp   int // output channels and elements per output channel
	perW       int // W elements per output channel
	bias       bool
}

func newIntConvKernel(ni *nodeInfo) (kernel, error) {
	f, x, w, err := newIntForm(ni)
	if err != nil {
		return nil, err
	}
	k := &intConvKernel{intForm: f}
	out := ni.out(0)
	f64 := func(v *valInfo) *valInfo { return &valInfo{v: v.v, dt: graph.Float64, shape: v.shape, n: v.n} }
	sub := &nodeInfo{node: ni.node, ins: []*valInfo{f64(x), f64(w)}, outs: []*valInfo{f64(out)}, threads: ni.threads}
	if b := ni.in(8); k.quant && b != nil {
		if b.dt != graph.Int32 {
			return nil, errDType("QLinearConv bias", b.dt)
		}
		sub.ins = append(sub.ins, f64(b))
		k.bias = true
	}
	c, err := newConvKernel(sub)
	if err != nil {
		return nil, err
	}
	k.conv = c.(*convKernel)
	k.nx, k.nw, k.ny = x.n, w.n, out.n
	k.m, k.outSp, k.perW = w.shape[0], graph.NumElements(out.shape[2:]), w.n/max(w.shape[0], 1)
	return k, nil
}

// own is the number of float64s of scratch the kernel itself uses: X, W,
// Y and the bias; the convolution's scratch follows.
func (k *intConvKernel) own() int { return k.nx + k.nw + k.ny + k.m }

func (k *intConvKernel) scratchBytes() int { return 8*k.own() + k.conv.scratchBytes() }

func (k *intConvKernel) run(rc *runCtx, ins, outs []any) error {
	buf := scratchAny(rc, graph.Float64, k.own()).([]float64)
	x, w := buf[:k.nx], buf[k.nx:k.nx+k.nw]
	y, b := buf[k.nx+k.nw:k.nx+k.nw+k.ny], buf[k.nx+k.nw+k.ny:]
	castData(x, ins[0])
	zx := paramAt(optIn(ins, k.zpA), 0)
	for i := range x {
		x[i] -= zx
	}
	castData(w, ins[k.b])
	zw := optIn(ins, k.zpB)
	for i := range w {
		w[i] -= paramAt(zw, i/k.perW)
	}
	cins := []any{x, w}
	if k.bias {
		castData(b, ins[8])
		cins = append(cins, b)
	}
	sub := &runCtx{threads: rc.threads, scratch: rc.scratch[k.own():]}
	if err := k.conv.run(sub, cins, []any{y}); err != nil {
		return err
	}
	if k.quant {
		ys, yzp := paramAt(ins[6], 0), paramAt(ins[7], 0)
		xs := paramAt(ins[1], 0)
		for i, v := range y {
			o := i / k.outSp % k.m
			q := math.RoundToEven(v*xs*paramAt(ins[4], o)/ys) + yzp
			if q != q {
				return fmt.Errorf("QLinearConv: scales give NaN at element %d", i)
			}
			y[i] = min(max(q, k.lo), k.hi)
		}
	}
	castData(outs[0], y)
	return nil
}
