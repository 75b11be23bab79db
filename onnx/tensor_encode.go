package onnx

import (
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// EncodeTensor serializes t as a TensorProto named name. Data goes to
// raw_data, except for string tensors, which use string_data.
func EncodeTensor(t *graph.Tensor, name string) ([]byte, error) {
	tp, err := tensorToProto(t, name)
	if err != nil {
		return nil, err
	}
	return marshal(tp)
}

// marshal serializes m deterministically.
func marshal(m proto.Message) ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}

// tensorToProto converts t to a TensorProto with inline data.
func tensorToProto(t *graph.Tensor, name string) (*onnxpb.TensorProto, error) {
	if t == nil {
		return nil, fmt.Errorf("tensor %q is nil", name)
	}
	if !t.DType.Valid() {
		return nil, fmt.Errorf("tensor %q has unsupported dtype %v", name, t.DType)
	}
	dims := make([]int64, len(t.Shape))
	for i, d := range t.Shape {
		if d < 0 {
			return nil, fmt.Errorf("tensor %q has negative dimension %d", name, d)
		}
		dims[i] = int64(d)
	}
	tp := &onnxpb.TensorProto{Dims: dims, DataType: proto.Int32(int32(t.DType))}
	tp.Name = optString(name)
	n := t.Len()
	if t.DType == graph.String {
		s, ok := t.Data.([]string)
		if !ok && !(t.Data == nil && n == 0) {
			return nil, fmt.Errorf("tensor %q: %v data is %T, want []string", name, t.DType, t.Data)
		}
		if len(s) != n {
			return nil, fmt.Errorf("tensor %q: has %d strings, shape %s needs %d", name, len(s), graph.ShapeString(t.Shape), n)
		}
		tp.StringData = make([][]byte, n)
		for i, v := range s {
			tp.StringData[i] = []byte(v)
		}
		return tp, nil
	}
	raw, err := toRaw(t, n)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", name, err)
	}
	if raw == nil {
		raw = []byte{}
	}
	tp.RawData = raw
	return tp, nil
}

// toRaw returns the little-endian raw_data bytes of a non-string tensor,
// checking that Data has the Go type and length its dtype and shape need.
// On little-endian hosts the bytes alias t.Data (tensors are immutable and
// the bytes are only read by Marshal).
func toRaw(t *graph.Tensor, n int) ([]byte, error) {
	want := graph.MakeSlice(t.DType, 0)
	need := n
	if t.DType == graph.Uint4 || t.DType == graph.Int4 {
		need = (n + 1) / 2
	}
	if t.Data == nil && need == 0 {
		return []byte{}, nil
	}
	if fmt.Sprintf("%T", want) != fmt.Sprintf("%T", t.Data) {
		return nil, fmt.Errorf("%v data is %T, want %T", t.DType, t.Data, want)
	}
	if l := graph.DataLen(t.Data); l != need {
		return nil, fmt.Errorf("data has %d entries, shape %s of %v needs %d", l, graph.ShapeString(t.Shape), t.DType, need)
	}
	switch s := t.Data.(type) {
	case []uint8:
		return s, nil
	case []int8, []bool:
		// One byte each: copied, so the bytes never alias booleans.
	default:
		if nativeLittle {
			return hostBytes(s), nil
		}
	}
	b, err := binary.Append(nil, binary.LittleEndian, t.Data)
	if err != nil {
		return nil, fmt.Errorf("unsupported data type %T", t.Data)
	}
	return b, nil
}
