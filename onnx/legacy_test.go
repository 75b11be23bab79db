package onnx

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// pyLegacyOpaque writes models of opsets below 9 whose node "n" must stay
// opaque, named after the reason, and models mixing opaque and IR nodes.
const pyLegacyOpaque = pyPrelude + `
def save(name, opset, nodes, inputs, outputs, inits=(), value_info=()):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits), value_info=list(value_info))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)])
    m.ir_version = 3
    onnx.save(m, os.path.join(out, name + '.onnx'))
N = helper.make_node
bn_in = [vi(k, [3]) for k in 'sbmv']
bn_init = [numpy_helper.from_array(np.ones(3, dtype=np.float32), k) for k in 'sbmv']
x4 = vi('x', [2, 3, 4, 5])
save('bn_training_default', 6, [N('BatchNormalization', ['x', 's', 'b', 'm', 'v'], ['y'], name='n')],
     [x4] + bn_in, [vi('y', [2, 3, 4, 5])], bn_init)
save('bn_is_test_0', 6, [N('BatchNormalization', ['x', 's', 'b', 'm', 'v'], ['y'], name='n', is_test=0)],
     [x4] + bn_in, [vi('y', [2, 3, 4, 5])], bn_init)
save('bn_spatial_0', 7, [N('BatchNormalization', ['x', 's', 'b', 'm', 'v'], ['y'], name='n', spatial=0)],
     [x4] + bn_in, [vi('y', [2, 3, 4, 5])], bn_init)
save('bn_training_outputs', 7, [N('BatchNormalization', ['x', 's', 'b', 'm', 'v'], ['y', 'm2', 'v2', 'sm', 'sv'], name='n')],
     [x4] + bn_in, [vi('y', [2, 3, 4, 5]), vi('m2', [3]), vi('v2', [3]), vi('sm', [3]), vi('sv', [3])], bn_init)
save('bn_training_outputs_opset9', 9, [N('BatchNormalization', ['x', 's', 'b', 'm', 'v'], ['y', 'm2', 'v2'], name='n')],
     [x4] + bn_in, [vi('y', [2, 3, 4, 5]), vi('m2', [3]), vi('v2', [3])], bn_init)
save('dropout_training_default', 6, [N('Dropout', ['x'], ['y'], name='n')], [vi('x', [2])], [vi('y', [2])])
save('dropout_mask_typed_like_input', 7, [N('Dropout', ['x'], ['y', 'mask'], name='n')], [vi('x', [2])],
     [vi('y', [2]), vi('mask', [2])])
save('cast_to_string', 5, [N('Cast', ['x'], ['y'], name='n', to='STRING')], [vi('x', [2])], [vi('y', [2], TensorProto.STRING)])
save('cast_unknown_name', 5, [N('Cast', ['x'], ['y'], name='n', to='float')], [vi('x', [2])], [vi('y', [2])])
save('split_input_form', 1, [N('Split', ['x', 'sp'], ['p', 'q'], name='n', axis=0)],
     [vi('x', [4]), vi('sp', [2], TensorProto.INT64)], [vi('p', [1]), vi('q', [3])])
save('split_without_axis', 1, [N('Split', ['x'], ['p', 'q'], name='n')], [vi('x', [4])], [vi('p', [2]), vi('q', [2])])
save('avgpool_count_include_pad_before_7', 6, [N('AveragePool', ['x'], ['y'], name='n', kernel_shape=[2], count_include_pad=1)],
     [vi('x', [1, 1, 4])], [vi('y', [1, 1, 3])])
save('maxpool_indices_before_8', 7, [N('MaxPool', ['x'], ['y', 'i'], name='n', kernel_shape=[2])],
     [vi('x', [1, 1, 4])], [vi('y', [1, 1, 3]), vi('i', [1, 1, 3], TensorProto.INT64)])
save('erf_before_9', 8, [N('Erf', ['x'], ['y'], name='n')], [vi('x', [2])], [vi('y', [2])])
save('add_shapes_differ', 6, [N('Add', ['a', 'b'], ['y'], name='n')], [vi('a', [2, 3]), vi('b', [3])], [vi('y', [2, 3])])
save('add_broadcast_2', 6, [N('Add', ['a', 'b'], ['y'], name='n', broadcast=2)], [vi('a', [2, 3]), vi('b', [3])], [vi('y', [2, 3])])
save('add_axis_out_of_range', 6, [N('Add', ['a', 'b'], ['y'], name='n', broadcast=1, axis=2)],
     [vi('a', [2, 3]), vi('b', [3])], [vi('y', [2, 3])])
save('add_b_not_aligned', 6, [N('Add', ['a', 'b'], ['y'], name='n', broadcast=1)], [vi('a', [2, 3]), vi('b', [2])], [vi('y', [2, 3])])
save('add_axis_rank_unknown', 6, [N('Relu', ['b0'], ['b'], name='r'), N('Add', ['a', 'b'], ['y'], name='n', broadcast=1, axis=0)],
     [vi('a', [2, 3]), vi('b0', [2])], [vi('y', [2, 3])])
save('max_shapes_differ', 7, [N('Max', ['a', 'b'], ['y'], name='n')], [vi('a', [2, 3]), vi('b', [3])], [vi('y', [2, 3])])
save('reshape_without_shape', 4, [N('Reshape', ['x'], ['y'], name='n')], [vi('x', [2, 3])], [vi('y', [6])])
save('clip_consumed_after_6', 6, [N('Clip', ['x'], ['y'], name='n', consumed_inputs=[0])], [vi('x', [2])], [vi('y', [2])])

# Mixed models: LpNormalization has no schema, so the opset cannot be raised on export.
save('mixed', 6, [
    N('LpNormalization', ['x'], ['neg'], name='neg'),
    N('Add', ['x', 'z'], ['sum'], name='same_shape'),
    N('Mul', ['neg', 'x'], ['prod'], name='unknown_shape'),
    N('Relu', ['sum'], ['r'], name='unary'),
    N('Add', ['x', 'c'], ['bc'], name='suffix', broadcast=1),
    N('Mul', ['t', 'd'], ['ax'], name='axis_aligned', broadcast=1, axis=1),
    N('Reshape', ['x', 'shp'], ['flat'], name='reshape'),
    N('Softmax', ['t'], ['sm'], name='softmax', axis=1),
    N('Gemm', ['x', 'w', 'c'], ['g'], name='gemm', transB=1),
    N('BatchNormalization', ['t', 's', 'b', 'm', 'v'], ['bn'], name='bn', is_test=1),
], [vi('x', [2, 3]), vi('z', [2, 3]), vi('c', [3]), vi('t', [2, 3, 4]), vi('d', [3]), vi('w', [3, 3]),
    vi('shp', [1], TensorProto.INT64)] + bn_in,
   [vi('prod', [2, 3]), vi('r', [2, 3]), vi('bc', [2, 3]), vi('ax', [2, 3, 4]), vi('flat', [6]), vi('sm', [2, 3, 4]),
    vi('g', [2, 3]), vi('bn', [2, 3, 4])], bn_init)
`

