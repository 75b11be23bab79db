package onnx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// staticValue returns a float32 value of the given shape.
func staticValue(name string, shape ...int) *graph.Value {
	v := &graph.Value{Name: name}
	v.SetStatic(graph.Float32, shape)
	return v
}

// squeezeModel is x[2,1,3] -> Squeeze(axes) -> y at the given opset.
func squeezeModel(opset int64, axes *graph.Value) *graph.Model {
	x, y := staticValue("x", 2, 1, 3), staticValue("y", 2, 3)
	g := &graph.Graph{Name: "g", Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y},
		Nodes: []*graph.Node{{Name: "sq", Op: "Squeeze", Inputs: []*graph.Value{x, axes}, Outputs: []*graph.Value{y}}}}
	if axes != nil && axes.Const == nil {
		g.Inputs = append(g.Inputs, axes)
	}
	return &graph.Model{Graph: g, IRVersion: 6, Opsets: []graph.OpsetID{{Version: opset}}}
}

// encodeProto encodes m and parses the result.
func encodeProto(t *testing.T, m *graph.Model) *onnxpb.ModelProto {
	t.Helper()
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	mp := new(onnxpb.ModelProto)
	if err := proto.Unmarshal(b, mp); err != nil {
		t.Fatal(err)
	}
	return mp
}

func TestExportAttrInputsToAttributes(t *testing.T) {
	axes := &graph.Value{Name: "axes", Const: graph.FromInt64([]int64{1}, 1)}
	axes.SetStatic(graph.Int64, []int{1})
	mp := encodeProto(t, squeezeModel(11, axes))
	n := mp.Graph.Node[0]
	if len(n.Input) != 1 || len(n.Attribute) != 1 || n.Attribute[0].GetName() != "axes" || len(n.Attribute[0].Ints) != 1 {
		t.Errorf("Squeeze at opset 11: %v", n)
	}
	if len(mp.Graph.Initializer) != 0 {
		t.Errorf("constant turned attribute still emitted as initializer")
	}
	mp = encodeProto(t, squeezeModel(13, axes))
	if n := mp.Graph.Node[0]; len(n.Input) != 2 || len(n.Attribute) != 0 || len(mp.Graph.Initializer) != 1 {
		t.Errorf("Squeeze at opset 13: %v, %d initializers", n, len(mp.Graph.Initializer))
	}
	runtimeAxes := &graph.Value{Name: "axes"}
	runtimeAxes.SetStatic(graph.Int64, []int{1})
	_, err := Encode(squeezeModel(11, runtimeAxes))
	if err == nil || !strings.Contains(err.Error(), `node "sq" (Squeeze)`) || !strings.Contains(err.Error(), "must be a constant") {
		t.Errorf("non-constant axes at opset 11: %v", err)
	}
}

func TestExportRaisesOpset(t *testing.T) {
	x, s, y := staticValue("x", 2, 4), staticValue("scale", 4), staticValue("y", 2, 4)
	s.Const = graph.FromFloat32([]float32{1, 1, 1, 1}, 4)
	ln := &graph.Node{Name: "ln", Op: "LayerNormalization", Inputs: []*graph.Value{x, s}, Outputs: []*graph.Value{y}}
	m := &graph.Model{Graph: &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{ln}},
		IRVersion: 6, Opsets: []graph.OpsetID{{Version: 11}}}
	mp := encodeProto(t, m)
	if v := mp.OpsetImport[0].GetVersion(); v != 17 || mp.GetIrVersion() < 8 {
		t.Errorf("opset %d, ir_version %d; want raised to 17 / 8", v, mp.GetIrVersion())
	}
	z := staticValue("z", 2, 4)
	m.Graph.Nodes = append(m.Graph.Nodes, &graph.Node{Name: "odd", Op: "NoSuchOp", Inputs: []*graph.Value{y},
		Outputs: []*graph.Value{z}, Opaque: []byte{}})
	m.Graph.Outputs = []*graph.Value{z}
	_, err := Encode(m)
	if err == nil || !strings.Contains(err.Error(), `node "odd" (NoSuchOp)`) || !strings.Contains(err.Error(), "cannot raise") {
		t.Errorf("raise with an opaque node: %v", err)
	}
}

