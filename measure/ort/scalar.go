package ort

import (
	"fmt"

	ortgo "github.com/yalue/onnxruntime_go"

	"github.com/xrl-dev/xrl/graph"
)

// onnxruntime_go represents rank-0 tensors as Scalar values: a Tensor with
// an empty shape is rejected both as an input and when ONNX Runtime
// allocates an output ("The shape has no dimensions"). Scalar outputs are
// therefore pre-allocated, and scalar inputs passed as Scalar values.

func scalarValue[T ortgo.TensorData](v T) (ortgo.Value, error) {
	s, err := ortgo.NewScalar(v)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// newScalar returns a rank-0 ONNX Runtime value holding t's only element.
func newScalar(t *graph.Tensor) (ortgo.Value, error) {
	switch d := t.Data.(type) {
	case []float32:
		return scalarValue(d[0])
	case []float64:
		return scalarValue(d[0])
	case []int64:
		return scalarValue(d[0])
	case []int32:
		return scalarValue(d[0])
	case []int16:
		return scalarValue(d[0])
	case []int8:
		return scalarValue(d[0])
	case []bool:
		return scalarValue(d[0])
	case []uint32:
		return scalarValue(d[0])
	case []uint64:
		return scalarValue(d[0])
	case []uint8:
		if t.DType == graph.Uint8 {
			return scalarValue(d[0])
		}
	case []uint16:
		if t.DType == graph.Uint16 {
			return scalarValue(d[0])
		}
	}
	return nil, fmt.Errorf("%v scalars are not supported by the ort backend", t.DType)
}

// newEmptyScalar returns a zero rank-0 value of dtype dt, used as a
// pre-allocated output.
func newEmptyScalar(dt graph.DType) (ortgo.Value, error) {
	t := graph.NewTensor(dt)
	if t == nil || t.Data == nil {
		return nil, fmt.Errorf("%v scalars are not supported by the ort backend", dt)
	}
	return newScalar(t)
}

// scalarOutputs pre-allocates a Scalar for each output whose type (dts[i],
// rank[i]) says it is rank 0, leaving the others nil for ONNX Runtime to
// allocate. On error nothing is left allocated.
func scalarOutputs(dts []graph.DType, scalar []bool) ([]ortgo.Value, error) {
	outs := make([]ortgo.Value, len(dts))
	for i, dt := range dts {
		if !scalar[i] {
			continue
		}
		v, err := newEmptyScalar(dt)
		if err != nil {
			destroyAll(outs)
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		outs[i] = v
	}
	return outs, nil
}

func fromScalar[T any](dt graph.DType, v T) *graph.Tensor {
	return &graph.Tensor{DType: dt, Shape: []int{}, Data: []T{v}}
}

// fromORTScalar copies a Scalar value into a rank-0 graph tensor; ok is
// false when v is not a Scalar.
func fromORTScalar(v ortgo.Value) (t *graph.Tensor, ok bool) {
	switch s := v.(type) {
	case *ortgo.Scalar[float32]:
		return fromScalar(graph.Float32, s.GetData()), true
	case *ortgo.Scalar[float64]:
		return fromScalar(graph.Float64, s.GetData()), true
	case *ortgo.Scalar[int64]:
		return fromScalar(graph.Int64, s.GetData()), true
	case *ortgo.Scalar[int32]:
		return fromScalar(graph.Int32, s.GetData()), true
	case *ortgo.Scalar[int16]:
		return fromScalar(graph.Int16, s.GetData()), true
	case *ortgo.Scalar[int8]:
		return fromScalar(graph.Int8, s.GetData()), true
	case *ortgo.Scalar[uint8]:
		return fromScalar(graph.Uint8, s.GetData()), true
	case *ortgo.Scalar[uint16]:
		return fromScalar(graph.Uint16, s.GetData()), true
	case *ortgo.Scalar[uint32]:
		return fromScalar(graph.Uint32, s.GetData()), true
	case *ortgo.Scalar[uint64]:
		return fromScalar(graph.Uint64, s.GetData()), true
	case *ortgo.Scalar[bool]:
		return fromScalar(graph.Bool, s.GetData()), true
	}
	return nil, false
}