func TestLegacyImportOpaque(t *testing.T) {
	dir := t.TempDir()
	runPython(t, pyLegacyOpaque, "", dir)
	cases := []string{
		"bn_training_default", "bn_is_test_0", "bn_spatial_0", "bn_training_outputs", "bn_training_outputs_opset9",
		"dropout_training_default", "dropout_mask_typed_like_input", "cast_to_string", "cast_unknown_name",
		"split_input_form", "split_without_axis", "avgpool_count_include_pad_before_7", "maxpool_indices_before_8",
		"erf_before_9", "add_shapes_differ", "add_broadcast_2", "add_axis_out_of_range", "add_b_not_aligned",
		"add_axis_rank_unknown", "max_shapes_differ", "reshape_without_shape", "clip_consumed_after_6",
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			m, err := ReadFile(filepath.Join(dir, name+".onnx"))
			if err != nil {
				t.Fatal(err)
			}
			var n *graph.Node
			for _, x := range m.Graph.Nodes {
				if x.Name == "n" {
					n = x
				}
			}
			if n == nil || !n.IsOpaque() {
				t.Fatalf("node n imported as IR: %+v", n)
			}
			m2 := recode(t, m)
			if m2.Opset("") != m.Opset("") || m2.Graph.CanonicalHash() != m.Graph.CanonicalHash() {
				t.Errorf("round trip: opset %d -> %d, hash changed %v", m.Opset(""), m2.Opset(""),
					m2.Graph.CanonicalHash() != m.Graph.CanonicalHash())
			}
		})
	}
}

