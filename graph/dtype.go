package graph

import "fmt"

// DType is a tensor element type. The numeric values equal ONNX's
// TensorProto.DataType so that the codec converts them by a plain cast.
type DType int32

// Element types, numbered as in ONNX.
const (
	Undefined      DType = 0
	Float32        DType = 1
	Uint8          DType = 2
	Int8           DType = 3
	Uint16         DType = 4
	Int16          DType = 5
	Int32          DType = 6
	Int64          DType = 7
	String         DType = 8
	Bool           DType = 9
	Float16        DType = 10
	Float64        DType = 11
	Uint32         DType = 12
	Uint64         DType = 13
	Complex64      DType = 14
	Complex128     DType = 15
	BFloat16       DType = 16
	Float8E4M3FN   DType = 17
	Float8E4M3FNUZ DType = 18
	Float8E5M2     DType = 19
	Float8E5M2FNUZ DType = 20
	Uint4          DType = 21
	Int4           DType = 22
)

var dtypeNames = map[DType]string{
	Undefined: "undefined", Float32: "float32", Uint8: "uint8", Int8: "int8",
	Uint16: "uint16", Int16: "int16", Int32: "int32", Int64: "int64",
	String: "string", Bool: "bool", Float16: "float16", Float64: "float64",
	Uint32: "uint32", Uint64: "uint64", Complex64: "complex64",
	Complex128: "complex128", BFloat16: "bfloat16",
	Float8E4M3FN: "float8e4m3fn", Float8E4M3FNUZ: "float8e4m3fnuz",
	Float8E5M2: "float8e5m2", Float8E5M2FNUZ: "float8e5m2fnuz",
	Uint4: "uint4", Int4: "int4",
}

// String returns the lower-case name of the type, e.g. "float32".
func (d DType) String() string {
	if s, ok := dtypeNames[d]; ok {
		return s
	}
	return fmt.Sprintf("dtype(%d)", int32(d))
}

// Valid reports whether d is one of the element types ONNX defines.
func (d DType) Valid() bool {
	_, ok := dtypeNames[d]
	return ok && d != Undefined
}

// ParseDType returns the DType with the given name (as printed by String).
func ParseDType(s string) (DType, error) {
	for d, n := range dtypeNames {
		if n == s && d != Undefined {
			return d, nil
		}
	}
	return Undefined, fmt.Errorf("unknown dtype %q", s)
}

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool {
	switch d {
	case Float32, Float64, Float16, BFloat16, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ:
		return true
	}
	return false
}

// IsInt reports whether d is a (signed or unsigned) integer type.
func (d DType) IsInt() bool {
	switch d {
	case Uint8, Int8, Uint16, Int16, Int32, Int64, Uint32, Uint64, Uint4, Int4:
		return true
	}
	return false
}

// Size returns the size in bytes of one element as stored in ONNX raw_data,
// or 0 for types without a fixed byte size (string, 4-bit types).
func (d DType) Size() int {
	switch d {
	case Bool, Uint8, Int8, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ:
		return 1
	case Uint16, Int16, Float16, BFloat16:
		return 2
	case Float32, Int32, Uint32:
		return 4
	case Float64, Int64, Uint64, Complex64:
		return 8
	case Complex128:
		return 16
	}
	return 0
}
