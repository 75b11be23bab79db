package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// Linear quantisation: QuantizeLinear and DequantizeLinear with a scalar or
// per-axis scale and zero point, and DynamicQuantizeLinear to uint8.

func init() {
	registerKernel(newQuantizeKernel, "QuantizeLinear")
	registerKernel(newDequantizeKernel, "DequantizeLinear")
	registerKernel(newDynamicQuantizeKernel, "DynamicQuantizeLinear")
}

// quantKernel is QuantizeLinear or DequantizeLinear: element i of x uses
// scale and zero point number (i / inner) % n, or number 0 when they are
// scalars (n = 1).
type quantKernel struct {
	inner, n int
	lo, hi   float64 // QuantizeLinear's output range
}

// newQuantGeometry reads the axis of a quantisation node whose scale is
// input 1.
func newQuantGeometry(ni *nodeInfo) (*quantKernel, error) {
	x, s := ni.in(0), ni.in(1)
	k := &quantKernel{inner: 1, n: 1}
	if s.n == 1 {
		return k, nil
	}
	ax, err := graph.NormAxis(ni.node.AttrInt("axis"), len(x.shape))
	if err != nil {
		return nil, err
	}
	if x.shape[ax] != s.n {
		return nil, fmt.Errorf("scale has %d elements for axis %d of length %d", s.n, ax, x.shape[ax])
	}
	_, k.inner = aroundAxis(x.shape, ax)
	k.n = s.n
	return k, nil
}

// channel returns the scale index of element i.
func (k *quantKernel) channel(i int) int {
	if k.n == 1 {
		return 0
	}
	return i / k.inner % k.n
}

// intRange returns the smallest and largest values of an integer dtype
// the quantisation kernels write.
func intRange(dt graph.DType) (lo, hi float64, ok bool) {
	switch dt {
	case graph.Uint8:
		return 0, math.MaxUint8, true
	case graph.Int8:
		return math.MinInt8, math.MaxInt8, true
	case graph.Uint16:
		return 0, math.MaxUint16, true
	case graph.Int16:
		return math.MinInt16, math.MaxInt16, true
	}
	return 0, 0, false
}

func newQuantizeKernel(ni *nodeInfo) (kernel, error) {
	if !isFloatDT(ni.in(0).dt) {
		return nil, errDType("QuantizeLinear input", ni.in(0).dt)
	}
	k, err := newQuantGeometry(ni)
	if err != nil {
		return nil, err
	}
	var ok bool
	if k.lo, k.hi, ok = intRange(ni.out(0).dt); !ok {
		return nil, errDType("QuantizeLinear output", ni.out(0).dt)
	}
	return quantizeKernel{k}, nil
}

// quantizeKernel is QuantizeLinear.
type quantizeKernel struct{ *quantKernel }

func (k quantizeKernel) run(rc *runCtx, ins, outs []any) error {
	return floatIO(rc, k.quantKernel, ins, outs, quantizeRun[float32], quantizeRun[float64])
}

func quantizeRun[T floatT](_ *runCtx, k *quantKernel, ins, outs []any) error {
	quantLinear(k, outs[0], ins[0].([]T), ins[1].([]T), ins, true)
	return nil
}

// zeroPoint returns the optional zero point (input 2), or nil.
func zeroPoint[Q intT](ins []any) []Q {
	zp, _ := optIn(ins, 2).([]Q)
	return zp
}

// quantLinear converts between the integers q and the floats f with
// scales s and the zero point of ins, toward q when toInt.
func quantLinear[T floatT](k *quantKernel, q any, f, s []T, ins []any, toInt bool) {
	switch q := q.(type) {
	case []uint8:
		quantLinearQ(k, q, f, s, zeroPoint[uint8](ins), toInt)
	case []int8:
		quantLinearQ(k, q, f, s, zeroPoint[int8](ins), toInt)
	case []uint16:
		quantLinearQ(k, q, f, s, zeroPoint[uint16](ins), toInt)
	case []int16:
		quantLinearQ(k, q, f, s, zeroPoint[int16](ins), toInt)
	default:
		quantLinearQ(k, q.([]int32), f, s, zeroPoint[int32](ins), toInt)
	}
}

// quantLinearQ sets q[i] = saturate(round_half_even(f[i] / s) + zp), the
// division done in f's precision and NaN quantising to the zero point, or
// when !toInt f[i] = (q[i] - zp) * s.
func quantLinearQ[T floatT, Q intT](k *quantKernel, q []Q, f, s []T, zp []Q, toInt bool) {
	for i := range q {
		c := k.channel(i)
		z := 0.0
		if zp != nil {
			z = float64(zp[c])
		}
		if !toInt {
			f[i] = T(float64(q[i])-z) * s[c]
			continue
		}
		v := math.RoundToEven(float64(f[i] / s[c]))
		if v != v {
			v = 0
		}
		q[i] = Q(min(max(v+z, k.lo), k.hi))
	}
}

func newDequantizeKernel(ni *nodeInfo) (kernel, error) {
	if !isFloatDT(ni.out(0).dt) {
		return nil, errDType("DequantizeLinear output", ni.out(0).dt)
	}
	switch dt := ni.in(0).dt; dt {
	case graph.Uint8, graph.Int8, graph.Uint16, graph.Int16, graph.Int32:
	default:
		return nil, errDType("DequantizeLinear input", dt)
	}
	k, err := newQuantGeometry(ni)
	if err != nil {
		return nil, err
	}
	return dequantizeKernel{k}, nil
}

// dequantizeKernel is DequantizeLinear.
type dequantizeKernel struct{ *quantKernel }

func (k dequantizeKernel) run(rc *runCtx, ins, outs []any) error {
	if y, ok := outs[0].([]float32); ok {
		quantLinear(k.quantKernel, ins[0], y, ins[1].([]float32), ins, false)
	} else {
		quantLinear(k.quantKernel, ins[0], outs[0].([]float64), ins[1].([]float64), ins, false)
	}
	return nil
}

// dynQuantKernel is DynamicQuantizeLinear.
type dynQuantKernel struct{}

func newDynamicQuantizeKernel(ni *nodeInfo) (kernel, error) {
	if !isFloatDT(ni.in(0).dt) {
		return nil, errDType("DynamicQuantizeLinear", ni.in(0).dt)
	}
	return dynQuantKernel{}, nil
}

func (k dynQuantKernel) run(rc *runCtx, ins, outs []any) error {
	return floatIO(rc, k, ins, outs, dynQuantRun[float32], dynQuantRun[float64])
}

// dynQuantRun quantises x to uint8 over [min(0, min x), max(0, max x)]; an
// all-zero x has scale 0, zero point 0 and quantises to 0.
func dynQuantRun[T floatT](_ *runCtx, _ dynQuantKernel, ins, outs []any) error {
	x, y := ins[0].([]T), outs[0].([]uint8)
	var lo, hi T
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	scale := (hi - lo) / math.MaxUint8
	outs[1].([]T)[0] = scale
	zp := outs[2].([]uint8)
	if scale == 0 || scale != scale {
		zp[0] = 0
		clear(y)
		return nil
	}
	z := math.RoundToEven(min(max(float64(0-lo/scale), 0), math.MaxUint8))
	zp[0] = uint8(z)
	for i, v := range x {
		q := math.RoundToEven(float64(v/scale)) + z
		if q != q {
			q = z
		}
		y[i] = uint8(min(max(q, 0), math.MaxUint8))
	}
	return nil
}