// TestLegacyMixedModel imports an opset-6 model with an operator outside
// the schema table: IR nodes are kept only where the opset-6 form can be
// written back, and the export keeps opset 6.
func TestLegacyMixedModel(t *testing.T) {
	dir := t.TempDir()
	runPython(t, pyLegacyOpaque, "", dir)
	m, err := ReadFile(filepath.Join(dir, "mixed.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{ // node name -> stays opaque
		"neg": true, "same_shape": false, "unknown_shape": true, "unary": false, "suffix": false,
		"axis_aligned": true, "reshape": false, "softmax": false, "gemm": false, "bn": false,
	}
	for _, n := range m.Graph.Nodes {
		if strings.HasPrefix(n.Name, "softmax_") {
			continue // the Flatten and Reshape of the softmax rewrite
		}
		if opaque, ok := want[n.Name]; !ok || opaque != n.IsOpaque() {
			t.Errorf("%v: opaque=%v, want %v (listed %v)", n, n.IsOpaque(), opaque, ok)
		}
	}
	m2 := roundTrip(t, m)
	if m2.Opset("") != 6 {
		t.Errorf("mixed model exported at opset %d, want 6", m2.Opset(""))
	}
	mp := encodeProto(t, m)
	for _, np := range mp.Graph.Node {
		attrs := map[string]string{}
		for _, a := range np.Attribute {
			attrs[a.GetName()] = a.String()
		}
		switch np.GetName() {
		case "suffix":
			if _, ok := attrs["broadcast"]; !ok {
				t.Errorf("suffix Add written without broadcast: %v", np)
			}
		case "same_shape":
			if len(attrs) != 0 {
				t.Errorf("same-shape Add written with attributes: %v", np)
			}
		case "bn":
			if _, ok := attrs["is_test"]; !ok {
				t.Errorf("BatchNormalization-6 written without is_test: %v", np)
			}
		case "gemm":
			if _, ok := attrs["broadcast"]; !ok {
				t.Errorf("Gemm-6 written without broadcast: %v", np)
			}
		}
	}
}

// oldModel is a model at default-domain opset with one IR node and, when
// pinned, an opaque default-domain node that keeps the export from raising
// the opset.
func oldModel(t *testing.T, opset int64, pinned bool, build func(b *graph.Builder) *graph.Value) *graph.Model {
	t.Helper()
	b := graph.NewBuilder("old")
	y := build(b)
	b.Output(y)
	g := graphtest.Graph(t, b)
	if pinned {
		raw, err := opaqueBytes(&onnxpb.NodeProto{OpType: proto.String("LpNormalization")})
		if err != nil {
			t.Fatal(err)
		}
		z := &graph.Value{Name: "pin"}
		z.SetStatic(y.DType, y.Shape.Ints())
		g.Nodes = append(g.Nodes, &graph.Node{Name: "pin", Op: "LpNormalization", Inputs: []*graph.Value{y}, Outputs: []*graph.Value{z}, Opaque: raw})
		g.Outputs = append(g.Outputs, z)
	}
	return &graph.Model{Graph: g, IRVersion: 3, Opsets: []graph.OpsetID{{Version: opset}}}
}

// TestLegacyExport writes IR nodes in the forms of opsets below 9 when the
// opset cannot be raised, and raises it to 9 when it can.
func TestLegacyExport(t *testing.T) {
	f32 := func(b *graph.Builder, name string, shape ...int) *graph.Value {
		return b.Input(name, graph.Float32, shape...)
	}
	cases := []struct {
		name  string
		opset int64
		build func(b *graph.Builder) *graph.Value
		// attrs is the written node's attributes (name=value, sorted), or
		// the error the export must fail with.
		attrs, err string
	}{
		{"BatchNormalization-5", 5, func(b *graph.Builder) *graph.Value {
			c := b.Const("c", graph.FromFloat32([]float32{1, 2}, 2))
			return b.Op("BatchNormalization", []*graph.Value{f32(b, "x", 1, 2, 3), c, c, c, c}, nil)
		}, "consumed_inputs=[0 0 0 0 0] is_test=1", ""},
		{"Cast-5", 5, func(b *graph.Builder) *graph.Value {
			return b.Op("Cast", []*graph.Value{f32(b, "x", 2)}, graph.Attrs{"to": graph.IntAttr(int64(graph.Int64))})
		}, "to=INT64", ""},
		{"Cast-8 to string", 8, func(b *graph.Builder) *graph.Value {
			return b.Op("Cast", []*graph.Value{f32(b, "x", 2)}, graph.Attrs{"to": graph.IntAttr(int64(graph.String))})
		}, "", "cannot raise"},
		{"Pad-1", 1, func(b *graph.Builder) *graph.Value {
			return b.Op("Pad", []*graph.Value{f32(b, "x", 2), b.Const("p", graph.FromInt64([]int64{1, 2}, 2))}, nil)
		}, "paddings=[1 2]", ""},
		{"Reshape-4", 4, func(b *graph.Builder) *graph.Value {
			return b.Op("Reshape", []*graph.Value{f32(b, "x", 2, 3), b.Const("s", graph.FromInt64([]int64{-1}, 1))}, nil)
		}, "shape=[-1]", ""},
		{"Split-1", 1, func(b *graph.Builder) *graph.Value {
			return b.OpN("Split", []*graph.Value{f32(b, "x", 4)}, nil, 2)[0]
		}, "axis=0", ""},
		{"Dropout-6", 6, func(b *graph.Builder) *graph.Value {
			return b.Op("Dropout", []*graph.Value{f32(b, "x", 4)}, nil)
		}, "is_test=1", ""},
		{"Gemm-6", 6, func(b *graph.Builder) *graph.Value {
			return b.Op("Gemm", []*graph.Value{f32(b, "a", 2, 3), f32(b, "w", 3, 4), f32(b, "c", 4)}, nil)
		}, "broadcast=1", ""},
		{"Add-6 suffix", 6, func(b *graph.Builder) *graph.Value {
			return b.Op("Add", []*graph.Value{f32(b, "a", 2, 3), f32(b, "c", 3)}, nil)
		}, "broadcast=1", ""},
		{"Add-6 scalar", 6, func(b *graph.Builder) *graph.Value {
			return b.Op("Add", []*graph.Value{f32(b, "a", 2, 3), f32(b, "c", 1, 1)}, nil)
		}, "broadcast=1", ""},
		{"Add-6 same shape", 6, func(b *graph.Builder) *graph.Value {
			return b.Op("Add", []*graph.Value{f32(b, "a", 2, 3), f32(b, "c", 2, 3)}, nil)
		}, "", ""},
		{"Add-6 two-way broadcast", 6, func(b *graph.Builder) *graph.Value {
			return b.Op("Add", []*graph.Value{f32(b, "a", 3, 1), f32(b, "c", 1, 4)}, nil)
		}, "", "cannot raise"},
		{"Max-7 broadcast", 7, func(b *graph.Builder) *graph.Value {
			return b.Op("Max", []*graph.Value{f32(b, "a", 2, 3), f32(b, "c", 3)}, nil)
		}, "", "cannot raise"},
		{"AveragePool-6 count_include_pad", 6, func(b *graph.Builder) *graph.Value {
			return b.Op("AveragePool", []*graph.Value{f32(b, "x", 1, 1, 4)}, graph.Attrs{
				"kernel_shape": graph.IntsAttr(2), "count_include_pad": graph.IntAttr(1)})
		}, "", "cannot raise"},
		{"AveragePool-6 default", 6, func(b *graph.Builder) *graph.Value {
			return b.Op("AveragePool", []*graph.Value{f32(b, "x", 1, 1, 4)}, graph.Attrs{
				"kernel_shape": graph.IntsAttr(2), "count_include_pad": graph.IntAttr(0)})
		}, "kernel_shape=[2]", ""},
		{"Erf-8", 8, func(b *graph.Builder) *graph.Value {
			return b.Op("Erf", []*graph.Value{f32(b, "x", 2)}, nil)
		}, "", "cannot raise"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := oldModel(t, c.opset, true, c.build)
			enc, err := Encode(m)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("export: %v, want an error with %q", err, c.err)
				}
				if free, err := Encode(oldModel(t, c.opset, false, c.build)); err != nil {
					t.Errorf("export without the opaque node: %v", err)
				} else if o := decodeOpset(t, free); o < 9 {
					t.Errorf("export without the opaque node at opset %d, want raised", o)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mp := new(onnxpb.ModelProto)
			if err := proto.Unmarshal(enc, mp); err != nil {
				t.Fatal(err)
			}
			if v := mp.OpsetImport[0].GetVersion(); v != c.opset {
				t.Errorf("written at opset %d, want %d", v, c.opset)
			}
			if got := attrSummary(mp.Graph.Node[0]); got != c.attrs {
				t.Errorf("attributes %q, want %q", got, c.attrs)
			}
			// Lossless from the written file on (IR built with an explicit
			// default the old opset cannot state loses it once).
			m1, err := Decode(enc, DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, m1)
			// Without the opaque node the model is raised to opset 9.
			raised := encodeProto(t, oldModel(t, c.opset, false, c.build))
			if v := raised.OpsetImport[0].GetVersion(); v != 9 || raised.GetIrVersion() != 4 {
				t.Errorf("raised to opset %d ir_version %d, want 9 and 4", v, raised.GetIrVersion())
			}
		})
	}
}

// decodeOpset returns the default-domain opset of an encoded model.
func decodeOpset(t *testing.T, b []byte) int64 {
	t.Helper()
	m, err := Decode(b, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m.Opset("")
}

// attrSummary formats np's attributes as sorted "name=value" pairs.
func attrSummary(np *onnxpb.NodeProto) string {
	var parts []string
	for _, ap := range np.Attribute {
		a, ok, err := attrFromProto(ap, nil)
		if err != nil || !ok {
			parts = append(parts, ap.GetName()+"=?")
			continue
		}
		var v any
		switch a.Kind {
		case graph.AttrInt:
			v = a.Int
		case graph.AttrInts:
			v = a.Ints
		case graph.AttrString:
			v = a.String
		case graph.AttrFloat:
			v = a.Float
		default:
			v = a.Kind
		}
		parts = append(parts, ap.GetName()+"="+fmt.Sprint(v))
	}
	return strings.Join(parts, " ")
}
