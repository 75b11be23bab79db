package onnx

import (
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// opaqueBytes serializes np without its name, inputs and outputs
// (deterministically), the form graph.Node.Opaque holds.
func opaqueBytes(np *onnxpb.NodeProto) ([]byte, error) {
	c := &onnxpb.NodeProto{OpType: np.OpType, Domain: np.Domain, Attribute: np.Attribute, DocString: np.DocString}
	c.ProtoReflect().SetUnknown(np.ProtoReflect().GetUnknown())
	b, err := marshal(c)
	if b == nil && err == nil {
		b = []byte{}
	}
	return b, err
}

// nodeFreeNames returns, in first-use order, the outer-scope value names
// read by np's subgraph attributes (If branches, Loop and Scan bodies).
func nodeFreeNames(np *onnxpb.NodeProto) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range np.Attribute {
		if a.G != nil {
			graphFreeNames(a.G, &out, seen)
		}
		for _, g := range a.Graphs {
			graphFreeNames(g, &out, seen)
		}
	}
	return out
}

// graphFreeNames appends to out the names g reads (node inputs, graph
// outputs, and names its own subgraphs read) that g does not define.
func graphFreeNames(g *onnxpb.GraphProto, out *[]string, seen map[string]bool) {
	defined := map[string]bool{"": true}
	for _, v := range g.Input {
		defined[v.GetName()] = true
	}
	for _, t := range g.Initializer {
		defined[t.GetName()] = true
	}
	for _, s := range g.SparseInitializer {
		defined[s.GetValues().GetName()] = true
	}
	for _, n := range g.Node {
		for _, o := range n.Output {
			defined[o] = true
		}
	}
	use := func(name string) {
		if !defined[name] && !seen[name] {
			seen[name] = true
			*out = append(*out, name)
		}
	}
	for _, n := range g.Node {
		for _, in := range n.Input {
			use(in)
		}
		for _, name := range nodeFreeNames(n) {
			use(name)
		}
	}
	for _, o := range g.Output {
		use(o.GetName())
	}
}
