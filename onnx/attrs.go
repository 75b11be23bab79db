package onnx

import (
	"fmt"
	"math"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// attrFromProto converts an attribute of a kind the IR models. ok is false
// for kinds it does not model (graphs, sparse tensors, type protos) and
// for attributes carrying anything besides a name and a value.
func attrFromProto(ap *onnxpb.AttributeProto, ext externalReader) (a graph.Attr, ok bool, err error) {
	if ap.DocString != nil || ap.RefAttrName != nil || len(ap.ProtoReflect().GetUnknown()) > 0 || ap.Type == nil {
		return graph.Attr{}, false, nil
	}
	switch ap.GetType() {
	case onnxpb.AttributeProto_FLOAT:
		return graph.FloatAttr(ap.GetF()), true, nil
	case onnxpb.AttributeProto_INT:
		return graph.IntAttr(ap.GetI()), true, nil
	case onnxpb.AttributeProto_STRING:
		return graph.StringAttr(string(ap.GetS())), true, nil
	case onnxpb.AttributeProto_FLOATS:
		return graph.Attr{Kind: graph.AttrFloats, Floats: append([]float32{}, ap.Floats...)}, true, nil
	case onnxpb.AttributeProto_INTS:
		return graph.Attr{Kind: graph.AttrInts, Ints: append([]int64{}, ap.Ints...)}, true, nil
	case onnxpb.AttributeProto_STRINGS:
		s := make([]string, len(ap.Strings))
		for i, b := range ap.Strings {
			s[i] = string(b)
		}
		return graph.Attr{Kind: graph.AttrStrings, Strings: s}, true, nil
	case onnxpb.AttributeProto_TENSOR:
		if ap.T == nil || !plainTensor(ap.T) {
			return graph.Attr{}, false, nil
		}
		t, err := tensorFromProto(ap.T, ext)
		if err != nil {
			return graph.Attr{}, false, fmt.Errorf("attribute %q: %w", ap.GetName(), err)
		}
		return graph.TensorAttr(t), true, nil
	case onnxpb.AttributeProto_TENSORS:
		ts := make([]*graph.Tensor, len(ap.Tensors))
		for i, tp := range ap.Tensors {
			if !plainTensor(tp) {
				return graph.Attr{}, false, nil
			}
			t, err := tensorFromProto(tp, ext)
			if err != nil {
				return graph.Attr{}, false, fmt.Errorf("attribute %q tensor %d: %w", ap.GetName(), i, err)
			}
			ts[i] = t
		}
		return graph.Attr{Kind: graph.AttrTensors, Tensors: ts}, true, nil
	}
	return graph.Attr{}, false, nil
}

// plainTensor reports whether a tensor attribute holds nothing the IR
// drops besides its name and data placement: no doc string, no unknown
// fields.
func plainTensor(tp *onnxpb.TensorProto) bool {
	return tp.DocString == nil && len(tp.ProtoReflect().GetUnknown()) == 0 && tp.Segment == nil
}

// attrToProto converts an IR attribute to an AttributeProto named name.
func attrToProto(name string, a graph.Attr) (*onnxpb.AttributeProto, error) {
	ap := &onnxpb.AttributeProto{Name: proto.String(name)}
	switch a.Kind {
	case graph.AttrFloat:
		ap.F = proto.Float32(a.Float)
	case graph.AttrInt:
		ap.I = proto.Int64(a.Int)
	case graph.AttrString:
		ap.S = []byte(a.String)
	case graph.AttrFloats:
		ap.Floats = a.Floats
	case graph.AttrInts:
		ap.Ints = a.Ints
	case graph.AttrStrings:
		ap.Strings = make([][]byte, len(a.Strings))
		for i, s := range a.Strings {
			ap.Strings[i] = []byte(s)
		}
	case graph.AttrTensor:
		tp, err := tensorToProto(a.Tensor, "")
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", name, err)
		}
		ap.T = tp
	case graph.AttrTensors:
		for i, t := range a.Tensors {
			tp, err := tensorToProto(t, "")
			if err != nil {
				return nil, fmt.Errorf("attribute %q tensor %d: %w", name, i, err)
			}
			ap.Tensors = append(ap.Tensors, tp)
		}
	default:
		return nil, fmt.Errorf("attribute %q has kind %v, which cannot be written", name, a.Kind)
	}
	ap.Type = onnxpb.AttributeProto_AttributeType(a.Kind).Enum()
	return ap, nil
}

