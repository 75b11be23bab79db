package onnx

import (
	"slices"
	"sort"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// irNodes converts a default-domain NodeProto of opset 9 or later whose op
// has a schema to IR nodes. It returns nil (and no error) when the node
// must stay opaque: the op is unknown, an attribute is not in the schema or
// has another kind, the arity is wrong, or writing the IR node back at
// opset would not reproduce the original node exactly.
func (d *decoder) irNodes(np *onnxpb.NodeProto, ins, outs []*graph.Value, opset int64) ([]*graph.Node, error) {
	defaultDomain := np.GetDomain() == "" || np.GetDomain() == "ai.onnx"
	if np.GetOpType() == "Upsample" && defaultDomain && opset == upsampleOpset {
		return d.upsample(np, ins, outs)
	}
	if np.GetOpType() == "Scatter" && defaultDomain && opset <= scatterLastOpset {
		return d.scatter(np, ins, outs)
	}
	s := graph.Lookup(np.GetDomain(), np.GetOpType())
	if s == nil || len(np.ProtoReflect().GetUnknown()) > 0 {
		return nil, nil
	}
	if opset < s.History.FlattenBefore {
		return d.softmaxOld(np, ins, outs, s)
	}
	n := &graph.Node{
		Name: np.GetName(), Op: np.GetOpType(), Domain: np.GetDomain(), Doc: np.GetDocString(),
		Outputs: outs, Attrs: graph.Attrs{},
	}
	inputs := append([]*graph.Value(nil), ins...)
	resize10 := s.Op == "Resize" && opset < 11
	if resize10 {
		if len(inputs) != 2 || inputs[1] == nil {
			return nil, nil
		}
		inputs = []*graph.Value{inputs[0], nil, inputs[1]}
	}
	active := map[string]graph.AttrInput{}
	for _, ai := range s.AttrInputs {
		if opset < ai.Since {
			active[ai.Attr] = ai
		}
	}
	pending := map[string]graph.Attr{}
	var kept []*onnxpb.AttributeProto // the attributes the check compares
	for _, ap := range np.Attribute {
		name := ap.GetName()
		if _, dup := n.Attrs[name]; dup {
			return nil, nil
		}
		if _, dup := pending[name]; dup {
			return nil, nil
		}
		a, ok, err := attrFromProto(ap, d.ext)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, nil
		}
		if keep, obsolete := s.History.Obsolete[name]; obsolete && a.Kind == graph.AttrInt && a.Int == keep {
			continue
		}
		kept = append(kept, ap)
		if _, ok := active[name]; ok {
			pending[name] = a
			continue
		}
		spec := s.Attr(name)
		if spec == nil || spec.Kind != a.Kind {
			return nil, nil
		}
		n.Attrs[name] = a
	}
	for _, ai := range s.AttrInputs {
		if opset >= ai.Since {
			continue
		}
		if ai.Input < len(inputs) && inputs[ai.Input] != nil {
			return nil, nil // an input where this opset expects the attribute
		}
		a, ok := pending[ai.Attr]
		if !ok {
			continue
		}
		if len(inputs) == 0 || inputs[0] == nil {
			return nil, nil
		}
		in0 := inputs[0].DType
		if in0 == graph.Undefined {
			in0 = d.floatDTypeOf(inputs[0])
		}
		t, ok := attrToTensor(s.Op, ai, a, in0)
		if !ok {
			return nil, nil
		}
		for len(inputs) <= ai.Input {
			inputs = append(inputs, nil)
		}
		inputs[ai.Input] = d.synthConst(n.Name, ai.Attr, t)
	}
	if resize10 {
		if _, set := n.Attrs["coordinate_transformation_mode"]; set {
			return nil, nil
		}
		if _, set := n.Attrs["nearest_mode"]; set {
			return nil, nil
		}
		n.Attrs["coordinate_transformation_mode"] = graph.StringAttr("asymmetric")
		mode := graph.StringAttr("nearest")
		if a, ok := n.Attrs["mode"]; ok {
			mode = a
		}
		if mode.String == "nearest" {
			n.Attrs["nearest_mode"] = graph.StringAttr("floor")
		}
	}
	n.Inputs = inputs
	if !arityOK(n, s) {
		return nil, nil
	}
	re, err := irNodeProto(n, opset, checkNames{})
	if err != nil || !sameNode(np, kept, re) {
		return nil, nil
	}
	return []*graph.Node{n}, nil
}

