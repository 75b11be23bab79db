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
	if s, ok := src.([]bool); ok {
		// A bool is stored as the byte 0 or 1, which casts alike.
		castFrom[uint8](dst, words[uint8](s))
		return
	}
	f, err := castFroms.forDT("cast", dtOfData(src))
	if err != nil {
		panic(fmt.Sprintf("executor: %v", err))
	}
	f(dst, src)
}

var castFroms = numFns[func(dst, src any)]{
	castFrom[float32], castFrom[float64], castFrom[int64], castFrom[int32], castFrom[int16],
	castFrom[int8], castFrom[uint64], castFrom[uint32], castFrom[uint16], castFrom[uint8],
}

func castFrom[S numT](dst, srcData any) {
	src := srcData.([]S)
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

// toExec returns t converted to dtype dt (a no-op when it already has it).
func toExec(t *graph.Tensor, dt graph.DType) *graph.Tensor {
	if t.DType == dt {
		return t
	}
	out := &graph.Tensor{DType: dt, Shape: append([]int(nil), t.Shape...), Data: makeData(dt, t.Len())}
	src, ok1 := t.Data.([]float32)
	dst, ok2 := out.Data.([]float64)
	if ok1 && ok2 && len(src) >= parallelCastLen {
		// A model's weights widened for a float64 run (the checks of
		// passes and rules): ViT-B/16's 86M took 0.2 s a compilation on
		// one core, several compilations a pass check.
		parallelFor(NumCPU(), len(src), 1, func(lo, hi int) { castNum(dst[lo:hi], src[lo:hi]) })
		return out
	}
	castData(out.Data, t.Data)
	return out
}

// parallelCastLen is the length from which toExec widens float32 data to
// float64 on every core.
const parallelCastLen = 1 << 16

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
