package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// dynamicMLP writes x [batch, 8] -> MatMul -> Relu to dir/name, its batch
// dimension symbolic, and returns the path. threshold > 0 stores the
// weight in an external data file.
func dynamicMLP(t *testing.T, dir, name string, threshold int64) string {
	t.Helper()
	b := graph.NewBuilder("mlp")
	x := b.Input("x", graph.Float32, 1, 8)
	w := graph.NewTensor(graph.Float32, 8, 8)
	for i := range w.Data.([]float32) {
		w.Data.([]float32)[i] = float32(i%5) - 2
	}
	b.Output(b.Op("Relu", []*graph.Value{b.Op("MatMul", []*graph.Value{x, b.Const("w", w)}, nil)}, nil))
	path := filepath.Join(dir, name)
	if err := onnx.WriteFileWith(path, graphtest.Model(t, b), onnx.EncodeOptions{ExternalThreshold: threshold}); err != nil {
		t.Fatal(err)
	}
	symbolicBatch(t, path)
	return path
}

// symbolicBatch rewrites the ONNX file at path with the first dimension of
// its first input named "batch".
func symbolicBatch(t *testing.T, path string) {
	t.Helper()
	var mp onnxpb.ModelProto
	data, err := os.ReadFile(path)
	if err == nil {
		err = proto.Unmarshal(data, &mp)
	}
	if err == nil {
		mp.Graph.Input[0].Type.GetTensorType().Shape.Dim[0].Value = &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: "batch"}
		data, err = proto.Marshal(&mp)
	}
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriteModelCopiesTheOriginal checks that the original model is
// written as the file it was read from, byte for byte (its batch dimension
// still symbolic, where the measured copy has it bound to 1), with its
// external data beside it when the output goes to another directory,
// while any other model is encoded.
func TestWriteModelCopiesTheOriginal(t *testing.T) {
	for _, tc := range []struct {
		name      string
		threshold int64
		sameDir   bool
	}{
		{"inline", 0, false},
		{"external data, other directory", 64, false},
		{"external data, same directory", 64, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := dynamicMLP(t, t.TempDir(), "model.onnx", tc.threshold)
			s, err := Prepare(src, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if tc.sameDir {
				dir = filepath.Dir(src)
			}
			out := filepath.Join(dir, "out.onnx")
			if err := s.WriteModel(out, src, s.Orig); err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(src)
			got, err := os.ReadFile(out)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("the written original differs from %s (%d bytes, want %d; %v)", src, len(got), len(want), err)
			}
			m, err := onnx.ReadFile(out)
			if err != nil {
				t.Fatalf("the copy does not load: %v", err)
			}
			if d := m.Graph.Inputs[0].Shape[0]; d.Param != "batch" {
				t.Errorf("the copy's batch dimension is %v, want the original's symbolic one", d)
			}
			if err := s.WriteModel(out, src, s.Model); err != nil {
				t.Fatal(err)
			}
			if again, _ := os.ReadFile(out); bytes.Equal(again, want) {
				t.Error("a model other than the original was copied, not encoded")
			}
		})
	}
}

// TestSelfContained checks that the original's bytes are handed to the
// backend only when they name no external data file.
func TestSelfContained(t *testing.T) {
	for _, tc := range []struct {
		threshold int64
		want      bool
	}{{0, true}, {64, false}} {
		src := dynamicMLP(t, t.TempDir(), "model.onnx", tc.threshold)
		data, err := SelfContained(src)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := os.ReadFile(src); (data != nil) != tc.want || data != nil && !bytes.Equal(data, want) {
			t.Errorf("external data threshold %d: got %d bytes, want the file: %v", tc.threshold, len(data), tc.want)
		}
	}
}
