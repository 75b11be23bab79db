package onnx

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// pyMakeModels writes small models built with onnx.helper into the
// directory given as argv[1].
const pyMakeModels = pyPrelude + `
from onnx.external_data_helper import convert_model_to_external_data
def save(name, nodes, inputs, outputs, opset, inits=(), value_info=(), **kw):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits), value_info=list(value_info))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)], **kw)
    onnx.save(m, os.path.join(out, name + '.onnx'))
    return m

m = helper.make_model(helper.make_graph(
    [helper.make_node('Relu', ['x'], ['r'], name='relu', doc_string='relu doc'),
     helper.make_node('Add', ['r', 'b'], ['y'], name='add')],
    'sym', [vi('x', ['batch', 3, None])], [vi('y', ['batch', 3, None])],
    initializer=[numpy_helper.from_array(np.arange(3, dtype=np.float32).reshape(3, 1), 'b')],
    value_info=[vi('r', ['batch', 3, None])], doc_string='graph doc'),
    opset_imports=[helper.make_opsetid('', 13)], producer_name='helper-test', producer_version='0.1',
    doc_string='model doc', model_version=3, domain='org.test')
helper.set_model_props(m, {'author': 'xrl', 'license': 'MIT'})
onnx.save(m, os.path.join(out, 'sym.onnx'))

then_g = helper.make_graph([helper.make_node('Relu', ['x'], ['t'])], 'then', [], [vi('t', [2])])
else_g = helper.make_graph([helper.make_node('Neg', ['x'], ['e'])], 'else', [], [vi('e', [2])])
save('if', [helper.make_node('If', ['c'], ['y'], name='branch', then_branch=then_g, else_branch=else_g)],
     [vi('c', [], TensorProto.BOOL), vi('x', [2])], [vi('y', [2])], 13)

save('squeeze11', [helper.make_node('Squeeze', ['x'], ['y'], name='sq', axes=[1])], [vi('x', [2, 1, 3])], [vi('y', [2, 3])], 11)
save('split11', [helper.make_node('Split', ['x'], ['a', 'b'], name='sp', axis=1, split=[2, 3])],
     [vi('x', [4, 5])], [vi('a', [4, 2]), vi('b', [4, 3])], 11)
save('clip9', [helper.make_node('Clip', ['x'], ['y'], name='clip', min=0.0, max=6.0)], [vi('x', [4])], [vi('y', [4])], 9)
save('pad9', [helper.make_node('Pad', ['x'], ['y'], name='pad', pads=[0, 1, 0, 2], value=1.5)], [vi('x', [2, 2])], [vi('y', [2, 5])], 9)
save('slice9', [helper.make_node('Slice', ['x'], ['y'], name='slice', starts=[1], ends=[3], axes=[1])], [vi('x', [2, 4])], [vi('y', [2, 2])], 9)
save('softmax11', [helper.make_node('Softmax', ['x'], ['y'], name='sm', axis=1)], [vi('x', [2, 3, 4])], [vi('y', [2, 3, 4])], 11)
save('softmax11sym', [helper.make_node('Softmax', ['x'], ['y'], name='sm', axis=1)], [vi('x', ['n', 'c', 4])], [vi('y', ['n', 'c', 4])], 11)
save('clip10after', [helper.make_node('Relu', ['x'], ['r'], name='relu'), helper.make_node('Clip', ['r'], ['y'], name='clip', max=6.0)],
     [vi('x', ['n', 4])], [vi('y', ['n', 4])], 10)
save('softmax10after', [helper.make_node('Relu', ['x'], ['r'], name='relu'), helper.make_node('Softmax', ['r'], ['y'], name='sm', axis=2)],
     [vi('x', ['n', 5, 4])], [vi('y', ['n', 5, 4])], 10)
save('resize10', [helper.make_node('Resize', ['x', 's'], ['y'], name='rs', mode='nearest')],
     [vi('x', [1, 1, 2, 2])], [vi('y', [1, 1, 4, 4])], 10,
     inits=[numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), 's')])
save('dangling', [helper.make_node('Relu', ['nope'], ['y'], name='r')], [vi('x', [1])], [vi('y', [1])], 13)
save('dupout', [helper.make_node('Relu', ['x'], ['y'], name='r1'), helper.make_node('Neg', ['x'], ['y'], name='r2')],
     [vi('x', [1])], [vi('y', [1])], 13)
save('cyclic', [helper.make_node('Add', ['x', 'b'], ['a'], name='n1'), helper.make_node('Relu', ['a'], ['b'], name='n2')],
     [vi('x', [1])], [vi('a', [1])], 13)
save('unsorted', [helper.make_node('Neg', ['a'], ['y'], name='second'), helper.make_node('Relu', ['x'], ['a'], name='first')],
     [vi('x', [1])], [vi('y', [1])], 13)
save('new22', [helper.make_node('Relu', ['x'], ['y'], name='r')], [vi('x', [1])], [vi('y', [1])], 22)
fn = helper.make_function('com.local', 'MyRelu', ['a'], ['b'], [helper.make_node('Relu', ['a'], ['b'])],
                          [helper.make_opsetid('', 13)])
sp = helper.make_sparse_tensor(numpy_helper.from_array(np.array([5.0], dtype=np.float32), 'sp'),
                               numpy_helper.from_array(np.array([2], dtype=np.int64), 'sp_idx'), [4])
g = helper.make_graph(
    [helper.make_node('Add', ['x', 'sp'], ['s'], name='add'),
     helper.make_node('MyRelu', ['s'], ['r'], name='local', domain='com.local'),
     helper.make_node('Relu', ['r'], ['y'], name='relu')],
    'extras', [vi('x', [4]), vi('d', [4])], [vi('y', [4])],
    initializer=[numpy_helper.from_array(np.ones(4, dtype=np.float32), 'd')],
    value_info=[helper.make_tensor_value_info('r', F, [4], shape_denotation=['DATA_CHANNEL'])],
    sparse_initializer=[sp])
qa = onnx.TensorAnnotation(tensor_name='y')
qa.quant_parameter_tensor_names.add(key='SCALE_TENSOR', value='x')
g.quantization_annotation.append(qa)
m = helper.make_model(g, functions=[fn], opset_imports=[helper.make_opsetid('', 13), helper.make_opsetid('com.local', 1)])
onnx.save(m, os.path.join(out, 'extras.onnx'))

m = save('external', [helper.make_node('MatMul', ['x', 'w'], ['y'], name='mm')], [vi('x', [1, 64])], [vi('y', [1, 64])], 13,
     inits=[numpy_helper.from_array(np.arange(64 * 64, dtype=np.float32).reshape(64, 64), 'w')])
convert_model_to_external_data(m, all_tensors_to_one_file=True, location='external.weights', size_threshold=1024)
onnx.save(m, os.path.join(out, 'external.onnx'))
`

