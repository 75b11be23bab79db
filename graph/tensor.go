package graph

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"
)

// Tensor is a dense constant with a concrete shape. Data holds a Go slice
// whose element type depends on DType:
//
//	Float32 []float32   Float64 []float64   Int64 []int64    Int32 []int32
//	Int16   []int16     Int8    []int8      Uint8 []uint8    Uint16 []uint16
//	Uint32  []uint32    Uint64  []uint64    Bool  []bool     String []string
//	Complex64 []complex64                   Complex128 []complex128
//	Float16, BFloat16            []uint16 holding the IEEE/bfloat16 bit patterns
//	Float8 variants              []uint8 holding the bit patterns
//	Uint4, Int4                  []uint8 packed two elements per byte (low nibble first)
//
// The slice length equals the product of Shape (a scalar has Shape nil and
// one element), except for the packed 4-bit types.
type Tensor struct {
	DType DType
	Shape []int
	Data  any

	digest atomic.Pointer[Hash] // cached Digest; tensors in graphs are immutable
}

// NumElements returns the product of the dimensions of shape (1 for a scalar).
func NumElements(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Len returns the number of elements of t.
func (t *Tensor) Len() int { return NumElements(t.Shape) }

// NewTensor returns a zero-filled tensor of the given type and shape.
func NewTensor(dt DType, shape ...int) *Tensor {
	n := NumElements(shape)
	return &Tensor{DType: dt, Shape: append([]int(nil), shape...), Data: MakeSlice(dt, n)}
}

// MakeSlice returns a zeroed slice of n elements of the Go type used for dt.
func MakeSlice(dt DType, n int) any {
	switch dt {
	case Float32:
		return make([]float32, n)
	case Float64:
		return make([]float64, n)
	case Int64:
		return make([]int64, n)
	case Int32:
		return make([]int32, n)
	case Int16:
		return make([]int16, n)
	case Int8:
		return make([]int8, n)
	case Uint8, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ:
		return make([]uint8, n)
	case Uint16, Float16, BFloat16:
		return make([]uint16, n)
	case Uint32:
		return make([]uint32, n)
	case Uint64:
		return make([]uint64, n)
	case Bool:
		return make([]bool, n)
	case String:
		return make([]string, n)
	case Complex64:
		return make([]complex64, n)
	case Complex128:
		return make([]complex128, n)
	case Uint4, Int4:
		return make([]uint8, (n+1)/2)
	}
	panic(fmt.Sprintf("graph.MakeSlice: unsupported dtype %v", dt))
}

// FromFloat32 returns a float32 tensor over data (not copied).
func FromFloat32(data []float32, shape ...int) *Tensor {
	return &Tensor{DType: Float32, Shape: append([]int(nil), shape...), Data: data}
}

// FromFloat64 returns a float64 tensor over data (not copied).
func FromFloat64(data []float64, shape ...int) *Tensor {
	return &Tensor{DType: Float64, Shape: append([]int(nil), shape...), Data: data}
}

// FromInt64 returns an int64 tensor over data (not copied).
func FromInt64(data []int64, shape ...int) *Tensor {
	return &Tensor{DType: Int64, Shape: append([]int(nil), shape...), Data: data}
}

// Float32s returns the data of a float32 tensor.
func (t *Tensor) Float32s() []float32 { return t.Data.([]float32) }

// Float64s returns the data of a float64 tensor.
func (t *Tensor) Float64s() []float64 { return t.Data.([]float64) }

// Int64s returns the data of an int64 tensor.
func (t *Tensor) Int64s() []int64 { return t.Data.([]int64) }

// Clone returns a deep copy of t.
func (t *Tensor) Clone() *Tensor {
	if t == nil {
		return nil
	}
	return &Tensor{DType: t.DType, Shape: append([]int(nil), t.Shape...), Data: cloneSlice(t.Data)}
}

func cloneSlice(d any) any {
	switch s := d.(type) {
	case []float32:
		return append([]float32(nil), s...)
	case []float64:
		return append([]float64(nil), s...)
	case []int64:
		return append([]int64(nil), s...)
	case []int32:
		return append([]int32(nil), s...)
	case []int16:
		return append([]int16(nil), s...)
	case []int8:
		return append([]int8(nil), s...)
	case []uint8:
		return append([]uint8(nil), s...)
	case []uint16:
		return append([]uint16(nil), s...)
	case []uint32:
		return append([]uint32(nil), s...)
	case []uint64:
		return append([]uint64(nil), s...)
	case []bool:
		return append([]bool(nil), s...)
	case []string:
		return append([]string(nil), s...)
	case []complex64:
		return append([]complex64(nil), s...)
	case []complex128:
		return append([]complex128(nil), s...)
	case nil:
		return nil
	}
	panic(fmt.Sprintf("graph: tensor data of unsupported Go type %T", d))
}

// AsFloat64 returns the elements of a numeric tensor converted to float64.
// It returns an error for string, complex, packed and 16/8-bit float types.
func (t *Tensor) AsFloat64() ([]float64, error) {
	n := t.Len()
	out := make([]float64, n)
	switch s := t.Data.(type) {
	case []float32:
		for i, v := range s {
			out[i] = float64(v)
		}
	case []float64:
		copy(out, s)
	case []int64:
		for i, v := range s {
			out[i] = float64(v)
		}
	case []int32:
		for i, v := range s {
			out[i] = float64(v)
		}
	case []int16:
		for i, v := range s {
			out[i] = float64(v)
		}
	case []int8:
		for i, v := range s {
			out[i] = float64(v)
		}
	case []bool:
		for i, v := range s {
			if v {
				out[i] = 1
			}
		}
	case []uint8:
		if t.DType != Uint8 {
			return nil, fmt.Errorf("tensor of %v cannot be read as numbers", t.DType)
		}
		for i, v := range s {
			out[i] = float64(v)
		}
	case []uint16:
		if t.DType != Uint16 {
			return nil, fmt.Errorf("tensor of %v cannot be read as numbers", t.DType)
		}
		for i, v := range s {
			out[i] = float64(v)
		}
	case []uint32:
		for i, v := range s {
			out[i] = float64(v)
		}
	case []uint64:
		for i, v := range s {
			out[i] = float64(v)
		}
	default:
		return nil, fmt.Errorf("tensor of %v cannot be read as numbers", t.DType)
	}
	return out, nil
}

// AsInt64 returns the elements of an integer (or bool) tensor as int64.
func (t *Tensor) AsInt64() ([]int64, error) {
	if !t.DType.IsInt() && t.DType != Bool {
		return nil, fmt.Errorf("tensor of %v is not an integer tensor", t.DType)
	}
	f, err := t.AsFloat64()
	if err != nil {
		return nil, err
	}
	if s, ok := t.Data.([]int64); ok {
		return append([]int64(nil), s...), nil
	}
	out := make([]int64, len(f))
	for i, v := range f {
		out[i] = int64(v)
	}
	return out, nil
}

// Equal reports whether a and b have the same dtype, shape and bit-identical
// elements (NaNs with equal bits compare equal).
func (a *Tensor) Equal(b *Tensor) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.DType != b.DType || !slices.Equal(a.Shape, b.Shape) {
		return false
	}
	switch x := a.Data.(type) {
	case []float32:
		y := b.Data.([]float32)
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				return false
			}
		}
		return true
	case []float64:
		y := b.Data.([]float64)
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	return a.Digest() == b.Digest()
}

// String returns a short description such as "float32[2x3]".
func (t *Tensor) String() string {
	return fmt.Sprintf("%v[%s]", t.DType, ShapeString(t.Shape))
}

// ShapeString formats a concrete shape as "2x3x4" ("scalar" for rank 0).
func ShapeString(shape []int) string {
	if len(shape) == 0 {
		return "scalar"
	}
	s := ""
	for i, d := range shape {
		if i > 0 {
			s += "x"
		}
		s += fmt.Sprint(d)
	}
	return s
}

// DataLen returns the length of a tensor data slice, or -1 if d is not a
// slice type the IR uses.
func DataLen(d any) int {
	switch s := d.(type) {
	case []float32:
		return len(s)
	case []float64:
		return len(s)
	case []int64:
		return len(s)
	case []int32:
		return len(s)
	case []int16:
		return len(s)
	case []int8:
		return len(s)
	case []uint8:
		return len(s)
	case []uint16:
		return len(s)
	case []uint32:
		return len(s)
	case []uint64:
		return len(s)
	case []bool:
		return len(s)
	case []string:
		return len(s)
	case []complex64:
		return len(s)
	case []complex128:
		return len(s)
	case nil:
		return 0
	}
	return -1
}
