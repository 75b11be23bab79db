package graph

import "math"

// Small constant propagation used by shape inference: when every input of
// a shape-computing op is a constant or has a Known value, the op's result
// is computed and stored in Value.Known so that later Reshape, Expand,
// Slice ... nodes can read it. Only small tensors of plain numeric types
// take part.

// maxKnownElems bounds the size of tensors computed during inference.
const maxKnownElems = 64

// knownDType reports whether tensors of dt take part in propagation.
func knownDType(dt DType) bool {
	switch dt {
	case Int64, Int32, Float32, Float64, Bool:
		return true
	}
	return false
}

// knownInputs returns the values of n's present inputs, or nil when any is
// unknown, of an unsupported dtype, or too large.
func knownInputs(n *Node) []*Tensor {
	ts := make([]*Tensor, len(n.Inputs))
	for i, in := range n.Inputs {
		if in == nil {
			continue
		}
		t := valueOf(in)
		if t == nil || !knownDType(t.DType) || t.Len() > maxKnownElems {
			return nil
		}
		ts[i] = t
	}
	return ts
}

// allKnown reports cheaply whether every present input has a value.
func allKnown(n *Node) bool {
	for _, in := range n.Inputs {
		if in != nil && valueOf(in) == nil {
			return false
		}
	}
	return true
}

// smallOut reports whether output shape s is small enough to compute.
func smallOut(s Shape) bool { return numel(s) <= maxKnownElems }

// reshaped returns t's data under a new shape (sharing the data).
func reshaped(t *Tensor, s Shape) *Tensor {
	return &Tensor{DType: t.DType, Shape: dimsOf(s), Data: t.Data}
}

func take[T any](d []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = d[j]
	}
	return out
}

// takeElems returns a tensor of shape s whose element i is data[idx[i]].
func takeElems(dt DType, data any, idx []int, s Shape) *Tensor {
	var out any
	switch d := data.(type) {
	case []int64:
		out = take(d, idx)
	case []int32:
		out = take(d, idx)
	case []float32:
		out = take(d, idx)
	case []float64:
		out = take(d, idx)
	case []bool:
		out = take(d, idx)
	default:
		return nil
	}
	return &Tensor{DType: dt, Shape: dimsOf(s), Data: out}
}

func appendAll[T any](ts []*Tensor) []T {
	var out []T
	for _, t := range ts {
		if t != nil {
			out = append(out, t.Data.([]T)...)
		}
	}
	return out
}

// concatData appends the data of same-typed tensors.
func concatData(ts []*Tensor) any {
	var first *Tensor
	for _, t := range ts {
		if t != nil {
			first = t
			break
		}
	}
	if first == nil {
		return nil
	}
	for _, t := range ts {
		if t != nil && t.DType != first.DType {
			return nil
		}
	}
	switch first.Data.(type) {
	case []int64:
		return appendAll[int64](ts)
	case []int32:
		return appendAll[int32](ts)
	case []float32:
		return appendAll[float32](ts)
	case []float64:
		return appendAll[float64](ts)
	case []bool:
		return appendAll[bool](ts)
	}
	return nil
}

// strides returns row-major strides of a static shape.
func strides(s []int) []int {
	st := make([]int, len(s))
	acc := 1
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= s[i]
	}
	return st
}

// bcastIndex maps every flat index of out to the flat index of the element
// of an input of shape in (right-aligned numpy broadcasting).
func bcastIndex(out, in []int) []int {
	ist := strides(in)
	off := len(out) - len(in)
	return walkIndex(out, func(coord []int) int {
		j := 0
		for a := off; a < len(out); a++ {
			if in[a-off] != 1 {
				j += coord[a] * ist[a-off]
			}
		}
		return j
	})
}

// walkIndex walks the coordinates of shape dims in row-major order and
// returns src(coord) for each: the flat index of the element that lands
// at that position.
func walkIndex(dims []int, src func(coord []int) int) []int {
	idx := make([]int, NumElements(dims))
	coord := make([]int, len(dims))
	for k := range idx {
		idx[k] = src(coord)
		for a := len(dims) - 1; a >= 0; a-- {
			coord[a]++
			if coord[a] < dims[a] {
				break
			}
			coord[a] = 0
		}
	}
	return idx
}

