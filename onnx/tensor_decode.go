package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// maxElements bounds the element count a tensor's dims may declare. Real
// data must be present for every element anyway; the bound only keeps the
// size arithmetic free of overflow.
const maxElements = 1 << 48

// DecodeTensor decodes one serialized TensorProto (the format of the
// input_*.pb / output_*.pb files of ONNX test data sets) and returns the
// tensor and its name. Tensors whose data lives in an external file are
// rejected, because a lone TensorProto has no directory to resolve them in.
func DecodeTensor(data []byte) (*graph.Tensor, string, error) {
	tp := new(onnxpb.TensorProto)
	if err := proto.Unmarshal(data, tp); err != nil {
		return nil, "", fmt.Errorf("not a valid ONNX tensor: %v", err)
	}
	t, err := tensorFromProto(tp, nil)
	if err != nil {
		return nil, tp.GetName(), fmt.Errorf("tensor %q: %w", tp.GetName(), err)
	}
	return t, tp.GetName(), nil
}

// externalReader returns length bytes at offset of an external data file
// (length -1 = to the end of the file).
type externalReader func(location string, offset, length int64) ([]byte, error)

// tensorShape validates dims and returns the shape and element count.
func tensorShape(dims []int64) ([]int, int, error) {
	var shape []int
	if len(dims) > 0 {
		shape = make([]int, len(dims))
	}
	zero := false
	for i, d := range dims {
		if d < 0 {
			return nil, 0, fmt.Errorf("negative dimension %d at axis %d", d, i)
		}
		if d == 0 {
			zero = true
		}
		if d > maxElements {
			return nil, 0, fmt.Errorf("dimension %d at axis %d is too large", d, i)
		}
		shape[i] = int(d)
	}
	if zero {
		return shape, 0, nil
	}
	n := int64(1)
	for _, d := range dims {
		if n > maxElements/d {
			return nil, 0, fmt.Errorf("dims %v declare too many elements", dims)
		}
		n *= d
	}
	return shape, int(n), nil
}

// rawSize returns the byte size of n elements of dt in raw_data.
func rawSize(dt graph.DType, n int) (int, error) {
	switch dt {
	case graph.Uint4, graph.Int4:
		return (n + 1) / 2, nil
	case graph.String:
		return 0, errors.New("string tensors cannot use raw_data")
	}
	s := dt.Size()
	if s == 0 {
		return 0, fmt.Errorf("unsupported data type %v", dt)
	}
	return s * n, nil
}

// tensorFromProto converts tp to a graph tensor. ext resolves external data;
// nil rejects it.
func tensorFromProto(tp *onnxpb.TensorProto, ext externalReader) (*graph.Tensor, error) {
	dt := graph.DType(tp.GetDataType())
	if !dt.Valid() {
		return nil, fmt.Errorf("unsupported data_type %d", tp.GetDataType())
	}
	if tp.Segment != nil {
		return nil, errors.New("segmented tensors are not supported")
	}
	shape, n, err := tensorShape(tp.GetDims())
	if err != nil {
		return nil, err
	}
	raw := tp.RawData
	if tp.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		if ext == nil {
			return nil, errors.New("data is stored in an external file, which is only supported when reading a model file")
		}
		if raw != nil || typedCount(tp) > 0 {
			return nil, errors.New("external tensor also holds inline data")
		}
		raw, err = readExternal(tp, dt, n, ext)
		if err != nil {
			return nil, err
		}
	} else if len(tp.ExternalData) > 0 {
		return nil, errors.New("external_data is set but data_location is not EXTERNAL")
	}
	t := &graph.Tensor{DType: dt, Shape: shape}
	if raw != nil {
		if typedCount(tp) > 0 {
			return nil, errors.New("tensor has both raw_data and typed data fields")
		}
		size, err := rawSize(dt, n)
		if err != nil {
			return nil, err
		}
		if len(raw) != size {
			return nil, fmt.Errorf("raw_data has %d bytes, shape %s of %v needs %d", len(raw), graph.ShapeString(shape), dt, size)
		}
		t.Data, err = fromRaw(dt, n, raw)
		if err != nil {
			return nil, err
		}
		return t, nil
	}
	t.Data, err = fromTyped(tp, dt, n)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// typedCount returns the total number of entries in the typed data fields.
func typedCount(tp *onnxpb.TensorProto) int {
	return len(tp.FloatData) + len(tp.Int32Data) + len(tp.StringData) + len(tp.Int64Data) +
		len(tp.DoubleData) + len(tp.Uint64Data)
}

// readExternal loads the bytes of an external tensor.
func readExternal(tp *onnxpb.TensorProto, dt graph.DType, n int, ext externalReader) ([]byte, error) {
	var location string
	offset, length := int64(0), int64(-1)
	for _, kv := range tp.ExternalData {
		var err error
		switch kv.GetKey() {
		case "location":
			location = kv.GetValue()
		case "offset":
			offset, err = parseNonNeg(kv.GetValue())
		case "length":
			length, err = parseNonNeg(kv.GetValue())
		case "checksum":
		default:
			return nil, fmt.Errorf("unknown external_data key %q", kv.GetKey())
		}
		if err != nil {
			return nil, fmt.Errorf("external_data %s: %v", kv.GetKey(), err)
		}
	}
	if location == "" {
		return nil, errors.New("external_data has no location")
	}
	size, err := rawSize(dt, n)
	if err != nil {
		return nil, err
	}
	if length >= 0 && length != int64(size) {
		return nil, fmt.Errorf("external_data length is %d bytes, %d elements of %v need %d", length, n, dt, size)
	}
	return ext(location, offset, int64(size))
}

