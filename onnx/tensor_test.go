package onnx

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// conformanceTensorFiles returns the test-data .pb files of the conformance
// suites that hold plain tensors (the model declares a tensor type for the
// matching input or output; sequence and optional files are skipped).
func conformanceTensorFiles(t *testing.T) []string {
	t.Helper()
	fileRE := regexp.MustCompile(`^(input|output)_(\d+)\.pb$`)
	var out []string
	for _, m := range conformanceModels(t) {
		mp := new(onnxpb.ModelProto)
		if err := proto.Unmarshal(readFile(t, m), mp); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		inits := map[string]bool{}
		for _, in := range mp.GetGraph().GetInitializer() {
			inits[in.GetName()] = true
		}
		var ins []*onnxpb.ValueInfoProto
		for _, in := range mp.GetGraph().GetInput() {
			if !inits[in.GetName()] {
				ins = append(ins, in)
			}
		}
		files, _ := filepath.Glob(filepath.Join(filepath.Dir(m), "test_data_set_*", "*.pb"))
		for _, f := range files {
			sub := fileRE.FindStringSubmatch(filepath.Base(f))
			if sub == nil {
				continue
			}
			i, _ := strconv.Atoi(sub[2])
			list := ins
			if sub[1] == "output" {
				list = mp.GetGraph().GetOutput()
			}
			if i < len(list) && list[i].GetType().GetTensorType() != nil {
				out = append(out, f)
			}
		}
	}
	if len(out) < 2000 {
		t.Fatalf("found only %d tensor files", len(out))
	}
	return out
}

// tensorFingerprint renders dtype, dims and a digest of the elements in
// the format the Python reference script prints.
func tensorFingerprint(t *graph.Tensor) (string, error) {
	h := sha256.New()
	if s, ok := t.Data.([]string); ok {
		var n [8]byte
		for _, v := range s {
			binary.LittleEndian.PutUint64(n[:], uint64(len(v)))
			h.Write(n[:])
			h.Write([]byte(v))
		}
	} else {
		raw, err := toRaw(t, t.Len())
		if err != nil {
			return "", err
		}
		h.Write(raw)
	}
	dims := make([]string, len(t.Shape))
	for i, d := range t.Shape {
		dims[i] = strconv.Itoa(d)
	}
	return fmt.Sprintf("%d %s %s", int(t.DType), strings.Join(dims, ","), hex.EncodeToString(h.Sum(nil))), nil
}

// pyTensorFingerprint computes tensorFingerprint with onnx.numpy_helper for
// every file named on stdin.
const pyTensorFingerprint = `
import sys, hashlib, struct, onnx
from onnx import numpy_helper
import numpy as np
for path in sys.stdin.read().split():
    t = onnx.TensorProto()
    t.ParseFromString(open(path, 'rb').read())
    a = numpy_helper.to_array(t)
    h = hashlib.sha256()
    if t.data_type == onnx.TensorProto.STRING:
        for v in a.flatten():
            b = v if isinstance(v, bytes) else str(v).encode()
            h.update(struct.pack('<Q', len(b))); h.update(b)
    elif t.data_type == onnx.TensorProto.FLOAT16:
        h.update(np.ascontiguousarray(a).view(np.uint16).astype('<u2').tobytes())
    else:
        h.update(np.ascontiguousarray(a).astype(a.dtype.newbyteorder('<')).tobytes())
    print(path, t.data_type, ','.join(str(d) for d in t.dims), h.hexdigest())
`

func TestDecodeTensorConformance(t *testing.T) {
	files := conformanceTensorFiles(t)
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(runPython(t, pyTensorFingerprint, strings.Join(files, "\n"))), "\n") {
		path, rest, _ := strings.Cut(line, " ")
		want[path] = rest
	}
	for _, f := range files {
		data := readFile(t, f)
		tn, name, err := DecodeTensor(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		got, err := tensorFingerprint(tn)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if got != want[f] {
			t.Errorf("%s: decoded %s, numpy_helper says %s", f, got, want[f])
			continue
		}
		// Re-encoding gives the same tensor and name.
		enc, err := EncodeTensor(tn, name)
		if err != nil {
			t.Errorf("%s: EncodeTensor: %v", f, err)
			continue
		}
		back, name2, err := DecodeTensor(enc)
		if err != nil || name2 != name || !back.Equal(tn) {
			t.Errorf("%s: re-encoded tensor differs (name %q vs %q, err %v)", f, name2, name, err)
		}
	}
}

// typedTensor builds a TensorProto with the given dims and dtype; fill sets
// the data fields.
func typedTensor(dt graph.DType, dims []int64, fill func(tp *onnxpb.TensorProto)) []byte {
	tp := &onnxpb.TensorProto{Dims: dims, DataType: proto.Int32(int32(dt)), Name: proto.String("x")}
	fill(tp)
	b, err := proto.Marshal(tp)
	if err != nil {
		panic(err)
	}
	return b
}

