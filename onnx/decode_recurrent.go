package onnx

import (
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// recurrentAttrs copies the attributes of an opaque RNN, GRU or LSTM node
// n (made from np) into n.Attrs, so that its shapes are inferred and the
// Go executor runs it (graph.IsRecurrent); the node is still written from
// its Opaque encoding. A node with an attribute outside
// graph.RecurrentAttrs, or of another kind, keeps none: it stays opaque,
// with shapes observed in ONNX Runtime.
func (d *decoder) recurrentAttrs(n *graph.Node, np *onnxpb.NodeProto) error {
	if graph.RecurrentGates[np.GetOpType()] == 0 || !isDefaultDomain(np.GetDomain()) {
		return nil
	}
	attrs := graph.Attrs{}
	for _, ap := range np.Attribute {
		a, ok, err := attrFromProto(ap, d.ext)
		if err != nil {
			return err
		}
		if kind, known := graph.RecurrentAttrs[ap.GetName()]; !ok || !known || kind != a.Kind {
			return nil
		}
		attrs[ap.GetName()] = a
	}
	n.Attrs = attrs
	return nil
}