func parseNonNeg(s string) (int64, error) {
	var v int64
	if s == "" {
		return 0, errors.New("empty number")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad number %q", s)
		}
		if v > (math.MaxInt64-9)/10 {
			return 0, fmt.Errorf("number %q too large", s)
		}
		v = v*10 + int64(c-'0')
	}
	return v, nil
}

// fromRaw converts little-endian raw bytes (already size-checked) to the
// Go slice type of dt.
func fromRaw(dt graph.DType, n int, raw []byte) (any, error) {
	switch dt {
	case graph.Float32, graph.Float64, graph.Int64, graph.Int32, graph.Uint32, graph.Uint64, graph.Int16,
		graph.Uint16, graph.Float16, graph.BFloat16, graph.Complex64, graph.Complex128:
		out := graph.MakeSlice(dt, n)
		if nativeLittle {
			copy(hostBytes(out), raw)
			return out, nil
		}
		return out, decodeLE(raw, out)
	case graph.Int8, graph.Bool:
		out := graph.MakeSlice(dt, n)
		return out, decodeLE(raw, out)
	}
	// Uint8, float8 variants and packed 4-bit types: bytes as they are.
	return append([]uint8(nil), raw...), nil
}

// decodeLE fills out, a slice of fixed-size values, from little-endian raw.
func decodeLE(raw []byte, out any) error {
	if _, err := binary.Decode(raw, binary.LittleEndian, out); err != nil {
		return fmt.Errorf("raw_data: %w", err)
	}
	return nil
}

// fromTyped converts the typed data field that ONNX uses for dt.
func fromTyped(tp *onnxpb.TensorProto, dt graph.DType, n int) (any, error) {
	// Every type not named here is stored one element per int32_data entry.
	field, have, need := "int32_data", len(tp.Int32Data), n
	switch dt {
	case graph.Float32, graph.Complex64:
		field, have = "float_data", len(tp.FloatData)
	case graph.Float64, graph.Complex128:
		field, have = "double_data", len(tp.DoubleData)
	case graph.Int64:
		field, have = "int64_data", len(tp.Int64Data)
	case graph.Uint32, graph.Uint64:
		field, have = "uint64_data", len(tp.Uint64Data)
	case graph.String:
		field, have = "string_data", len(tp.StringData)
	}
	switch dt {
	case graph.Complex64, graph.Complex128:
		need = 2 * n
	case graph.Uint4, graph.Int4:
		need = (n + 1) / 2
	}
	if typedCount(tp) != have {
		return nil, fmt.Errorf("%v tensor has data in fields other than %s", dt, field)
	}
	if have != need {
		return nil, fmt.Errorf("%s has %d entries, shape of %d elements of %v needs %d", field, have, n, dt, need)
	}
	i32 := tp.Int32Data
	switch dt {
	case graph.Float32:
		return append(make([]float32, 0, n), tp.FloatData...), nil
	case graph.Complex64:
		return complexPairs[complex64](tp.FloatData), nil
	case graph.Float64:
		return append(make([]float64, 0, n), tp.DoubleData...), nil
	case graph.Complex128:
		return complexPairs[complex128](tp.DoubleData), nil
	case graph.Int64:
		return append(make([]int64, 0, n), tp.Int64Data...), nil
	case graph.Uint32:
		return convertAll(tp.Uint64Data, func(v uint64) uint32 { return uint32(v) }), nil
	case graph.Uint64:
		return append(make([]uint64, 0, n), tp.Uint64Data...), nil
	case graph.String:
		return convertAll(tp.StringData, func(b []byte) string { return string(b) }), nil
	case graph.Int32:
		return append(make([]int32, 0, n), i32...), nil
	case graph.Int16:
		return convertAll(i32, func(v int32) int16 { return int16(v) }), nil
	case graph.Int8:
		return convertAll(i32, func(v int32) int8 { return int8(v) }), nil
	case graph.Uint16, graph.Float16, graph.BFloat16:
		return convertAll(i32, func(v int32) uint16 { return uint16(v) }), nil
	case graph.Bool:
		return convertAll(i32, func(v int32) bool { return v != 0 }), nil
	}
	// Uint8, the float8 variants and the packed 4-bit types (two per entry).
	return convertAll(i32, func(v int32) uint8 { return uint8(v) }), nil
}

// convertAll returns conv of every element of src.
func convertAll[S, D any](src []S, conv func(S) D) []D {
	out := make([]D, len(src))
	for i, v := range src {
		out[i] = conv(v)
	}
	return out
}

// complexPairs returns the complex numbers stored as (real, imaginary)
// pairs in parts.
func complexPairs[C complex64 | complex128, F float32 | float64](parts []F) []C {
	out := make([]C, len(parts)/2)
	for i := range out {
		out[i] = C(complex(float64(parts[2*i]), float64(parts[2*i+1])))
	}
	return out
}
