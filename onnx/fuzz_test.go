package onnx

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// fuzzSeeds are conformance models covering IR nodes, old-opset
// conversions, subgraphs and initializers.
var fuzzSeeds = []string{
	"node/test_if/model.onnx",
	"node/test_loop11/model.onnx",
	"node/test_softmax_axis_0/model.onnx",
	"node/test_resize_upsample_scales_nearest/model.onnx",
	"node/test_squeeze/model.onnx",
	"node/test_clip_default_inbounds/model.onnx",
	"node/test_sequence_insert_at_back/model.onnx",
	"node/test_slice_default_axes/model.onnx",
	"simple/test_sequence_model1/model.onnx",
	"simple/test_gradient_of_add/model.onnx",
	"pytorch-converted/test_Conv2d/model.onnx",
	"pytorch-converted/test_PixelShuffle/model.onnx",
	"pytorch-converted/test_BatchNorm2d_eval/model.onnx",
	"pytorch-operator/test_operator_add_broadcast/model.onnx",
	"pytorch-operator/test_operator_basic/model.onnx",
	"node/test_globalaveragepool/model.onnx",
}

// FuzzDecode checks that Decode never panics and that every model it
// accepts can be encoded again (cyclic graphs excepted: ONNX files must be
// topologically sorted).
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(readFile(f, filepath.Join(conformanceDir, s)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data, DecodeOptions{})
		if err != nil {
			return
		}
		if _, err := Encode(m); err != nil {
			var ce *graph.CycleError
			if errors.As(err, &ce) {
				return
			}
			t.Fatalf("decoded model does not encode: %v", err)
		}
	})
}
