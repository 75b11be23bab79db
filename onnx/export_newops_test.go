package onnx

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// TestExportNewOpsAttrInputs writes inputs that older opsets took as
// attributes (TopK's k before 10, the Reduce ops' axes before 18) in the
// attribute form, and checks the written model decodes to the same graph.
func TestExportNewOpsAttrInputs(t *testing.T) {
	tests := []struct {
		op       string
		opset    int64
		param    *graph.Tensor
		outShape []int
		attr     string
		kind     onnxpb.AttributeProto_AttributeType
	}{
		{"TopK", 9, graph.FromInt64([]int64{2}, 1), []int{2, 2}, "k", onnxpb.AttributeProto_INT},
		{"TopK", 10, graph.FromInt64([]int64{2}, 1), []int{2, 2}, "", 0},
		{"ReduceL2", 13, graph.FromInt64([]int64{1}, 1), []int{2, 1}, "axes", onnxpb.AttributeProto_INTS},
		{"ReduceLogSumExp", 17, graph.FromInt64([]int64{1}, 1), []int{2, 1}, "axes", onnxpb.AttributeProto_INTS},
		{"ReduceMin", 18, graph.FromInt64([]int64{1}, 1), []int{2, 1}, "", 0},
	}
	for _, tc := range tests {
		x := staticValue("x", 2, 3)
		p := &graph.Value{Name: "p", Const: tc.param}
		p.SetStatic(graph.Int64, tc.param.Shape)
		outs := []*graph.Value{staticValue("y", tc.outShape...)}
		if tc.op == "TopK" {
			i := &graph.Value{Name: "i"}
			i.SetStatic(graph.Int64, tc.outShape)
			outs = append(outs, i)
		}
		g := &graph.Graph{Name: "g", Inputs: []*graph.Value{x}, Outputs: outs,
			Nodes: []*graph.Node{{Name: "n", Op: tc.op, Inputs: []*graph.Value{x, p}, Outputs: outs, Attrs: graph.Attrs{}}}}
		m := &graph.Model{Graph: g, IRVersion: 7, Opsets: []graph.OpsetID{{Version: tc.opset}}}
		mp := encodeProto(t, m)
		n := mp.Graph.Node[0]
		if tc.attr == "" {
			if len(n.Input) != 2 || len(n.Attribute) != 0 {
				t.Errorf("%s at opset %d: want the input form, got %v", tc.op, tc.opset, n)
			}
		} else if len(n.Input) != 1 || len(n.Attribute) != 1 || n.Attribute[0].GetName() != tc.attr || n.Attribute[0].GetType() != tc.kind {
			t.Errorf("%s at opset %d: want attribute %s of type %v, got %v", tc.op, tc.opset, tc.attr, tc.kind, n)
		}
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := Decode(b, DecodeOptions{})
		if err != nil {
			t.Fatalf("%s at opset %d: %v", tc.op, tc.opset, err)
		}
		if m2.Graph.Nodes[0].IsOpaque() || m2.Graph.CanonicalHash() != g.CanonicalHash() {
			t.Errorf("%s at opset %d: decoded graph differs (opaque=%v)", tc.op, tc.opset, m2.Graph.Nodes[0].IsOpaque())
		}
	}
}
