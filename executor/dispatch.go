package executor

import (
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// numFns holds the instantiations of one generic kernel function for the
// numeric element types, in the order of numDTypes: float32, float64,
// int64, int32, int16, int8, uint64, uint32, uint16, uint8. A kernel that
// supports fewer types lists a prefix (the floats; the floats and the
// 64- and 32-bit signed integers). A kernel picks its instantiation once,
// when it is compiled, so that running it needs no type switch.
type numFns[F any] []F

// numDTypes is the dtype of each position of a numFns.
var numDTypes = [...]graph.DType{
	graph.Float32, graph.Float64, graph.Int64, graph.Int32, graph.Int16,
	graph.Int8, graph.Uint64, graph.Uint32, graph.Uint16, graph.Uint8,
}

// forDT returns the instantiation for dt, or an error naming what (the op
// or kernel) when dt has none.
func (fs numFns[F]) forDT(what string, dt graph.DType) (F, error) {
	if i := slices.Index(numDTypes[:], dt); i >= 0 && i < len(fs) {
		return fs[i], nil
	}
	var zero F
	return zero, errDType(what, dt)
}

// aroundAxis returns the products of shape's dims before and after axis
// ax: a tensor viewed as [outer, shape[ax], inner].
func aroundAxis(shape []int, ax int) (outer, inner int) {
	outer, inner = 1, 1
	for _, d := range shape[:ax] {
		outer *= d
	}
	for _, d := range shape[ax+1:] {
		inner *= d
	}
	return outer, inner
}

// axisLines is the geometry of a kernel that works along one axis: a
// tensor viewed as [outer, n, inner], each of the outer*inner lines n
// elements long. Such kernels may run in place.
type axisLines struct{ outer, n, inner int }

// linesAround returns the geometry of shape around axis ax.
func linesAround(shape []int, ax int) axisLines {
	outer, inner := aroundAxis(shape, ax)
	return axisLines{outer: outer, n: shape[ax], inner: inner}
}

func (axisLines) inPlace() []int { return []int{0} }

// floatYX runs the float32 or float64 instantiation of a kernel body on
// output y and input x, chosen by x's element type (compile admitted only
// the floats).
func floatYX[K any](rc *runCtx, k K, y, x any, f32 func(*runCtx, K, []float32, []float32), f64 func(*runCtx, K, []float64, []float64)) {
	if x32, ok := x.([]float32); ok {
		f32(rc, k, y.([]float32), x32)
		return
	}
	f64(rc, k, y.([]float64), x.([]float64))
}

// floatIO runs the float32 or float64 instantiation of a kernel body that
// reads its typed operands itself, chosen by the first input's element
// type.
func floatIO[K any](rc *runCtx, k K, ins, outs []any, f32, f64 func(*runCtx, K, []any, []any) error) error {
	if _, ok := ins[0].([]float32); ok {
		return f32(rc, k, ins, outs)
	}
	return f64(rc, k, ins, outs)
}

// floatXWB runs the float32 or float64 instance of a kernel whose operands are
// y = outs[0], x = ins[0], w = ins[1] and an optional bias ins[2] (nil when absent).
func floatXWB[K any](rc *runCtx, k K, ins, outs []any,
	f32 func(*runCtx, K, []float32, []float32, []float32, []float32),
	f64 func(*runCtx, K, []float64, []float64, []float64, []float64)) error {
	if _, ok := ins[0].([]float32); ok {
		xwbCall(rc, k, ins, outs, f32)
	} else {
		xwbCall(rc, k, ins, outs, f64)
	}
	return nil
}

func xwbCall[T floatT, K any](rc *runCtx, k K, ins, outs []any, run func(*runCtx, K, []T, []T, []T, []T)) {
	b, _ := optIn(ins, 2).([]T)
	run(rc, k, outs[0].([]T), ins[0].([]T), ins[1].([]T), b)
}

// floatAxisInput returns input 0 of a kernel of op that needs a float input
// and its "axis" attribute, normalised.
func floatAxisInput(ni *nodeInfo, op string) (in *valInfo, axis int, err error) {
	in = ni.in(0)
	if !isFloatDT(in.dt) {
		return nil, 0, errDType(op, in.dt)
	}
	axis, err = graph.NormAxis(ni.node.AttrInt("axis"), len(in.shape))
	if err != nil {
		return nil, 0, err
	}
	return in, axis, nil
}

// floatCAB runs the float32 or float64 instantiation of a kernel body
// c = f(a, b), chosen by a's element type.
func floatCAB[K any](rc *runCtx, k K, c, a, b any, f32 func(*runCtx, K, []float32, []float32, []float32), f64 func(*runCtx, K, []float64, []float64, []float64)) {
	if a32, ok := a.([]float32); ok {
		f32(rc, k, c.([]float32), a32, b.([]float32))
		return
	}
	f64(rc, k, c.([]float64), a.([]float64), b.([]float64))
}
