package onnx

import (
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// leanValueInfo drops from gp, and from the graphs of its nodes' graph
// attributes, the value_info of values that nodes of xrl's op table
// produce, keeping that of the outputs of other ops (see
// EncodeOptions.LeanValueInfo).
func leanValueInfo(gp *onnxpb.GraphProto) {
	if gp == nil {
		return
	}
	opaque := map[string]bool{}
	for _, n := range gp.Node {
		if graph.Lookup(n.GetDomain(), n.GetOpType()) == nil {
			for _, o := range n.Output {
				opaque[o] = true
			}
		}
		for _, a := range n.Attribute {
			leanValueInfo(a.G)
			for _, g := range a.Graphs {
				leanValueInfo(g)
			}
		}
	}
	kept := gp.ValueInfo[:0]
	for _, vi := range gp.ValueInfo {
		if opaque[vi.GetName()] {
			kept = append(kept, vi)
		}
	}
	gp.ValueInfo = kept
}
