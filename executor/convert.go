package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// castData converts every element of src into dst (same length, any two
// supported element types) with ONNX Cast semantics: floats to integers
// truncate toward zero, numbers to bool test for non-zero, bool to numbers
// gives 0 or 1.
func castData(dst, src any) {
	switch s := src.(type) {
	case []float32:
		castFrom(dst, s)
	case []float64:
		castFrom(dst, s)
	case []int64:
		castFrom(dst, s)
	case []int32:
		castFrom(dst, s)
	case []int16:
		castFrom(dst, s)
	case []int8:
		castFrom(dst, s)
	case []uint64:
		castFrom(dst, s)
	case []uint32:
		castFrom(dst, s)
	case []uint16:
		castFrom(dst, s)
	case []uint8:
		castFrom(dst, s)
	case []bool:
		castFromBool(dst, s)
	default:
		panic(fmt.Sprintf("runtime: cast from unsupported slice type %T", src))
	}
}

func castFrom[S numT](dst any, src []S) {
	switch d := dst.(type) {
	case []float32:
		castNum(d, src)
	case []float64:
		castNum(d, src)
	case []int64:
		castNum(d, src)
	case []int32:
		castNum(d, src)
	case []int16:
		castNum(d, src)
	case []int8:
		castNum(d, src)
	case []uint64:
		castNum(d, src)
	case []uint32:
		castNum(d, src)
	case []uint16:
		castNum(d, src)
	case []uint8:
		castNum(d, src)
	case []bool:
		for i, v := range src {
			d[i] = v != 0
		}
	default:
		panic(fmt.Sprintf("runtime: cast to unsupported slice type %T", dst))
	}
}

func castNum[D, S numT](dst []D, src []S) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = D(v)
	}
}

func castFromBool(dst any, src []bool) {
	switch d := dst.(type) {
	case []float32:
		boolTo(d, src)
	case []float64:
		boolTo(d, src)
	case []int64:
		boolTo(d, src)
	case []int32:
		boolTo(d, src)
	case []int16:
		boolTo(d, src)
	case []int8:
		boolTo(d, src)
	case []uint64:
		boolTo(d, src)
	case []uint32:
		boolTo(d, src)
	case []uint16:
		boolTo(d, src)
	case []uint8:
		boolTo(d, src)
	case []bool:
		copy(d, src)
	default:
		panic(fmt.Sprintf("runtime: cast to unsupported slice type %T", dst))
	}
}

func boolTo[D numT](dst []D, src []bool) {
	dst = dst[:len(src)]
	for i, v := range src {
		if v {
			dst[i] = 1
		} else {
			dst[i] = 0
		}
	}
}

// toExec returns t converted to dtype dt (a no-op when it already has it).
func toExec(t *graph.Tensor, dt graph.DType) *graph.Tensor {
	if t.DType == dt {
		return t
	}
	out := &graph.Tensor{DType: dt, Shape: append([]int(nil), t.Shape...), Data: makeData(dt, t.Len())}
	castData(out.Data, t.Data)
	return out
}

// checkTensorData reports a tensor whose Data does not match its dtype and
// shape.
func checkTensorData(t *graph.Tensor) error {
	if !SupportsDType(t.DType) {
		return fmt.Errorf("dtype %v is not supported by the Go executor", t.DType)
	}
	want := graph.NumElements(t.Shape)
	for _, d := range t.Shape {
		if d < 0 {
			return fmt.Errorf("negative dimension in shape %v", t.Shape)
		}
	}
	ok := dtOfData(t.Data) == t.DType
	n := graph.DataLen(t.Data)
	if !ok {
		return fmt.Errorf("tensor data of Go type %T does not match dtype %v", t.Data, t.DType)
	}
	if n != want {
		return fmt.Errorf("tensor data has %d elements, shape %v needs %d", n, t.Shape, want)
	}
	return nil
}
