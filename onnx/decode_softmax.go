package onnx

import (
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// softmaxOld converts Softmax, LogSoftmax or Hardmax of opsets before 13,
// which coerce the input to 2-D [prod(dims[:axis]), prod(dims[axis:])] and
// normalize over the second axis. When axis is the last axis that equals
// the opset-13 operator; otherwise the node becomes Flatten(axis) ->
// op(axis=-1) -> Reshape(original shape). The input's rank must be known
// (and at most one dimension unknown, none zero) for the rewrite, or the
// rank probe must have found the axis to be the last (d.ranks); else the
// node stays opaque (nil result) and its input is noted in d.needRank.
func (d *decoder) softmaxOld(np *onnxpb.NodeProto, ins, outs []*graph.Value, s *graph.OpSchema) ([]*graph.Node, error) {
	if len(ins) != 1 || ins[0] == nil || len(outs) != 1 || outs[0] == nil {
		return nil, nil
	}
	at, only, err := d.onlyAttr(np, "axis", graph.AttrInt)
	if err != nil || !only {
		return nil, err
	}
	axis := int64(1)
	if at != nil {
		axis = at.Int
	}
	x, y := ins[0], outs[0]
	node := func(name, op string, in []*graph.Value, out *graph.Value, attrs graph.Attrs) *graph.Node {
		return &graph.Node{Name: name, Op: op, Domain: np.GetDomain(), Inputs: in, Outputs: []*graph.Value{out}, Attrs: attrs}
	}
	if r, ok := d.ranks[x.Name]; !x.ShapeKnown && ok && (axis == int64(r)-1 || axis == -1) {
		// The rank probe (probeRanks) found the last axis.
		n := node(np.GetName(), s.Op, ins, y, graph.Attrs{"axis": graph.IntAttr(axis)})
		n.Doc = np.GetDocString()
		return []*graph.Node{n}, nil
	}
	if !x.ShapeKnown {
		if axis != -1 {
			d.needRank = append(d.needRank, x.Name)
			return nil, nil
		}
		n := node(np.GetName(), s.Op, ins, y, graph.Attrs{"axis": graph.IntAttr(-1)})
		n.Doc = np.GetDocString()
		return []*graph.Node{n}, nil
	}
	r := int64(len(x.Shape))
	a := axis
	if a < 0 {
		a += r
	}
	if a < 0 || a >= r {
		return nil, nil
	}
	if a == r-1 {
		n := node(np.GetName(), s.Op, ins, y, graph.Attrs{"axis": graph.IntAttr(axis)})
		n.Doc = np.GetDocString()
		return []*graph.Node{n}, nil
	}
	if graph.Lookup("", "Flatten") == nil || graph.Lookup("", "Reshape") == nil {
		return nil, nil
	}
	target := make([]int64, r)
	unknown := 0
	outer, inner := graph.Dim{Value: 1}, graph.Dim{Value: 1}
	for i, dim := range x.Shape {
		part := &inner
		if int64(i) < a {
			part = &outer
		}
		switch {
		case dim.Value == 0:
			return nil, nil // Reshape would read 0 as "copy this dimension"
		case !dim.Known():
			unknown++
			target[i] = -1
			*part = graph.Dim{Value: -1}
		default:
			target[i] = dim.Value
			if part.Known() {
				part.Value *= dim.Value
			}
		}
	}
	if unknown > 1 {
		return nil, nil
	}
	base := np.GetName()
	if base == "" {
		base = s.Op
	}
	flat := &graph.Value{Name: d.uniqueName(base + "_flat"), DType: x.DType, Shape: graph.Shape{outer, inner}, ShapeKnown: true}
	norm := &graph.Value{Name: d.uniqueName(base + "_2d"), DType: x.DType, Shape: graph.Shape{outer, inner}, ShapeKnown: true}
	shape := d.synthConst(base, "shape", graph.FromInt64(target, len(target)))
	mid := node(np.GetName(), s.Op, []*graph.Value{flat}, norm, graph.Attrs{"axis": graph.IntAttr(-1)})
	mid.Doc = np.GetDocString()
	return []*graph.Node{
		node(d.uniqueName(base+"_flatten"), "Flatten", []*graph.Value{x}, flat, graph.Attrs{"axis": graph.IntAttr(a)}),
		mid,
		node(d.uniqueName(base+"_reshape"), "Reshape", []*graph.Value{norm, shape}, y, graph.Attrs{}),
	}, nil
}

// onlyAttr returns np's attribute name when it has kind and is the node's
// only attribute (nil when the node has none); only is false when the node
// has another attribute or one the IR does not model.
func (d *decoder) onlyAttr(np *onnxpb.NodeProto, name string, kind graph.AttrKind) (a *graph.Attr, only bool, err error) {
	for _, ap := range np.Attribute {
		v, ok, err := attrFromProto(ap, d.ext)
		if err != nil {
			return nil, false, err
		}
		if !ok || ap.GetName() != name || v.Kind != kind || len(np.Attribute) != 1 {
			return nil, false, nil
		}
		a = &v
	}
	return a, true, nil
}
