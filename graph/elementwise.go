package graph

import (
	"fmt"
	"math"
)

// BinaryOp names the function of a binary elementwise op (the Binary
// field of its schema row). ApplyBinary defines its semantics once:
// constant folding during shape inference and the Go executor's kernels
// both use it.
type BinaryOp uint8

// The binary operations.
const (
	// BinNone marks an op that is not a binary elementwise function.
	BinNone BinaryOp = iota
	BinAdd
	BinSub
	BinMul
	BinDiv
	BinPow
	BinMax
	BinMin
	// The comparisons and the logic ops give truth values (1 or 0).
	BinEqual
	BinGreater
	BinLess
	BinGreaterOrEqual
	BinLessOrEqual
	BinAnd
	BinOr
	BinXor
	// BinPRelu is a if a >= 0, else b*a (b is the slope).
	BinPRelu
)

// Compares reports whether op is an ordered comparison (Greater, Less,
// GreaterOrEqual, LessOrEqual).
func (op BinaryOp) Compares() bool { return op >= BinGreater && op <= BinLessOrEqual }

// Logic reports whether op is a logic op (And, Or, Xor) of truth values.
func (op BinaryOp) Logic() bool { return op >= BinAnd && op <= BinXor }

// Number is the element types elementwise arithmetic is defined on.
type Number interface {
	~float32 | ~float64 | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// ApplyBinary returns op(a, b): Div as DivZero, Max and Min as MaxNaN and
// MinNaN, Pow as Pow, PRelu as PRelu, the comparisons and logic ops as 1
// or 0 (a non-zero operand is true). It panics on BinNone.
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
	case BinPow:
		return Pow(a, b)
	case BinMax:
		return MaxNaN(a, b)
	case BinMin:
		return MinNaN(a, b)
	case BinEqual:
		return truth[T](a == b)
	case BinGreater:
		return truth[T](a > b)
	case BinLess:
		return truth[T](a < b)
	case BinGreaterOrEqual:
		return truth[T](a >= b)
	case BinLessOrEqual:
		return truth[T](a <= b)
	case BinAnd:
		return truth[T](a != 0 && b != 0)
	case BinOr:
		return truth[T](a != 0 || b != 0)
	case BinXor:
		return truth[T]((a != 0) != (b != 0))
	case BinPRelu:
		return PRelu(a, b)
	}
	panic(fmt.Sprintf("graph: ApplyBinary of binary op %d", op))
}

// truth returns 1 for true and 0 for false.
func truth[T Number](b bool) T {
	if b {
		return 1
	}
	return 0
}

// PRelu is x, or slope*x when x is negative.
func PRelu[T Number](x, slope T) T {
	if x < 0 {
		return slope * x
	}
	return x
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
