package onnx

import (
	"fmt"
	"sort"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// raiseError reports that a node cannot be written at the requested opset
// but can be at Opset.
type raiseError struct {
	Node  *graph.Node
	Opset int64
	Why   string
}

func (e *raiseError) Error() string {
	return fmt.Sprintf("%v needs default-domain opset %d: %s", e.Node, e.Opset, e.Why)
}

// nodeNames supplies value names while writing a node: name returns the
// exported name of a value, and newConst registers an extra constant the
// written form needs (an empty roi for Resize-11, say) and returns its
// name.
type nodeNames interface {
	name(v *graph.Value) string
	newConst(t *graph.Tensor, hint string) string
}

// constValue returns the constant or inferred value of v, or nil.
func constValue(v *graph.Value) *graph.Tensor {
	if v == nil {
		return nil
	}
	if v.Const != nil {
		return v.Const
	}
	return v.Known
}

// irNodeProto writes the IR node n (whose op is in the schema table) as a
// NodeProto for default-domain opset opset.
func irNodeProto(n *graph.Node, opset int64, names nodeNames) (*onnxpb.NodeProto, error) {
	s := graph.Lookup(n.Domain, n.Op)
	if s == nil {
		return nil, fmt.Errorf("%v: op is not in the op-schema table and has no ONNX encoding", n)
	}
	raise := func(o int64, format string, args ...any) error {
		return &raiseError{Node: n, Opset: o, Why: fmt.Sprintf(format, args...)}
	}
	if err := opExists(n, s, opset, raise); err != nil {
		return nil, err
	}
	ins := append([]*graph.Value(nil), n.Inputs...)
	attrs := make(graph.Attrs, len(n.Attrs))
	for k, v := range n.Attrs {
		attrs[k] = v
	}
	drop := map[int]bool{}
	extra := map[int]*graph.Tensor{} // constants to create for required inputs

	switch {
	case opset < s.History.FlattenBefore:
		axis := n.AttrInt("axis")
		x := n.Input(0)
		if axis != -1 && !(x != nil && x.ShapeKnown && axis == int64(len(x.Shape))-1) {
			return nil, raise(s.History.FlattenBefore, "axis %d is not known to be the last axis, and %s before opset %d flattened the trailing axes",
				axis, n.Op, s.History.FlattenBefore)
		}
		// Keep the axis explicit: the default of older opsets was 1.
		attrs["axis"] = graph.IntAttr(axis)
	case n.Op == "Resize" && opset < 11:
		if err := resize10Form(n, attrs, raise); err != nil {
			return nil, err
		}
		ins = []*graph.Value{ins[0], ins[2]}
	case n.Op == "Resize" && opset < 13:
		// roi and scales were required inputs; empty tensors mean absent.
		for _, i := range []int{1, 2} {
			if len(ins) <= i || ins[i] == nil {
				extra[i] = graph.FromFloat32([]float32{}, 0)
			}
		}
	case n.Op == "Split":
		if err := splitForm(n, opset, attrs, raise); err != nil {
			return nil, err
		}
	}

	for _, ai := range attrInputs(s) {
		if opset >= ai.Since {
			continue
		}
		drop[ai.Input] = true
		v := n.Input(ai.Input)
		if v == nil {
			continue
		}
		t := constValue(v)
		if t == nil {
			return nil, fmt.Errorf("%v: input %d %q must be a constant to be written as attribute %s at opset %d", n, ai.Input, v.Name, ai.Attr, opset)
		}
		a, err := tensorToAttr(n.Op, ai, t)
		if err != nil {
			return nil, fmt.Errorf("%v: %w", n, err)
		}
		attrs[ai.Attr] = a
	}
	for i, since := range s.History.InputSince {
		if opset < since {
			if n.Input(i) != nil {
				return nil, raise(since, "input %d exists from opset %d", i, since)
			}
			drop[i] = true
		}
	}
	for i, before := range s.History.RequiredBefore {
		if opset < before && n.Input(i) == nil {
			return nil, raise(before, "input %d is required before opset %d", i, before)
		}
	}
	for name, since := range s.History.AttrSince {
		a, ok := attrs[name]
		if !ok || opset >= since {
			continue
		}
		if spec := s.Attr(name); spec != nil && spec.Default != nil && attrEqual(a, *spec.Default) {
			delete(attrs, name)
			continue
		}
		return nil, raise(since, "attribute %s exists from opset %d", name, since)
	}
	for i := range n.Outputs {
		if since, ok := s.History.OutputSince[i]; ok && opset < since && n.Outputs[i] != nil {
			return nil, raise(since, "output %d exists from opset %d", i, since)
		}
	}
	if opset < minIROpset {
		if err := legacyForm(n, s.History, opset, attrs, raise); err != nil {
			return nil, err
		}
	}

	np := &onnxpb.NodeProto{OpType: proto.String(n.Op)}
	np.Name = optString(n.Name)
	np.Domain = optString(n.Domain)
	np.DocString = optString(n.Doc)
	// Inputs dropped for this opset must be trailing.
	total := len(ins)
	for i := range extra {
		total = max(total, i+1)
	}
	last := total - 1
	for last >= 0 && drop[last] {
		last--
	}
	for i := 0; i <= last; i++ {
		var v *graph.Value
		if i < len(ins) {
			v = ins[i]
		}
		switch {
		case drop[i]:
			return nil, fmt.Errorf("%v: input %d has no place at opset %d while later inputs are present", n, i, opset)
		case v != nil:
			np.Input = append(np.Input, names.name(v))
		case extra[i] != nil:
			np.Input = append(np.Input, names.newConst(extra[i], fmt.Sprintf("%s_input%d", n.Name, i)))
		default:
			np.Input = append(np.Input, "")
		}
	}
	for _, o := range n.Outputs {
		if o == nil {
			np.Output = append(np.Output, "")
		} else {
			np.Output = append(np.Output, names.name(o))
		}
	}
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ap, err := attrToProto(k, attrs[k])
		if err != nil {
			return nil, fmt.Errorf("%v: %w", n, err)
		}
		np.Attribute = append(np.Attribute, ap)
	}
	return np, nil
}

