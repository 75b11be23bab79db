package executor

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

// fuzzModelRoot holds ONNX's backend test models (Debian package
// libonnx-testdata); their model.onnx files seed the fuzz targets below.
const fuzzModelRoot = "/usr/include/onnx/backend/test/data"

// fuzzModels are the seed models: convolutions, broadcasting, reshapes,
// reductions, gathers and a subgraph.
var fuzzModels = []string{
	"node/test_conv_with_strides_padding/model.onnx",
	"node/test_add_bcast/model.onnx",
	"node/test_reshape_reordered_all_dims/model.onnx",
	"node/test_reduce_sum_keepdims_example/model.onnx",
	"node/test_gather_0/model.onnx",
	"node/test_matmul_3d/model.onnx",
	"node/test_concat_3d_axis_1/model.onnx",
	"node/test_expand_dim_changed/model.onnx",
	"node/test_slice_neg_steps/model.onnx",
	"node/test_maxpool_2d_pads/model.onnx",
	"pytorch-converted/test_Conv2d_groups/model.onnx",
	"node/test_if/model.onnx",
}

// addFuzzModels adds the seed models to f with the extra arguments.
func addFuzzModels(f *testing.F, extra ...any) {
	f.Helper()
	for _, p := range fuzzModels {
		data, err := os.ReadFile(filepath.Join(fuzzModelRoot, p))
		if err != nil {
			f.Fatalf("fuzz seed (install libonnx-testdata with scripts/setup): %v", err)
		}
		f.Add(append([]any{data}, extra...)...)
	}
}

// FuzzBindShapes decodes a model, rebinds every graph input to a shape of
// its rank built from the fuzzed sizes (tiny, zero, negative or huge),
// and checks that binding and shape inference never panic: they either
// fail with an error or leave every value with a static, non-negative
// shape.
func FuzzBindShapes(f *testing.F) {
	addFuzzModels(f, int64(1), int64(3), int64(7))
	addFuzzModels(f, int64(0), int64(1<<40), int64(-2))
	f.Fuzz(func(t *testing.T, data []byte, a, b, c int64) {
		m, err := onnx.Decode(data, onnx.DecodeOptions{})
		if err != nil {
			return
		}
		g := m.Graph
		sizes := []int64{a, b, c}
		bind := map[string][]int{}
		k := 0
		for _, in := range g.Inputs {
			if in == nil || in.Const != nil || !in.ShapeKnown {
				continue
			}
			dims := make([]int, len(in.Shape))
			for i := range in.Shape {
				in.Shape[i] = graph.Dim{Value: -1, Param: fmt.Sprintf("d%d", k)}
				dims[i] = int(sizes[k%3])
				k++
			}
			bind[in.Name] = dims
		}
		if err := g.BindShapes(bind); err != nil {
			return
		}
		for _, n := range g.Nodes {
			for _, o := range n.Outputs {
				if o == nil || !o.ShapeKnown {
					continue
				}
				for _, d := range o.Shape {
					if d.Value < 0 {
						t.Fatalf("node %s: output %s has shape %v after a successful BindShapes", n.Name, o.Name, o.Shape)
					}
				}
			}
		}
	})
}

// FuzzNewExecutor decodes a model, binds its shapes and compiles it, and
// checks that compiling never panics; models of at most 4096 elements per
// input are also run on zero inputs, which must not panic either.
func FuzzNewExecutor(f *testing.F) {
	addFuzzModels(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := onnx.Decode(data, onnx.DecodeOptions{})
		if err != nil {
			return
		}
		g := m.Graph
		if err := g.BindShapes(nil); err != nil {
			return
		}
		ex, err := NewExecutor(g, ExecOptions{Threads: 1})
		if err != nil {
			return
		}
		inputs := map[string]*graph.Tensor{}
		for _, in := range g.Inputs {
			if in.Const != nil {
				continue
			}
			shape, err := in.StaticShape()
			if err != nil || graph.NumElements(shape) > 4096 || !in.DType.Valid() {
				return
			}
			inputs[in.Name] = graph.NewTensor(in.DType, shape...)
		}
		_, _ = ex.Run(inputs)
	})
}