func TestDecodeTensorTypedFields(t *testing.T) {
	f32 := math.Float32frombits
	tests := []struct {
		name string
		in   []byte
		want *graph.Tensor
	}{
		{"float_data", typedTensor(graph.Float32, []int64{2}, func(tp *onnxpb.TensorProto) { tp.FloatData = []float32{1.5, -2} }),
			&graph.Tensor{DType: graph.Float32, Shape: []int{2}, Data: []float32{1.5, -2}}},
		{"nan bits kept", typedTensor(graph.Float32, nil, func(tp *onnxpb.TensorProto) { tp.FloatData = []float32{f32(0x7fc00001)} }),
			&graph.Tensor{DType: graph.Float32, Data: []float32{f32(0x7fc00001)}}},
		{"double_data", typedTensor(graph.Float64, []int64{1}, func(tp *onnxpb.TensorProto) { tp.DoubleData = []float64{3.25} }),
			&graph.Tensor{DType: graph.Float64, Shape: []int{1}, Data: []float64{3.25}}},
		{"int64_data", typedTensor(graph.Int64, []int64{3}, func(tp *onnxpb.TensorProto) { tp.Int64Data = []int64{1, -2, 1 << 40} }),
			&graph.Tensor{DType: graph.Int64, Shape: []int{3}, Data: []int64{1, -2, 1 << 40}}},
		{"int32_data", typedTensor(graph.Int32, []int64{2}, func(tp *onnxpb.TensorProto) { tp.Int32Data = []int32{7, -7} }),
			&graph.Tensor{DType: graph.Int32, Shape: []int{2}, Data: []int32{7, -7}}},
		{"int16 in int32_data", typedTensor(graph.Int16, []int64{2}, func(tp *onnxpb.TensorProto) { tp.Int32Data = []int32{-300, 300} }),
			&graph.Tensor{DType: graph.Int16, Shape: []int{2}, Data: []int16{-300, 300}}},
		{"int8 in int32_data", typedTensor(graph.Int8, []int64{2}, func(tp *onnxpb.TensorProto) { tp.Int32Data = []int32{-128, 127} }),
			&graph.Tensor{DType: graph.Int8, Shape: []int{2}, Data: []int8{-128, 127}}},
		{"uint8 in int32_data", typedTensor(graph.Uint8, []int64{2}, func(tp *onnxpb.TensorProto) { tp.Int32Data = []int32{0, 255} }),
			&graph.Tensor{DType: graph.Uint8, Shape: []int{2}, Data: []uint8{0, 255}}},
		{"uint16 in int32_data", typedTensor(graph.Uint16, []int64{1}, func(tp *onnxpb.TensorProto) { tp.Int32Data = []int32{65535} }),
			&graph.Tensor{DType: graph.Uint16, Shape: []int{1}, Data: []uint16{65535}}},
		{"bool in int32_data", typedTensor(graph.Bool, []int64{3}, func(tp *onnxpb.TensorProto) { tp.Int32Data = []int32{1, 0, 1} }),
			&graph.Tensor{DType: graph.Bool, Shape: []int{3}, Data: []bool{true, false, true}}},
		{"float16 in int32_data", typedTensor(graph.Float16, []int64{2}, func(tp *onnxpb.TensorProto) { tp.Int32Data = []int32{0x3c00, 0xc000} }),
			&graph.Tensor{DType: graph.Float16, Shape: []int{2}, Data: []uint16{0x3c00, 0xc000}}},
		{"bfloat16 in int32_data", typedTensor(graph.BFloat16, []int64{1}, func(tp *onnxpb.TensorProto) { tp.Int32Data = []int32{0x3f80} }),
			&graph.Tensor{DType: graph.BFloat16, Shape: []int{1}, Data: []uint16{0x3f80}}},
		{"float8 in int32_data", typedTensor(graph.Float8E4M3FN, []int64{1}, func(tp *onnxpb.TensorProto) { tp.Int32Data = []int32{0x38} }),
			&graph.Tensor{DType: graph.Float8E4M3FN, Shape: []int{1}, Data: []uint8{0x38}}},
		{"int4 packed in int32_data", typedTensor(graph.Int4, []int64{3}, func(tp *onnxpb.TensorProto) { tp.Int32Data = []int32{0x21, 0x03} }),
			&graph.Tensor{DType: graph.Int4, Shape: []int{3}, Data: []uint8{0x21, 0x03}}},
		{"uint4 raw", typedTensor(graph.Uint4, []int64{4}, func(tp *onnxpb.TensorProto) { tp.RawData = []byte{0x21, 0x43} }),
			&graph.Tensor{DType: graph.Uint4, Shape: []int{4}, Data: []uint8{0x21, 0x43}}},
		{"uint32 in uint64_data", typedTensor(graph.Uint32, []int64{1}, func(tp *onnxpb.TensorProto) { tp.Uint64Data = []uint64{1 << 31} }),
			&graph.Tensor{DType: graph.Uint32, Shape: []int{1}, Data: []uint32{1 << 31}}},
		{"uint64_data", typedTensor(graph.Uint64, []int64{1}, func(tp *onnxpb.TensorProto) { tp.Uint64Data = []uint64{1 << 63} }),
			&graph.Tensor{DType: graph.Uint64, Shape: []int{1}, Data: []uint64{1 << 63}}},
		{"complex64 in float_data", typedTensor(graph.Complex64, []int64{1}, func(tp *onnxpb.TensorProto) { tp.FloatData = []float32{1, 2} }),
			&graph.Tensor{DType: graph.Complex64, Shape: []int{1}, Data: []complex64{complex(1, 2)}}},
		{"complex128 in double_data", typedTensor(graph.Complex128, []int64{1}, func(tp *onnxpb.TensorProto) { tp.DoubleData = []float64{3, -4} }),
			&graph.Tensor{DType: graph.Complex128, Shape: []int{1}, Data: []complex128{complex(3, -4)}}},
		{"string_data", typedTensor(graph.String, []int64{2}, func(tp *onnxpb.TensorProto) { tp.StringData = [][]byte{[]byte("a"), []byte("")} }),
			&graph.Tensor{DType: graph.String, Shape: []int{2}, Data: []string{"a", ""}}},
		{"empty tensor", typedTensor(graph.Float32, []int64{0, 3}, func(tp *onnxpb.TensorProto) {}),
			&graph.Tensor{DType: graph.Float32, Shape: []int{0, 3}, Data: []float32{}}},
		{"raw complex64", typedTensor(graph.Complex64, []int64{1}, func(tp *onnxpb.TensorProto) {
			tp.RawData = []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40}
		}), &graph.Tensor{DType: graph.Complex64, Shape: []int{1}, Data: []complex64{complex(1, 2)}}},
		{"raw int16", typedTensor(graph.Int16, []int64{2}, func(tp *onnxpb.TensorProto) { tp.RawData = []byte{0xff, 0xff, 2, 1} }),
			&graph.Tensor{DType: graph.Int16, Shape: []int{2}, Data: []int16{-1, 0x102}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, name, err := DecodeTensor(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if name != "x" {
				t.Errorf("name %q, want x", name)
			}
			if !got.Equal(tc.want) {
				t.Fatalf("got %v %v, want %v %v", got, got.Data, tc.want, tc.want.Data)
			}
			enc, err := EncodeTensor(got, name)
			if err != nil {
				t.Fatal(err)
			}
			back, _, err := DecodeTensor(enc)
			if err != nil || !back.Equal(tc.want) {
				t.Fatalf("round trip: %v %v (err %v)", back, back.Data, err)
			}
		})
	}
}

func TestDecodeTensorErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"garbage", []byte{0xff, 0xff, 0xff}, "not a valid ONNX tensor"},
		{"bad dtype", typedTensor(99, nil, func(tp *onnxpb.TensorProto) {}), "unsupported data_type 99"},
		{"negative dim", typedTensor(graph.Float32, []int64{-1}, func(tp *onnxpb.TensorProto) {}), "negative dimension"},
		{"huge dims", typedTensor(graph.Float32, []int64{1 << 40, 1 << 40}, func(tp *onnxpb.TensorProto) {}), "too many elements"},
		{"short raw", typedTensor(graph.Float32, []int64{2}, func(tp *onnxpb.TensorProto) { tp.RawData = []byte{1, 2, 3} }), "raw_data has 3 bytes"},
		{"short typed", typedTensor(graph.Int64, []int64{2}, func(tp *onnxpb.TensorProto) { tp.Int64Data = []int64{1} }), "int64_data has 1 entries"},
		{"wrong field", typedTensor(graph.Int64, []int64{1}, func(tp *onnxpb.TensorProto) { tp.FloatData = []float32{1} }), "fields other than int64_data"},
		{"raw and typed", typedTensor(graph.Float32, []int64{1}, func(tp *onnxpb.TensorProto) {
			tp.RawData = []byte{0, 0, 0, 0}
			tp.FloatData = []float32{1}
		}), "both raw_data and typed"},
		{"raw string", typedTensor(graph.String, []int64{1}, func(tp *onnxpb.TensorProto) { tp.RawData = []byte{'a'} }), "string tensors cannot use raw_data"},
		{"external", typedTensor(graph.Float32, []int64{1}, func(tp *onnxpb.TensorProto) {
			tp.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
			tp.ExternalData = []*onnxpb.StringStringEntryProto{{Key: proto.String("location"), Value: proto.String("w.bin")}}
		}), "external file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DecodeTensor(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestEncodeTensorErrors(t *testing.T) {
	tests := []struct {
		name string
		in   *graph.Tensor
		want string
	}{
		{"nil", nil, "is nil"},
		{"wrong go type", &graph.Tensor{DType: graph.Float32, Shape: []int{1}, Data: []float64{1}}, "want []float32"},
		{"wrong length", &graph.Tensor{DType: graph.Int64, Shape: []int{3}, Data: []int64{1}}, "needs 3"},
		{"bad dtype", &graph.Tensor{DType: 77, Data: []float32{1}}, "unsupported dtype"},
		{"strings length", &graph.Tensor{DType: graph.String, Shape: []int{2}, Data: []string{"a"}}, "needs 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := EncodeTensor(tc.in, "t")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
