package ort

import (
	"fmt"

	ortgo "github.com/yalue/onnxruntime_go"

	"github.com/xrl-dev/xrl/graph"
)

func ortShape(shape []int) ortgo.Shape {
	s := make(ortgo.Shape, len(shape))
	for i, d := range shape {
		s[i] = int64(d)
	}
	return s
}

func newORT[T ortgo.TensorData](shape []int, data []T) (ortgo.Value, error) {
	// ONNX Runtime reads the Go slice in place; copy so that the caller's
	// tensor may be reused or changed.
	return ortgo.NewTensor(ortShape(shape), append([]T(nil), data...))
}

// toORT copies a graph tensor into a new ONNX Runtime tensor.
func toORT(t *graph.Tensor) (ortgo.Value, error) {
	if len(t.Shape) == 0 {
		return newScalar(t)
	}
	switch d := t.Data.(type) {
	case []float32:
		return newORT(t.Shape, d)
	case []float64:
		return newORT(t.Shape, d)
	case []int64:
		return newORT(t.Shape, d)
	case []int32:
		return newORT(t.Shape, d)
	case []int16:
		return newORT(t.Shape, d)
	case []int8:
		return newORT(t.Shape, d)
	case []bool:
		return newORT(t.Shape, d)
	case []uint32:
		return newORT(t.Shape, d)
	case []uint64:
		return newORT(t.Shape, d)
	case []uint8:
		if t.DType == graph.Uint8 {
			return newORT(t.Shape, d)
		}
	case []uint16:
		if t.DType == graph.Uint16 {
			return newORT(t.Shape, d)
		}
	}
	return nil, fmt.Errorf("%v tensors are not supported by the ort backend", t.DType)
}

func intsOf(s ortgo.Shape) []int {
	out := make([]int, len(s))
	for i, d := range s {
		out[i] = int(d)
	}
	return out
}

func fromTyped[T any](dt graph.DType, shape ortgo.Shape, data []T) *graph.Tensor {
	return &graph.Tensor{DType: dt, Shape: intsOf(shape), Data: append([]T(nil), data...)}
}

// fromORT copies an ONNX Runtime output into a graph tensor.
func fromORT(v ortgo.Value) (*graph.Tensor, error) {
	if t, ok := fromORTScalar(v); ok {
		return t, nil
	}
	switch t := v.(type) {
	case *ortgo.Tensor[float32]:
		return fromTyped(graph.Float32, t.GetShape(), t.GetData()), nil
	case *ortgo.Tensor[float64]:
		return fromTyped(graph.Float64, t.GetShape(), t.GetData()), nil
	case *ortgo.Tensor[int64]:
		return fromTyped(graph.Int64, t.GetShape(), t.GetData()), nil
	case *ortgo.Tensor[int32]:
		return fromTyped(graph.Int32, t.GetShape(), t.GetData()), nil
	case *ortgo.Tensor[int16]:
		return fromTyped(graph.Int16, t.GetShape(), t.GetData()), nil
	case *ortgo.Tensor[int8]:
		return fromTyped(graph.Int8, t.GetShape(), t.GetData()), nil
	case *ortgo.Tensor[uint8]:
		return fromTyped(graph.Uint8, t.GetShape(), t.GetData()), nil
	case *ortgo.Tensor[uint16]:
		return fromTyped(graph.Uint16, t.GetShape(), t.GetData()), nil
	case *ortgo.Tensor[uint32]:
		return fromTyped(graph.Uint32, t.GetShape(), t.GetData()), nil
	case *ortgo.Tensor[uint64]:
		return fromTyped(graph.Uint64, t.GetShape(), t.GetData()), nil
	case *ortgo.Tensor[bool]:
		return fromTyped(graph.Bool, t.GetShape(), t.GetData()), nil
	}
	return nil, fmt.Errorf("unsupported ONNX Runtime output of type %T", v)
}
