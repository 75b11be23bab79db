package onnx

import (
	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// setTypeFromProto sets v's dtype and shape from an ONNX type. Tensor types
// map to DType and Shape (symbolic dims keep their names, unknown dims are
// Dim{-1, ""}, an absent shape leaves ShapeKnown false); other types
// (sequences, maps, optionals) leave v untyped, and the codec keeps their
// ValueInfoProto verbatim in Graph.Extra.
func setTypeFromProto(v *graph.Value, tp *onnxpb.TypeProto) {
	v.DType, v.Shape, v.ShapeKnown = graph.Undefined, nil, false
	tt := tp.GetTensorType()
	if tt == nil {
		return
	}
	v.DType = graph.DType(tt.GetElemType())
	if tt.Shape == nil {
		return
	}
	v.ShapeKnown = true
	v.Shape = make(graph.Shape, len(tt.Shape.Dim))
	for i, d := range tt.Shape.Dim {
		switch x := d.Value.(type) {
		case *onnxpb.TensorShapeProto_Dimension_DimValue:
			v.Shape[i] = graph.Dim{Value: x.DimValue}
			if x.DimValue < 0 {
				v.Shape[i] = graph.Dim{Value: -1}
			}
		case *onnxpb.TensorShapeProto_Dimension_DimParam:
			v.Shape[i] = graph.Dim{Value: -1, Param: x.DimParam}
		default:
			v.Shape[i] = graph.Dim{Value: -1}
		}
	}
}

// hasType reports whether v carries any type information worth writing.
func hasType(v *graph.Value) bool {
	return v.DType != graph.Undefined || v.ShapeKnown
}

// typeProto returns the ONNX type of v, or nil when v is untyped.
func typeProto(v *graph.Value) *onnxpb.TypeProto {
	if !hasType(v) {
		return nil
	}
	tt := &onnxpb.TypeProto_Tensor{}
	if v.DType != graph.Undefined {
		tt.ElemType = proto.Int32(int32(v.DType))
	}
	if v.ShapeKnown {
		sp := &onnxpb.TensorShapeProto{Dim: make([]*onnxpb.TensorShapeProto_Dimension, len(v.Shape))}
		for i, d := range v.Shape {
			dim := &onnxpb.TensorShapeProto_Dimension{}
			switch {
			case d.Symbolic():
				dim.Value = &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d.ParamName()}
			case d.Known():
				dim.Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d.Value}
			case d.Param != "":
				dim.Value = &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d.Param}
			}
			sp.Dim[i] = dim
		}
		tt.Shape = sp
	}
	return &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: tt}}
}

// valueInfoProto describes v under the given name.
func valueInfoProto(name string, v *graph.Value) *onnxpb.ValueInfoProto {
	vi := &onnxpb.ValueInfoProto{Name: proto.String(name), Type: typeProto(v)}
	vi.DocString = optString(v.Doc)
	return vi
}
