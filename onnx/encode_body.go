package onnx

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// bodies writes into np (decoded from n's Opaque encoding) the bodies of n
// that must be encoded again: those that were rewritten, and those whose
// outer-scope values are now written under other names. The others stay
// as the Opaque encoding holds them.
func (e *graphEncoder) bodies(n *graph.Node, np *onnxpb.NodeProto) error {
	for _, b := range n.Bodies {
		outerNames := make([]string, len(b.Outer))
		stale := b.Edited
		for k, v := range b.OuterInputs() {
			if b.Outer[k] >= len(n.Implicit) {
				return fmt.Errorf("%v: body %s: outer input %q has no implicit value", n, b.Attr, v.Name)
			}
			outerNames[k] = e.name(n.Implicit[b.Outer[k]])
			if outerNames[k] != v.Name {
				stale = true
			}
		}
		if !stale {
			continue
		}
		g, vm := b.Graph.CloneWithMap()
		outer := map[*graph.Value]string{}
		for k, v := range b.OuterInputs() {
			outer[vm[v]] = outerNames[k]
		}
		producedOutputs(g)
		reserved := map[string]bool{}
		for name := range e.used {
			reserved[name] = true
		}
		for name := range e.fixed {
			reserved[name] = true
		}
		sub := &graphEncoder{g: g, opset: e.opset, outer: outer, reserved: reserved}
		gp, err := sub.encode()
		if err != nil {
			return fmt.Errorf("%v: body %s: %w", n, b.Attr, err)
		}
		found := false
		for _, a := range np.Attribute {
			if a.GetName() == b.Attr && a.G != nil {
				a.G, found = gp, true
			}
		}
		if !found {
			return fmt.Errorf("%v: the node has no graph attribute %s", n, b.Attr)
		}
	}
	return nil
}

// producedOutputs gives every output of g that no node of g produces (a
// formal or outer-scope input, a constant) an Identity node, so that the
// written body computes each of its outputs.
func producedOutputs(g *graph.Graph) {
	produced := map[*graph.Value]bool{}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			produced[o] = true
		}
	}
	for i, v := range g.Outputs {
		if produced[v] {
			continue
		}
		out := &graph.Value{Name: v.Name + "_out", DType: v.DType, Shape: v.Shape.Clone(), ShapeKnown: v.ShapeKnown}
		g.Nodes = append(g.Nodes, &graph.Node{Name: v.Name + "_out", Op: "Identity", Inputs: []*graph.Value{v}, Outputs: []*graph.Value{out}})
		g.Outputs[i] = out
		produced[out] = true
	}
}