// synthConst makes the constant input that replaces attribute attr of
// node nodeName. It is referenced only by the node, not listed in
// Graph.Initializers.
func (d *decoder) synthConst(nodeName, attr string, t *graph.Tensor) *graph.Value {
	base := attr
	if nodeName != "" {
		base = nodeName + "_" + attr
	}
	v := &graph.Value{Name: d.uniqueName(base), Const: t}
	v.SetStatic(t.DType, t.Shape)
	return v
}

// checkNames writes values under their own names; constants the written
// form would add get a name no file uses, so the comparison fails.
type checkNames struct{}

func (checkNames) name(v *graph.Value) string            { return v.Name }
func (checkNames) newConst(*graph.Tensor, string) string { return "\x00" }

// sameNode reports whether re (an IR node written back) equals the
// original np with attributes attrs (np's minus dropped obsolete ones).
// Names of tensors inside attributes and the encoding of tensor data
// (raw or typed fields) are not compared.
func sameNode(np *onnxpb.NodeProto, attrs []*onnxpb.AttributeProto, re *onnxpb.NodeProto) bool {
	if np.GetName() != re.GetName() || np.GetOpType() != re.GetOpType() || np.GetDomain() != re.GetDomain() ||
		np.GetDocString() != re.GetDocString() || !slices.Equal(np.Input, re.Input) || !slices.Equal(np.Output, re.Output) ||
		len(attrs) != len(re.Attribute) {
		return false
	}
	a := append([]*onnxpb.AttributeProto(nil), attrs...)
	sort.Slice(a, func(i, j int) bool { return a[i].GetName() < a[j].GetName() })
	for i, x := range a {
		y := re.Attribute[i]
		if x.T != nil || len(x.Tensors) > 0 {
			// Tensor contents were decoded exactly (plainTensor); compare
			// the remaining fields.
			x2 := &onnxpb.AttributeProto{Name: x.Name, Type: x.Type, F: x.F, I: x.I, S: x.S, G: x.G,
				Floats: x.Floats, Ints: x.Ints, Strings: x.Strings, Graphs: x.Graphs}
			y2 := &onnxpb.AttributeProto{Name: y.Name, Type: y.Type, F: y.F, I: y.I, S: y.S, G: y.G,
				Floats: y.Floats, Ints: y.Ints, Strings: y.Strings, Graphs: y.Graphs}
			if !proto.Equal(x2, y2) || (x.T == nil) != (y.T == nil) || len(x.Tensors) != len(y.Tensors) {
				return false
			}
			continue
		}
		if !proto.Equal(x, y) {
			return false
		}
	}
	return true
}

// arityOK checks n's input and output counts and required positions
// against the schema.
func arityOK(n *graph.Node, s *graph.OpSchema) bool {
	return countOK(n.Inputs, s.Inputs, s.MinInputs(), s.MaxInputs()) &&
		countOK(n.Outputs, s.Outputs, s.MinOutputs(), s.MaxOutputs())
}

func countOK(vs []*graph.Value, specs []graph.InputSpec, lo, hi int) bool {
	if len(vs) < lo || (hi >= 0 && len(vs) > hi) {
		return false
	}
	for i, v := range vs {
		if v != nil {
			continue
		}
		j := min(i, len(specs)-1)
		if j < 0 || !specs[j].Optional {
			return false
		}
	}
	return true
}