// makeHelperModels writes the helper-built models into a temporary
// directory and returns it.
func makeHelperModels(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	runPython(t, pyMakeModels, "", dir)
	return dir
}

// roundTrip encodes m, checks the result with onnx.checker, decodes it
// again and checks that the canonical hash and the bytes are stable.
func roundTrip(t *testing.T, m *graph.Model) *graph.Model {
	t.Helper()
	enc, err := Encode(m)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	path := filepath.Join(t.TempDir(), "out.onnx")
	if err := os.WriteFile(path, enc, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := strings.TrimSpace(runPython(t, pyCheckModels, path)); out != "" {
		t.Errorf("onnx.checker: %s", out)
	}
	m2, err := Decode(enc, DecodeOptions{})
	if err != nil {
		t.Fatalf("decode of encoded model: %v", err)
	}
	if m.Graph.CanonicalHash() != m2.Graph.CanonicalHash() {
		t.Errorf("canonical hash changed by a round trip")
	}
	enc2, err := Encode(m2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, enc2) {
		t.Errorf("encoding is not stable")
	}
	return m2
}

// findNode returns the only node with op, failing otherwise.
func findNode(t *testing.T, g *graph.Graph, op string) *graph.Node {
	t.Helper()
	var found *graph.Node
	for _, n := range g.Nodes {
		if n.Op == op {
			if found != nil {
				t.Fatalf("two %s nodes", op)
			}
			found = n
		}
	}
	if found == nil {
		t.Fatalf("no %s node among %d nodes", op, len(g.Nodes))
	}
	return found
}

// constInts returns the int64 constant of input i of n.
func constInts(t *testing.T, n *graph.Node, i int) []int64 {
	t.Helper()
	v := n.Input(i)
	if v == nil || v.Const == nil {
		t.Fatalf("%v: input %d is not a constant", n, i)
	}
	return v.Const.Int64s()
}

func TestHelperModels(t *testing.T) {
	dir := makeHelperModels(t)
	load := func(t *testing.T, name string) *graph.Model {
		t.Helper()
		m, err := ReadFile(filepath.Join(dir, name+".onnx"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	t.Run("symbolic dims and metadata", func(t *testing.T) {
		m := load(t, "sym")
		if m.ProducerName != "helper-test" || m.ProducerVersion != "0.1" || m.Doc != "model doc" ||
			m.ModelVersion != 3 || m.Domain != "org.test" || m.Opset("") != 13 || m.Graph.Doc != "graph doc" {
			t.Errorf("model fields: %+v", m)
		}
		if fmt.Sprint(m.Metadata) != "[{author xrl} {license MIT}]" {
			t.Errorf("metadata %v", m.Metadata)
		}
		x := m.Graph.Inputs[0]
		want := graph.Shape{{Value: -1, Param: "batch"}, {Value: 3}, {Value: -1}}
		if !x.ShapeKnown || !x.Shape.Equal(want) || x.DType != graph.Float32 {
			t.Errorf("input x: %v %v known=%v", x.DType, x.Shape, x.ShapeKnown)
		}
		relu := findNode(t, m.Graph, "Relu")
		if relu.Name != "relu" || relu.Doc != "relu doc" || relu.IsOpaque() {
			t.Errorf("relu node %+v", relu)
		}
		if r := relu.Outputs[0]; !r.Shape.Equal(want) {
			t.Errorf("value_info of r: %v", r.Shape)
		}
		if len(m.Graph.Initializers) != 1 || m.Graph.Initializers[0].Name != "b" {
			t.Errorf("initializers %v", m.Graph.Initializers)
		}
		m2 := roundTrip(t, m)
		if fmt.Sprint(m2.Metadata) != fmt.Sprint(m.Metadata) || m2.Graph.Inputs[0].Shape.String() != "batchx3x?" {
			t.Errorf("after round trip: %v %v", m2.Metadata, m2.Graph.Inputs[0].Shape)
		}
	})
	t.Run("opaque If reads outer value", func(t *testing.T) {
		m := load(t, "if")
		n := findNode(t, m.Graph, "If")
		if !n.IsOpaque() || len(n.Implicit) != 1 || n.Implicit[0].Name != "x" || n.Implicit[0] != m.Graph.Inputs[1] {
			t.Fatalf("If node: opaque=%v implicit=%v", n.IsOpaque(), n.Implicit)
		}
		// Renaming the outer value must not break the subgraph reference.
		m.Graph.Inputs[0].Name = "x"
		m2 := roundTrip(t, m)
		n2 := findNode(t, m2.Graph, "If")
		if n2.Implicit[0].Name != "x" || m2.Graph.Inputs[0].Name == "x" {
			t.Errorf("subgraph input renamed: implicit %q, first input %q", n2.Implicit[0].Name, m2.Graph.Inputs[0].Name)
		}
	})
	t.Run("Squeeze opset 11", func(t *testing.T) {
		m := load(t, "squeeze11")
		n := findNode(t, m.Graph, "Squeeze")
		if n.IsOpaque() || fmt.Sprint(constInts(t, n, 1)) != "[1]" || len(n.Attrs) != 0 {
			t.Fatalf("Squeeze: %+v", n)
		}
		if len(m.Graph.Initializers) != 0 {
			t.Errorf("attribute constant listed as initializer")
		}
		roundTrip(t, m)
	})
	t.Run("Split opset 11", func(t *testing.T) {
		m := load(t, "split11")
		n := findNode(t, m.Graph, "Split")
		if n.IsOpaque() || fmt.Sprint(constInts(t, n, 1)) != "[2 3]" || n.AttrInt("axis") != 1 || len(n.Outputs) != 2 {
			t.Fatalf("Split: %+v", n)
		}
		roundTrip(t, m)
	})
	t.Run("Clip opset 9", func(t *testing.T) {
		m := load(t, "clip9")
		n := findNode(t, m.Graph, "Clip")
		if n.IsOpaque() || len(n.Inputs) != 3 {
			t.Fatalf("Clip: %+v", n)
		}
		lo, hi := n.Inputs[1].Const, n.Inputs[2].Const
		if lo.DType != graph.Float32 || lo.Float32s()[0] != 0 || hi.Float32s()[0] != 6 || len(lo.Shape) != 0 {
			t.Errorf("Clip bounds %v %v", lo, hi)
		}
		roundTrip(t, m)
	})
	t.Run("Clip opset 10 after a node: bounds of its input's type", func(t *testing.T) {
		m := load(t, "clip10after")
		n := findNode(t, m.Graph, "Clip")
		if n.IsOpaque() || n.Inputs[1] != nil || n.Inputs[2].Const.DType != graph.Float32 || n.Inputs[2].Const.Float32s()[0] != 6 {
			t.Fatalf("Clip: %+v", n)
		}
		roundTrip(t, m)
	})
	t.Run("Softmax opset 10 over the last axis of an inferred rank", func(t *testing.T) {
		m := load(t, "softmax10after")
		n := findNode(t, m.Graph, "Softmax")
		if n.IsOpaque() || n.AttrInt("axis") != 2 || n.Inputs[0].Name != "r" {
			t.Fatalf("Softmax: %+v", n)
		}
		roundTrip(t, m)
	})
	t.Run("Pad opset 9", func(t *testing.T) {
		m := load(t, "pad9")
		n := findNode(t, m.Graph, "Pad")
		if n.IsOpaque() || fmt.Sprint(constInts(t, n, 1)) != "[0 1 0 2]" || n.Inputs[2].Const.Float32s()[0] != 1.5 {
			t.Fatalf("Pad: %+v", n)
		}
		roundTrip(t, m)
	})
	t.Run("Slice opset 9", func(t *testing.T) {
		m := load(t, "slice9")
		n := findNode(t, m.Graph, "Slice")
		if n.IsOpaque() || len(n.Inputs) != 4 || fmt.Sprint(constInts(t, n, 1), constInts(t, n, 2), constInts(t, n, 3)) != "[1] [3] [1]" {
			t.Fatalf("Slice: %+v", n)
		}
		roundTrip(t, m)
	})
	t.Run("Softmax opset 11 axis 1 of rank 3", func(t *testing.T) {
		m := load(t, "softmax11")
		fl, sm, rs := findNode(t, m.Graph, "Flatten"), findNode(t, m.Graph, "Softmax"), findNode(t, m.Graph, "Reshape")
		if fl.AttrInt("axis") != 1 || sm.AttrInt("axis") != -1 || sm.Name != "sm" || fmt.Sprint(constInts(t, rs, 1)) != "[2 3 4]" {
			t.Fatalf("Softmax rewrite: flatten %v softmax %v reshape %v", fl.Attrs, sm.Attrs, rs.Inputs)
		}
		if sm.Inputs[0] != fl.Outputs[0] || rs.Inputs[0] != sm.Outputs[0] || rs.Outputs[0] != m.Graph.Outputs[0] {
			t.Errorf("Softmax rewrite is not wired Flatten -> Softmax -> Reshape")
		}
		if s := fl.Outputs[0].Shape.String(); s != "2x12" {
			t.Errorf("flattened shape %s", s)
		}
		roundTrip(t, m)
	})
	t.Run("Softmax opset 11 with two unknown dims stays opaque", func(t *testing.T) {
		m := load(t, "softmax11sym")
		if n := findNode(t, m.Graph, "Softmax"); !n.IsOpaque() {
			t.Fatalf("Softmax: %+v", n)
		}
		roundTrip(t, m)
	})
	t.Run("Resize opset 10", func(t *testing.T) {
		m := load(t, "resize10")
		n := findNode(t, m.Graph, "Resize")
		if n.IsOpaque() || len(n.Inputs) != 3 || n.Inputs[1] != nil || n.Inputs[2].Name != "s" ||
			n.AttrString("coordinate_transformation_mode") != "asymmetric" || n.AttrString("nearest_mode") != "floor" {
			t.Fatalf("Resize: %+v", n)
		}
		roundTrip(t, m)
	})
	t.Run("unsorted nodes are sorted", func(t *testing.T) {
		m := load(t, "unsorted")
		if m.Graph.Nodes[0].Name != "first" {
			t.Errorf("node order %v, %v", m.Graph.Nodes[0], m.Graph.Nodes[1])
		}
		roundTrip(t, m)
	})
	t.Run("cyclic graph decodes, does not encode", func(t *testing.T) {
		m := load(t, "cyclic")
		if len(m.Graph.Nodes) != 2 || m.Graph.Nodes[0].Name != "n1" {
			t.Fatalf("nodes %v", m.Graph.Nodes)
		}
		_, err := Encode(m)
		var ce *graph.CycleError
		if !errors.As(err, &ce) {
			t.Errorf("encode error %v, want a cycle error", err)
		}
	})
	t.Run("opset 22 is all opaque", func(t *testing.T) {
		m := load(t, "new22")
		if !m.Graph.Nodes[0].IsOpaque() {
			t.Errorf("opset-22 node imported as IR")
		}
		roundTrip(t, m)
	})
	t.Run("fields kept in Extra", func(t *testing.T) {
		m := load(t, "extras")
		if len(m.Extra) == 0 || len(m.Graph.Extra) == 0 {
			t.Fatalf("model Extra %d bytes, graph Extra %d bytes", len(m.Extra), len(m.Graph.Extra))
		}
		d := m.Graph.Inputs[1]
		if d.Name != "d" || d.Const == nil || len(m.Graph.Initializers) != 1 || m.Graph.Initializers[0] != d {
			t.Errorf("input with initializer default: %+v", d)
		}
		if n := findNode(t, m.Graph, "MyRelu"); !n.IsOpaque() || n.Domain != "com.local" {
			t.Errorf("local function call: %+v", n)
		}
		if add := findNode(t, m.Graph, "Add"); add.IsOpaque() || add.Inputs[1].Name != "sp" {
			t.Errorf("Add reading a sparse initializer: %+v", add)
		}
		findNode(t, m.Graph, "Add").Outputs[0].Name = "sp" // clashes with the sparse initializer
		m2 := roundTrip(t, m)
		mp := encodeProto(t, m2)
		if len(mp.Functions) != 1 || len(mp.Graph.SparseInitializer) != 1 || len(mp.Graph.QuantizationAnnotation) != 1 {
			t.Errorf("functions %d, sparse initializers %d, annotations %d", len(mp.Functions), len(mp.Graph.SparseInitializer), len(mp.Graph.QuantizationAnnotation))
		}
		if add := findNode(t, m2.Graph, "Add"); add.Inputs[1].Name != "sp" {
			t.Errorf("sparse initializer reference renamed to %q", add.Inputs[1].Name)
		}
		var denot string
		for _, vi := range mp.Graph.ValueInfo {
			if vi.GetName() == "r" {
				denot = vi.GetType().GetTensorType().GetShape().GetDim()[0].GetDenotation()
			}
		}
		if denot != "DATA_CHANNEL" {
			t.Errorf("value_info denotation lost: %q", denot)
		}
	})
	t.Run("external data", func(t *testing.T) {
		m := load(t, "external")
		w := m.Graph.Initializers[0].Const.Float32s()
		if len(w) != 64*64 || w[4095] != 4095 {
			t.Fatalf("external weights not loaded: %d values", len(w))
		}
		roundTrip(t, m)
	})
}

func TestDecodeErrors(t *testing.T) {
	dir := makeHelperModels(t)
	good := readFile(t, filepath.Join(dir, "sym.onnx"))
	noWeights := t.TempDir()
	ext := readFile(t, filepath.Join(dir, "external.onnx"))
	if err := os.WriteFile(filepath.Join(noWeights, "m.onnx"), ext, 0o644); err != nil {
		t.Fatal(err)
	}
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*7919>>3) ^ byte(i)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path string
		want       []string
	}{
		{"missing file", filepath.Join(dir, "nope.onnx"), []string{"nope.onnx", "no such file"}},
		{"empty file", write("empty.onnx", nil), []string{"empty.onnx: not a valid ONNX model: empty input"}},
		{"random bytes", write("random.onnx", random), []string{"random.onnx: not a valid ONNX model"}},
		{"truncated", write("trunc.onnx", good[:len(good)-7]), []string{"trunc.onnx: not a valid ONNX model"}},
		{"dangling input", filepath.Join(dir, "dangling.onnx"), []string{"dangling.onnx", `node "r" (Relu): input "nope" is not defined`}},
		{"duplicate output", filepath.Join(dir, "dupout.onnx"), []string{"dupout.onnx", `node "r2" (Neg): output "y" is already defined`}},
		{"external data missing", filepath.Join(noWeights, "m.onnx"), []string{"m.onnx", "external.weights", "no such file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFile(tc.path)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	if _, err := Decode(ext, DecodeOptions{}); err == nil || !strings.Contains(err.Error(), "no base directory") {
		t.Errorf("external data without BaseDir: %v", err)
	}
}