// attrEqual reports whether two attribute values are identical (floats
// compared bitwise).
func attrEqual(a, b graph.Attr) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case graph.AttrFloat:
		return math.Float32bits(a.Float) == math.Float32bits(b.Float)
	case graph.AttrInt:
		return a.Int == b.Int
	case graph.AttrString:
		return a.String == b.String
	case graph.AttrFloats:
		return slices.EqualFunc(a.Floats, b.Floats, func(p, q float32) bool { return math.Float32bits(p) == math.Float32bits(q) })
	case graph.AttrInts:
		return slices.Equal(a.Ints, b.Ints)
	case graph.AttrStrings:
		return slices.Equal(a.Strings, b.Strings)
	case graph.AttrTensor:
		return a.Tensor.Equal(b.Tensor)
	case graph.AttrTensors:
		return slices.EqualFunc(a.Tensors, b.Tensors, (*graph.Tensor).Equal)
	}
	return true
}

// attrToTensor converts the value of an attribute that a later opset made
// an input into that input's tensor. in0 is the dtype of the node's first
// input (for FromInputDType). ok is false when the attribute has the wrong
// kind or the dtype cannot hold it.
func attrToTensor(op string, ai graph.AttrInput, a graph.Attr, in0 graph.DType) (*graph.Tensor, bool) {
	kind := oldAttrKind(op, ai)
	if a.Kind != kind {
		return nil, false
	}
	switch kind {
	case graph.AttrInts:
		return graph.FromInt64(append([]int64{}, a.Ints...), len(a.Ints)), true
	case graph.AttrInt:
		return graph.FromInt64([]int64{a.Int}, 1), true
	}
	dt := ai.DType
	if dt == graph.FromInputDType {
		dt = in0
	}
	switch dt {
	case graph.Float32:
		return graph.FromFloat32([]float32{a.Float}), true
	case graph.Float64:
		return graph.FromFloat64([]float64{float64(a.Float)}), true
	case graph.Float16:
		return &graph.Tensor{DType: dt, Data: []uint16{float32ToHalf(a.Float)}}, true
	case graph.BFloat16:
		return &graph.Tensor{DType: dt, Data: []uint16{float32ToBFloat(a.Float)}}, true
	}
	return nil, false
}

// tensorToAttr converts a constant input back to the attribute form of an
// older opset.
func tensorToAttr(op string, ai graph.AttrInput, t *graph.Tensor) (graph.Attr, error) {
	switch oldAttrKind(op, ai) {
	case graph.AttrInts:
		if len(t.Shape) > 1 {
			return graph.Attr{}, fmt.Errorf("input for attribute %s has shape %v, want 1-D", ai.Attr, t.Shape)
		}
		v, err := t.AsInt64()
		if err != nil {
			return graph.Attr{}, fmt.Errorf("input for attribute %s: %w", ai.Attr, err)
		}
		return graph.IntsAttr(v...), nil
	case graph.AttrInt:
		v, err := t.AsInt64()
		if err != nil || len(v) != 1 {
			return graph.Attr{}, fmt.Errorf("input for attribute %s must be one integer", ai.Attr)
		}
		return graph.IntAttr(v[0]), nil
	}
	if t.Len() != 1 {
		return graph.Attr{}, fmt.Errorf("input for attribute %s has %d elements, want 1", ai.Attr, t.Len())
	}
	var f float32
	switch d := t.Data.(type) {
	case []float32:
		f = d[0]
	case []float64:
		f = float32(d[0])
	case []uint16:
		switch t.DType {
		case graph.Float16:
			f = halfToFloat32(d[0])
		case graph.BFloat16:
			f = math.Float32frombits(uint32(d[0]) << 16)
		default:
			return graph.Attr{}, fmt.Errorf("input for attribute %s has dtype %v, want a float type", ai.Attr, t.DType)
		}
	default:
		return graph.Attr{}, fmt.Errorf("input for attribute %s has dtype %v, want a float type", ai.Attr, t.DType)
	}
	return graph.FloatAttr(f), nil
}

// float32ToHalf converts to IEEE half precision, rounding to nearest even.
func float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00 | uint16(mant>>13)
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - e)
		half := mant >> shift
		rem := mant & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++
	}
	return sign | uint16(half)
}

// halfToFloat32 converts IEEE half-precision bits to float32.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(mant) / 1024 / 16384
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// float32ToBFloat converts to bfloat16, rounding to nearest even.
func float32ToBFloat(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}
