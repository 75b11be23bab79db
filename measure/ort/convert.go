package ort

import (
	"fmt"

	ortgo "github.com/yalue/onnxruntime_go"

	"github.com/xrl-dev/xrl/graph"
)

// Conversions between graph tensors and ONNX Runtime values.
//
// onnxruntime_go represents rank-0 tensors as Scalar values: a Tensor with
// an empty shape is rejected both as an input and when ONNX Runtime
// allocates an output ("The shape has no dimensions"). Scalar outputs are
// therefore pre-allocated, and scalar inputs passed as Scalar values.

// ortKind converts the tensors of one element type.
type ortKind struct {
	// toValue copies t (of this kind's dtype) into a new ONNX Runtime
	// Tensor, or a Scalar for rank 0.
	toValue func(t *graph.Tensor) (ortgo.Value, error)
	// fromValue returns v as a graph tensor when v holds this kind's
	// element type (ok false otherwise); the elements of a Tensor are
	// copied only with withData.
	fromValue func(v ortgo.Value, withData bool) (t *graph.Tensor, ok bool)
}

func kindOf[T ortgo.TensorData](dt graph.DType) ortKind {
	return ortKind{
		toValue: func(t *graph.Tensor) (ortgo.Value, error) {
			d, ok := t.Data.([]T)
			if !ok {
				return nil, fmt.Errorf("%v tensor holds %T data", t.DType, t.Data)
			}
			if len(t.Shape) == 0 {
				return ortgo.NewScalar(d[0])
			}
			// ONNX Runtime reads the Go slice in place; copy so that the
			// caller's tensor may be reused or changed.
			return ortgo.NewTensor(ortShape(t.Shape), append([]T(nil), d...))
		},
		fromValue: func(v ortgo.Value, withData bool) (*graph.Tensor, bool) {
			switch v := v.(type) {
			case *ortgo.Scalar[T]:
				return &graph.Tensor{DType: dt, Shape: []int{}, Data: []T{v.GetData()}}, true
			case *ortgo.Tensor[T]:
				t := &graph.Tensor{DType: dt, Shape: intsOf(v.GetShape())}
				if withData {
					t.Data = append([]T(nil), v.GetData()...)
				}
				return t, true
			}
			return nil, false
		},
	}
}

// ortKinds are the element types the ort backend exchanges.
var ortKinds = map[graph.DType]ortKind{
	graph.Float32: kindOf[float32](graph.Float32), graph.Float64: kindOf[float64](graph.Float64),
	graph.Int64: kindOf[int64](graph.Int64), graph.Int32: kindOf[int32](graph.Int32),
	graph.Int16: kindOf[int16](graph.Int16), graph.Int8: kindOf[int8](graph.Int8),
	graph.Uint64: kindOf[uint64](graph.Uint64), graph.Uint32: kindOf[uint32](graph.Uint32),
	graph.Uint16: kindOf[uint16](graph.Uint16), graph.Uint8: kindOf[uint8](graph.Uint8),
	graph.Bool: kindOf[bool](graph.Bool),
}

func ortShape(shape []int) ortgo.Shape {
	s := make(ortgo.Shape, len(shape))
	for i, d := range shape {
		s[i] = int64(d)
	}
	return s
}

func intsOf(s ortgo.Shape) []int {
	out := make([]int, len(s))
	for i, d := range s {
		out[i] = int(d)
	}
	return out
}

// toORT copies a graph tensor into a new ONNX Runtime value.
func toORT(t *graph.Tensor) (ortgo.Value, error) {
	k, ok := ortKinds[t.DType]
	if !ok {
		return nil, fmt.Errorf("%v tensors are not supported by the ort backend", t.DType)
	}
	return k.toValue(t)
}

// fromValue converts an ONNX Runtime value of any supported element type.
func fromValue(v ortgo.Value, withData bool) (*graph.Tensor, error) {
	for _, k := range ortKinds {
		if t, ok := k.fromValue(v, withData); ok {
			return t, nil
		}
	}
	return nil, fmt.Errorf("unsupported ONNX Runtime value of type %T", v)
}

// fromORT copies an ONNX Runtime output into a graph tensor.
func fromORT(v ortgo.Value) (*graph.Tensor, error) { return fromValue(v, true) }

// typeOf returns the dtype and shape of an ONNX Runtime value without
// copying its data.
func typeOf(v ortgo.Value) (graph.ObservedType, error) {
	t, err := fromValue(v, false)
	if err != nil {
		return graph.ObservedType{}, err
	}
	return graph.ObservedType{DType: t.DType, Shape: t.Shape}, nil
}
