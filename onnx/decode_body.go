package onnx

import (
	"fmt"
	"slices"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// controlFlowBodies names, per control-flow op of the default domain, the
// graph attributes decoded into graph.Body values.
var controlFlowBodies = map[string][]string{
	"If":   {"then_branch", "else_branch"},
	"Loop": {"body"},
	"Scan": {"body"},
}

// scanAttrs are the Scan attributes copied to the opaque node's Attrs for
// shape inference (the node is still written from its Opaque encoding).
var scanAttrs = []string{"num_scan_inputs", "scan_input_axes", "scan_output_axes", "scan_input_directions", "scan_output_directions"}

// bodies decodes the subgraphs of an If, Loop or Scan node n (made from np)
// into n.Bodies, for opsets whose operators the codec converts (Scan from
// opset 9, whose body has no batch axis). The node keeps its Opaque
// encoding, so an unedited body is written back verbatim. A body the codec
// cannot convert leaves the node without Bodies (opaque as before).
func (d *decoder) bodies(n *graph.Node, np *onnxpb.NodeProto) error {
	attrs, ok := controlFlowBodies[np.GetOpType()]
	if !ok || !isDefaultDomain(np.GetDomain()) || !d.irOK || d.legacy {
		return nil
	}
	if np.GetOpType() == "Scan" && d.opset < 9 {
		return nil
	}
	implicit := make([]string, len(n.Implicit))
	for i, v := range n.Implicit {
		implicit[i] = v.Name
	}
	for _, name := range attrs {
		var gp *onnxpb.GraphProto
		for _, a := range np.Attribute {
			if a.GetName() == name && a.G != nil {
				gp = a.G
			}
		}
		if gp == nil {
			return fmt.Errorf("graph attribute %s is missing", name)
		}
		var free []string
		graphFreeNames(gp, &free, map[string]bool{})
		b := &graph.Body{Attr: name, Formal: len(gp.Input)}
		var outer []*graph.Value
		for _, f := range free {
			k := slices.Index(implicit, f)
			if k < 0 {
				return fmt.Errorf("%s reads %q, which is not defined", name, f)
			}
			b.Outer = append(b.Outer, k)
			outer = append(outer, n.Implicit[k])
		}
		sub := &decoder{opset: d.opset, irOK: d.irOK, legacy: d.legacy, strict: d.strict, ext: d.ext}
		g, err := sub.graphWith(gp, outer)
		if err != nil {
			// The node stays opaque: written verbatim, shapes observed.
			n.Bodies = nil
			return nil
		}
		b.Graph = g
		n.Bodies = append(n.Bodies, b)
	}
	if np.GetOpType() == "Scan" {
		for _, a := range np.Attribute {
			if slices.Contains(scanAttrs, a.GetName()) {
				if n.Attrs == nil {
					n.Attrs = graph.Attrs{}
				}
				switch a.GetType() {
				case onnxpb.AttributeProto_INT:
					n.Attrs[a.GetName()] = graph.IntAttr(a.GetI())
				case onnxpb.AttributeProto_INTS:
					n.Attrs[a.GetName()] = graph.IntsAttr(a.Ints...)
				}
			}
		}
	}
	return nil
}