func TestExportNewModelDefaultsAndNames(t *testing.T) {
	x := staticValue("", 3)
	a, b := staticValue("dup", 3), staticValue("dup", 3)
	g := &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{b}, Nodes: []*graph.Node{
		{Op: "Relu", Inputs: []*graph.Value{x}, Outputs: []*graph.Value{a}},
		{Op: "Sigmoid", Inputs: []*graph.Value{a}, Outputs: []*graph.Value{b}},
	}}
	mp := encodeProto(t, &graph.Model{Graph: g})
	if mp.GetIrVersion() != 8 || len(mp.OpsetImport) != 1 || mp.OpsetImport[0].GetVersion() != 17 {
		t.Errorf("new model: ir %d opsets %v", mp.GetIrVersion(), mp.OpsetImport)
	}
	names := map[string]bool{}
	for _, n := range mp.Graph.Node {
		for _, o := range n.Output {
			if o == "" || names[o] {
				t.Errorf("output name %q empty or repeated", o)
			}
			names[o] = true
		}
	}
	if in := mp.Graph.Input[0].GetName(); in == "" || names[in] {
		t.Errorf("input name %q", in)
	}
	if len(mp.Graph.ValueInfo) != 1 || mp.Graph.ValueInfo[0].GetName() != mp.Graph.Node[0].Output[0] {
		t.Errorf("value_info %v", mp.Graph.ValueInfo)
	}
	roundTrip(t, &graph.Model{Graph: g})
}

func TestExportDanglingValue(t *testing.T) {
	x, y := staticValue("x", 1), staticValue("y", 1)
	ghost := staticValue("ghost", 1)
	g := &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{
		{Name: "add", Op: "Add", Inputs: []*graph.Value{x, ghost}, Outputs: []*graph.Value{y}}}}
	_, err := Encode(&graph.Model{Graph: g})
	if err == nil || !strings.Contains(err.Error(), `node "add" (Add)`) || !strings.Contains(err.Error(), `"ghost"`) {
		t.Errorf("dangling input: %v", err)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	m := bigModelSmall(t)
	inline := filepath.Join(dir, "inline.onnx")
	if err := WriteFile(inline, m); err != nil {
		t.Fatal(err)
	}
	split := filepath.Join(dir, "split.onnx")
	if err := WriteFileWith(split, m, EncodeOptions{ExternalThreshold: 1000}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "inline.onnx split.onnx split.onnx.data" {
		t.Errorf("directory holds %v (temporary files left behind?)", names)
	}
	for _, p := range []string{inline, split} {
		got, err := ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got.Graph.CanonicalHash() != m.Graph.CanonicalHash() {
			t.Errorf("%s: model changed by WriteFile/ReadFile", p)
		}
	}
	if st, _ := os.Stat(split); st.Size() > 10000 {
		t.Errorf("split model is %d bytes; weights not moved out", st.Size())
	}
	if out := strings.TrimSpace(runPython(t, pyCheckModels, inline+"\n"+split)); out != "" {
		t.Errorf("onnx.checker: %s", out)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "m.onnx"), m); err == nil {
		t.Errorf("writing into a missing directory succeeded")
	}
}

// bigModelSmall is a two-layer MatMul model with 64 KiB of weights.
func bigModelSmall(t *testing.T) *graph.Model {
	t.Helper()
	b := graph.NewBuilder("mlp")
	x := b.Input("x", graph.Float32, 1, 128)
	for i := 0; i < 2; i++ {
		w := graph.NewTensor(graph.Float32, 128, 64*(2-i))
		for j := range w.Float32s() {
			w.Float32s()[j] = float32(j)
		}
		x = b.Op("MatMul", []*graph.Value{x, b.Const("w", w)}, nil)
	}
	b.Output(x)
	return graphtest.Model(t, b)
}
