package graph

import "math"

// BinaryOp names an elementwise binary operation. ApplyBinary defines its
// semantics once: constant folding during shape inference and the Go
// executor's kernels both use it.
type BinaryOp uint8

// The binary operations.
const (
	BinAdd BinaryOp = iota
	BinSub
	BinMul
	BinDiv
	BinPow
	BinMax
	BinMin
	BinEqual
)

// Number is the element types elementwise arithmetic is defined on.
type Number interface {
	~float32 | ~float64 | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// ApplyBinary returns op(a, b): Div as DivZero, Max and Min as MaxNaN and
// MinNaN, Pow as Pow, Equal as 1 or 0.
func ApplyBinary[T Number](op BinaryOp, a, b T) T {
	switch op {
	case BinAdd:
		return a + b
	case BinSub:
		return a - b
	case BinMul:
		return a * b
	case BinDiv:
		return DivZero(a, b)
	case BinMax:
		return MaxNaN(a, b)
	case BinMin:
		return MinNaN(a, b)
	case BinEqual:
		if a == b {
			return 1
		}
		return 0
	}
	return Pow(a, b)
}

// IsIntegral reports whether T is an integer type.
func IsIntegral[T Number]() bool {
	var one T = 1
	return one/2 == 0
}

// DivZero divides; integer division by zero gives 0 instead of a panic
// (ONNX leaves it undefined).
func DivZero[T Number](a, b T) T {
	if IsIntegral[T]() && b == 0 {
		return 0
	}
	return a / b
}

// MaxNaN is the larger of a and b, NaN when either is NaN (numpy's
// maximum).
func MaxNaN[T Number](a, b T) T {
	if a != a || a > b {
		return a
	}
	return b
}

// MinNaN is the smaller of a and b, NaN when either is NaN (numpy's
// minimum).
func MinNaN[T Number](a, b T) T {
	if a != a || a < b {
		return a
	}
	return b
}

// Pow is a raised to b, computed in float64.
func Pow[T Number](a, b T) T {
	return T(math.Pow(float64(a), float64(b)))
}