// foldElementwise computes a variadic elementwise op on known inputs.
// It returns nil when the result cannot be computed (unsupported type,
// integer division by zero).
func foldElementwise(op BinaryOp, outDT DType, outShape Shape, ins []*Tensor) *Tensor {
	if !smallOut(outShape) || !knownDType(outDT) {
		return nil
	}
	out := dimsOf(outShape)
	var ts []*Tensor
	for _, t := range ins {
		if t != nil {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return nil
	}
	if ts[0].DType.IsFloat() {
		acc := foldInto(op, out, ts, (*Tensor).AsFloat64)
		if acc == nil {
			return nil
		}
		return tensorFromFloat64(outDT, out, acc)
	}
	acc := foldInto(op, out, ts, (*Tensor).AsInt64)
	if acc == nil {
		return nil
	}
	return tensorFromInt64(outDT, out, acc)
}

// foldInto folds op over the tensors ts, each read by values and
// broadcast to shape out, left to right. It returns nil when a tensor
// cannot be read, or for an integer division by zero (left to run time).
func foldInto[T int64 | float64](op BinaryOp, out []int, ts []*Tensor, values func(*Tensor) ([]T, error)) []T {
	acc := make([]T, NumElements(out))
	for k, t := range ts {
		v, err := values(t)
		if err != nil {
			return nil
		}
		idx := bcastIndex(out, t.Shape)
		for i := range acc {
			x := v[idx[i]]
			if k == 0 {
				acc[i] = x
				continue
			}
			if op == BinDiv && x == 0 && IsIntegral[T]() {
				return nil
			}
			acc[i] = ApplyBinary(op, acc[i], x)
		}
	}
	return acc
}

// tensorFromInt64 converts int64 results to a tensor of dt.
func tensorFromInt64(dt DType, shape []int, v []int64) *Tensor { return tensorOfNumbers(dt, shape, v) }

// tensorFromFloat64 converts float64 results to a tensor of dt (integer
// targets truncate toward zero; NaN and infinities have no integer value).
func tensorFromFloat64(dt DType, shape []int, v []float64) *Tensor {
	if dt != Int64 && dt != Int32 {
		return tensorOfNumbers(dt, shape, v)
	}
	iv := make([]int64, len(v))
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		iv[i] = int64(x)
	}
	return tensorOfNumbers(dt, shape, iv)
}

// tensorOfNumbers converts v to a tensor of dt: Int64, Int32, Bool (non-
// zero is true), Float32 or Float64; nil for other dtypes.
func tensorOfNumbers[S int64 | float64](dt DType, shape []int, v []S) *Tensor {
	var data any
	switch dt {
	case Int64:
		data = convertNumbers[int64](v)
	case Int32:
		data = convertNumbers[int32](v)
	case Float32:
		data = convertNumbers[float32](v)
	case Float64:
		data = convertNumbers[float64](v)
	case Bool:
		b := make([]bool, len(v))
		for i, x := range v {
			b[i] = x != 0
		}
		data = b
	default:
		return nil
	}
	return &Tensor{DType: dt, Shape: shape, Data: data}
}

// convertNumbers returns v converted element by element to D.
func convertNumbers[D, S int32 | int64 | float32 | float64](v []S) []D {
	out := make([]D, len(v))
	for i, x := range v {
		out[i] = D(x)
	}
	return out
}

// castTensor converts a known tensor to dtype to.
func castTensor(t *Tensor, to DType) *Tensor {
	if !knownDType(to) || !knownDType(t.DType) {
		return nil
	}
	if t.DType.IsFloat() {
		v, err := t.AsFloat64()
		if err != nil {
			return nil
		}
		return tensorFromFloat64(to, append([]int(nil), t.Shape...), v)
	}
	v, err := t.AsInt64()
	if err != nil {
		return nil
	}
	return tensorFromInt64(to, append([]int(nil), t.Shape...), v)
}
