package graph

import (
	"fmt"
	"math"
	"reflect"
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

// FromInt32 returns an int32 tensor over data (not copied).
func FromInt32(data []int32, shape ...int) *Tensor {
	return &Tensor{DType: Int32, Shape: append([]int(nil), shape...), Data: data}
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
	if d == nil {
		return nil
	}
	v := reflect.ValueOf(d)
	if dataKinds[v.Type()] == nil {
		panic(fmt.Sprintf("graph: tensor data of unsupported Go type %T", d))
	}
	c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
	reflect.Copy(c, v)
	return c.Interface()
}

// dataKind describes one Go slice type of tensor data.
type dataKind struct {
	// toFloat64 converts the elements to float64; nil for strings and
	// complex numbers.
	toFloat64 func(out []float64, d any)
}

// numKind is the dataKind of a real numeric element type.
func numKind[T interface {
	~float32 | ~float64 | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}]() *dataKind {
	return &dataKind{toFloat64: func(out []float64, d any) {
		for i, v := range d.([]T) {
			out[i] = float64(v)
		}
	}}
}

// dataKinds holds the Go slice types that tensor data may have.
var dataKinds = map[reflect.Type]*dataKind{
	reflect.TypeFor[[]float32](): numKind[float32](), reflect.TypeFor[[]float64](): numKind[float64](),
	reflect.TypeFor[[]int64](): numKind[int64](), reflect.TypeFor[[]int32](): numKind[int32](),
	reflect.TypeFor[[]int16](): numKind[int16](), reflect.TypeFor[[]int8](): numKind[int8](),
	reflect.TypeFor[[]uint64](): numKind[uint64](), reflect.TypeFor[[]uint32](): numKind[uint32](),
	reflect.TypeFor[[]uint16](): numKind[uint16](), reflect.TypeFor[[]uint8](): numKind[uint8](),
	reflect.TypeFor[[]bool]():   {toFloat64: boolsToFloat64},
	reflect.TypeFor[[]string](): {}, reflect.TypeFor[[]complex64](): {}, reflect.TypeFor[[]complex128](): {},
}

func boolsToFloat64(out []float64, d any) {
	for i, v := range d.([]bool) {
		if v {
			out[i] = 1
		}
	}
}

// AsFloat64 returns the elements of a numeric tensor converted to float64.
// It returns an error for string, complex, packed and 16/8-bit float types.
func (t *Tensor) AsFloat64() ([]float64, error) {
	k := dataKinds[reflect.TypeOf(t.Data)]
	// 16- and 8-bit floats are stored as uint16 and uint8 bits.
	packed := isData[uint8](t.Data) && t.DType != Uint8 || isData[uint16](t.Data) && t.DType != Uint16
	if k == nil || k.toFloat64 == nil || packed {
		return nil, fmt.Errorf("tensor of %v cannot be read as numbers", t.DType)
	}
	out := make([]float64, t.Len())
	k.toFloat64(out, t.Data)
	return out, nil
}

// isData reports whether d is a []T.
func isData[T any](d any) bool {
	_, ok := d.([]T)
	return ok
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
		return slices.EqualFunc(x, b.Data.([]float32), func(p, q float32) bool { return math.Float32bits(p) == math.Float32bits(q) })
	case []float64:
		return slices.EqualFunc(x, b.Data.([]float64), func(p, q float64) bool { return math.Float64bits(p) == math.Float64bits(q) })
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
	if d == nil {
		return 0
	}
	v := reflect.ValueOf(d)
	if dataKinds[v.Type()] == nil {
		return -1
	}
	return v.Len()
}
