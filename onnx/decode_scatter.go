package onnx

import (
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// scatterLastOpset is the last opset with Scatter, which opset 11
// deprecated for ScatterElements.
const scatterLastOpset = 10

// scatter converts an opset 9-10 Scatter(data, indices, updates) to the
// ScatterElements node that computes the same thing (reduction none).
// Export writes it as ScatterElements, raising the model to opset 11. Any
// attribute but axis keeps the node opaque (nil result).
func (d *decoder) scatter(np *onnxpb.NodeProto, ins, outs []*graph.Value) ([]*graph.Node, error) {
	if len(ins) != 3 || ins[0] == nil || ins[1] == nil || ins[2] == nil || len(outs) != 1 || outs[0] == nil ||
		len(np.ProtoReflect().GetUnknown()) > 0 || graph.Lookup("", "ScatterElements") == nil {
		return nil, nil
	}
	a, only, err := d.onlyAttr(np, "axis", graph.AttrInt)
	if err != nil || !only {
		return nil, err
	}
	attrs := graph.Attrs{}
	if a != nil {
		attrs["axis"] = *a
	}
	n := &graph.Node{Name: np.GetName(), Op: "ScatterElements", Domain: "", Doc: np.GetDocString(),
		Inputs: ins, Outputs: outs, Attrs: attrs}
	return []*graph.Node{n}, nil
}