// resize10Form checks that a Resize node means what opset-10 Resize did
// (inputs X and scales, asymmetric coordinates, floor rounding for
// nearest) and removes the attributes opset 10 implied.
func resize10Form(n *graph.Node, attrs graph.Attrs, raise func(int64, string, ...any) error) error {
	if n.Input(1) != nil || n.Input(2) == nil || n.Input(3) != nil {
		return raise(11, "opset-10 Resize takes only X and scales")
	}
	mode := n.AttrString("mode")
	if mode != "nearest" && mode != "linear" {
		return raise(11, "mode %q needs opset 11", mode)
	}
	if n.AttrString("coordinate_transformation_mode") != "asymmetric" {
		return raise(11, "coordinate_transformation_mode %q needs opset 11", n.AttrString("coordinate_transformation_mode"))
	}
	if mode == "nearest" && n.AttrString("nearest_mode") != "floor" {
		return raise(11, "nearest_mode %q needs opset 11", n.AttrString("nearest_mode"))
	}
	delete(attrs, "coordinate_transformation_mode")
	if mode == "nearest" {
		delete(attrs, "nearest_mode")
	}
	return nil
}

// splitForm reconciles Split's num_outputs attribute (opset 18) with the
// number of outputs.
func splitForm(n *graph.Node, opset int64, attrs graph.Attrs, raise func(int64, string, ...any) error) error {
	a, has := attrs["num_outputs"]
	switch {
	case opset < 18 && has:
		if a.Kind != graph.AttrInt || a.Int != int64(len(n.Outputs)) {
			return raise(18, "num_outputs %d differs from the %d outputs", a.Int, len(n.Outputs))
		}
		delete(attrs, "num_outputs")
	case opset >= 18 && !has && n.Input(1) == nil:
		attrs["num_outputs"] = graph.IntAttr(int64(len(n.Outputs)))
	}
	return nil
}
