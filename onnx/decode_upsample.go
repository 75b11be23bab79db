package onnx

import (
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// upsampleOpset is the only opset at which Upsample (deprecated by
// opset 10) takes its scales as an input.
const upsampleOpset = 9

// upsample converts an opset-9 Upsample(X, scales) to the Resize node that
// computes the same thing: Resize-10 semantics, i.e. asymmetric
// coordinates and, for nearest, rounding down. Export writes it as Resize
// (raising the model to opset 10). Anything but a plain mode attribute
// keeps the node opaque (nil result).
func (d *decoder) upsample(np *onnxpb.NodeProto, ins, outs []*graph.Value) ([]*graph.Node, error) {
	if len(ins) != 2 || ins[0] == nil || ins[1] == nil || len(outs) != 1 || outs[0] == nil ||
		len(np.ProtoReflect().GetUnknown()) > 0 || graph.Lookup("", "Resize") == nil {
		return nil, nil
	}
	a, only, err := d.onlyAttr(np, "mode", graph.AttrString)
	if err != nil || !only {
		return nil, err
	}
	mode := "nearest"
	if a != nil {
		mode = a.String
	}
	if mode != "nearest" && mode != "linear" {
		return nil, nil
	}
	attrs := graph.Attrs{
		"mode":                           graph.StringAttr(mode),
		"coordinate_transformation_mode": graph.StringAttr("asymmetric"),
	}
	if mode == "nearest" {
		attrs["nearest_mode"] = graph.StringAttr("floor")
	}
	n := &graph.Node{Name: np.GetName(), Op: "Resize", Domain: "", Doc: np.GetDocString(),
		Inputs: []*graph.Value{ins[0], nil, ins[1]}, Outputs: outs, Attrs: attrs}
	return []*graph.Node{n}, nil
}
