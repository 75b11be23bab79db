package onnx

import (
	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// legacyPiece is one node in opset-9 form with the values it reads and
// writes, made from a node of an older opset.
type legacyPiece struct {
	np        *onnxpb.NodeProto
	ins, outs []*graph.Value
}

// legacyNodes converts a default-domain node of a model below opset 9 to
// IR nodes: the node is restated in opset-9 form (upgrade), which the
// opset-9 import converts. It returns nil (and no error) when the node
// must stay opaque. In strict mode (a model whose opset cannot be raised
// on export) every IR node must also survive being written back at the
// model's opset.
func (d *decoder) legacyNodes(np *onnxpb.NodeProto, ins, outs []*graph.Value) ([]*graph.Node, error) {
	pieces := d.upgrade(np, ins, outs)
	if pieces == nil {
		return nil, nil
	}
	var out []*graph.Node
	for _, p := range pieces {
		nodes, err := d.irNodes(p.np, p.ins, p.outs, minIROpset)
		if err != nil || nodes == nil {
			return nil, err
		}
		out = append(out, nodes...)
	}
	if d.strict {
		for _, n := range out {
			if !d.stableAtOpset(n) {
				return nil, nil
			}
		}
	}
	return out, nil
}

// upgrade restates np, a node of opset d.opset (below 9), as the node or
// nodes an opset-9 model holds for the same computation. It returns nil
// when the old node uses something the new form cannot state exactly, or
// something its own opset did not define.
func (d *decoder) upgrade(np *onnxpb.NodeProto, ins, outs []*graph.Value) []legacyPiece {
	op, o := np.GetOpType(), d.opset
	h := history(op)
	if h.First == 0 || o < h.First {
		return nil
	}
	u := shallowNode(np)
	for _, ap := range u.Attribute {
		if since, ok := h.AttrSince[ap.GetName()]; ok && o < since {
			return nil
		}
	}
	for i, since := range h.OutputSince {
		if o < since && i < len(outs) && outs[i] != nil {
			return nil
		}
	}
	if o < h.ConsumedBefore {
		if ap := takeAttr(u, "consumed_inputs"); ap != nil && ap.GetType() != onnxpb.AttributeProto_INTS {
			return nil
		}
	}
	if o < h.TestModeBefore {
		// The default, is_test=0, is training mode (batch statistics,
		// random dropout).
		if ap := takeAttr(u, "is_test"); !isIntAttr(ap, 1) {
			return nil
		}
	}
	p := legacyPiece{np: u, ins: ins, outs: outs}
	switch {
	case op == "PRelu" && o < preluBroadcastSince:
		if len(ins) != 2 || !sameOrSingle(ins[0], ins[1]) {
			return nil
		}
	case h.LegacyBroadcast && o < numpyBroadcastSince:
		return d.upgradeBroadcast(p)
	case o < h.SameShapeBefore:
		for _, v := range ins[min(1, len(ins)):] {
			if v == nil || ins[0] == nil || knownDifferent(ins[0], v) {
				return nil
			}
		}
	case op == "Gemm" && o < gemmBroadcastBefore:
		// Whatever broadcast says, a valid C broadcasts to [M,N] as in
		// opset 7 (broadcast=0 merely required C to be [M,N] already).
		if ap := takeAttr(u, "broadcast"); ap != nil && ap.GetType() != onnxpb.AttributeProto_INT {
			return nil
		}
	case op == "Cast":
		if !d.upgradeCast(u, ins) {
			return nil
		}
	case op == "Concat" && o < concatAxisRequired:
		if findAttr(u, "axis") == nil {
			u.Attribute = append(u.Attribute, intAttrProto("axis", 1))
		}
	case op == "Pad" && o < padRenamedSince:
		ap := takeAttr(u, "paddings")
		if ap == nil || findAttr(u, "pads") != nil {
			return nil
		}
		pads := proto.Clone(ap).(*onnxpb.AttributeProto)
		pads.Name = proto.String("pads")
		u.Attribute = append(u.Attribute, pads)
	case op == "Split" && o < splitInputUntil:
		// Split-1 took the sizes from an optional second input too, and
		// its axis had no default.
		if len(u.Input) > 1 || findAttr(u, "axis") == nil {
			return nil
		}
	case op == "Reshape" && o < 5:
		ap := takeAttr(u, "shape")
		if ap == nil || ap.GetType() != onnxpb.AttributeProto_INTS || len(u.Input) != 1 || len(ins) != 1 {
			return nil
		}
		c := d.synthConst(u.GetName(), "shape", graph.FromInt64(append([]int64{}, ap.Ints...), len(ap.Ints)))
		u.Input = append(u.Input, c.Name)
		p.ins = []*graph.Value{ins[0], c}
	}
	return []legacyPiece{p}
}

// upgradeBroadcast restates a binary operator of opsets 1 to 6. Without
// broadcast=1 both inputs have one shape, which numpy broadcasting leaves
// alone. With it, B's dimensions line up with A's from axis on (with A's
// trailing dimensions when axis is absent, which is numpy's alignment),
// each equal to A's or 1; B then gets trailing 1s so that numpy's right
// alignment puts it at axis. That needs both ranks; unknown ones keep an
// axis-aligned node opaque.
func (d *decoder) upgradeBroadcast(p legacyPiece) []legacyPiece {
	u := p.np
	bc, axis := takeAttr(u, "broadcast"), takeAttr(u, "axis")
	if (bc != nil && bc.GetType() != onnxpb.AttributeProto_INT) || (axis != nil && axis.GetType() != onnxpb.AttributeProto_INT) {
		return nil
	}
	if len(p.ins) != 2 || p.ins[0] == nil || p.ins[1] == nil {
		return nil
	}
	a, b := p.ins[0], p.ins[1]
	if bc == nil || bc.GetI() == 0 {
		if knownDifferent(a, b) {
			return nil
		}
		return []legacyPiece{p}
	}
	if bc.GetI() != 1 {
		return nil
	}
	if !a.ShapeKnown || !b.ShapeKnown {
		if axis != nil {
			return nil
		}
		return []legacyPiece{p}
	}
	ra, rb := len(a.Shape), len(b.Shape)
	start := ra - rb
	if axis != nil {
		start = int(axis.GetI())
	}
	if rb > ra || start < 0 || start > ra-rb {
		return nil
	}
	for i, bd := range b.Shape {
		ad := a.Shape[start+i]
		if bd.Known() && ad.Known() && bd.Value != 1 && bd.Value != ad.Value {
			return nil
		}
	}
	if start == ra-rb {
		return []legacyPiece{p}
	}
	trailing := ra - rb - start
	axes := make([]int64, trailing)
	shape := b.Shape.Clone()
	for i := range axes {
		axes[i] = int64(rb + i)
		shape = append(shape, graph.Dim{Value: 1})
	}
	base := u.GetName()
	if base == "" {
		base = u.GetOpType()
	}
	aligned := &graph.Value{Name: d.uniqueName(base + "_aligned"), DType: b.DType, Shape: shape, ShapeKnown: true}
	unsq := &onnxpb.NodeProto{
		Name: proto.String(d.uniqueName(base + "_unsqueeze")), OpType: proto.String("Unsqueeze"), Domain: u.Domain,
		Input: []string{u.Input[1]}, Output: []string{aligned.Name},
		Attribute: []*onnxpb.AttributeProto{{Name: proto.String("axes"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: axes}},
	}
	u.Input[1] = aligned.Name
	return []legacyPiece{
		{np: unsq, ins: []*graph.Value{b}, outs: []*graph.Value{aligned}},
		{np: u, ins: []*graph.Value{a, aligned}, outs: p.outs},
	}
}

// upgradeCast checks a Cast of opsets 1 to 8, which did not cast to or
// from strings, and turns opset 1's type name into the type number.
func (d *decoder) upgradeCast(u *onnxpb.NodeProto, ins []*graph.Value) bool {
	if len(ins) == 1 && ins[0] != nil && ins[0].DType == graph.String {
		return false
	}
	for i, ap := range u.Attribute {
		if ap.GetName() != "to" {
			continue
		}
		if d.opset >= castIntSince {
			return ap.GetType() == onnxpb.AttributeProto_INT && graph.DType(ap.GetI()) != graph.String
		}
		dt, ok := castNames[string(ap.S)]
		if ap.GetType() != onnxpb.AttributeProto_STRING || !ok {
			return false
		}
		u.Attribute[i] = intAttrProto("to", int64(dt))
		return true
	}
	return false
}

// knownDifferent reports whether a and b are known to have different
// shapes: different ranks, or a dimension both know with different sizes.
// sameOrSingle reports whether slope, PRelu's second input before opset
// 7, is known to have one element or exactly x's static shape, the only
// forms that opset defined.
func sameOrSingle(x, slope *graph.Value) bool {
	if x == nil || slope == nil || !x.ShapeKnown || !slope.ShapeKnown || !x.Shape.Static() || !slope.Shape.Static() {
		return false
	}
	return graph.NumElements(slope.Shape.Ints()) == 1 || x.Shape.Equal(slope.Shape)
}

func knownDifferent(a, b *graph.Value) bool {
	if !a.ShapeKnown || !b.ShapeKnown {
		return false
	}
	if len(a.Shape) != len(b.Shape) {
		return true
	}
	for i, x := range a.Shape {
		if y := b.Shape[i]; x.Known() && y.Known() && x.Value != y.Value {
			return true
		}
	}
	return false
}

// stableAtOpset reports whether IR node n, written at the model's opset
// (below 9) and imported again, gives n back.
func (d *decoder) stableAtOpset(n *graph.Node) bool {
	w, err := irNodeProto(n, d.opset, checkNames{})
	if err != nil {
		return false
	}
	byName := map[string]*graph.Value{}
	for _, v := range append(append([]*graph.Value(nil), n.Inputs...), n.Outputs...) {
		if v == nil {
			continue
		}
		if u, dup := byName[v.Name]; dup && u != v {
			return false
		}
		byName[v.Name] = v
	}
	resolve := func(names []string) ([]*graph.Value, bool) {
		vs := make([]*graph.Value, len(names))
		for i, name := range names {
			if name == "" {
				continue
			}
			if vs[i] = byName[name]; vs[i] == nil {
				return nil, false
			}
		}
		return vs, true
	}
	ins, ok1 := resolve(w.Input)
	outs, ok2 := resolve(w.Output)
	if !ok1 || !ok2 {
		return false
	}
	scratch := &decoder{opset: d.opset, irOK: true, legacy: true, ext: d.ext, names: map[string]bool{}}
	back, err := scratch.legacyNodes(w, ins, outs)
	return err == nil && len(back) == 1 && sameIRNode(back[0], n)
}

// sameIRNode reports whether a and b are the same operation on the same
// values; constant inputs compare by content.
func sameIRNode(a, b *graph.Node) bool {
	if a.Name != b.Name || a.Op != b.Op || a.Domain != b.Domain || a.Doc != b.Doc ||
		len(a.Inputs) != len(b.Inputs) || len(a.Outputs) != len(b.Outputs) || len(a.Attrs) != len(b.Attrs) {
		return false
	}
	for i, x := range a.Inputs {
		y := b.Inputs[i]
		if x != y && (x == nil || y == nil || x.Const == nil || y.Const == nil || x.Const.Digest() != y.Const.Digest()) {
			return false
		}
	}
	for i, x := range a.Outputs {
		if x != b.Outputs[i] {
			return false
		}
	}
	for k, x := range a.Attrs {
		y, ok := b.Attrs[k]
		if !ok || !attrEqual(x, y) {
			return false
		}
	}
	return true
}

// shallowNode copies np for editing: its input and attribute lists are
// new, the attributes themselves shared (replace them, do not modify).
func shallowNode(np *onnxpb.NodeProto) *onnxpb.NodeProto {
	u := &onnxpb.NodeProto{
		Input: append([]string(nil), np.Input...), Output: np.Output,
		Name: np.Name, OpType: np.OpType, Domain: np.Domain, DocString: np.DocString,
		Attribute: append([]*onnxpb.AttributeProto(nil), np.Attribute...),
	}
	u.ProtoReflect().SetUnknown(np.ProtoReflect().GetUnknown())
	return u
}

// findAttr returns np's attribute name, or nil.
func findAttr(np *onnxpb.NodeProto, name string) *onnxpb.AttributeProto {
	for _, ap := range np.Attribute {
		if ap.GetName() == name {
			return ap
		}
	}
	return nil
}

// takeAttr removes np's attribute name and returns it (nil when absent).
// A repeated attribute is left in place for the import to reject.
func takeAttr(np *onnxpb.NodeProto, name string) *onnxpb.AttributeProto {
	for i, ap := range np.Attribute {
		if ap.GetName() == name {
			np.Attribute = append(np.Attribute[:i:i], np.Attribute[i+1:]...)
			return ap
		}
	}
	return nil
}

// isIntAttr reports whether ap is an int attribute equal to v.
func isIntAttr(ap *onnxpb.AttributeProto, v int64) bool {
	return ap != nil && ap.GetType() == onnxpb.AttributeProto_INT && ap.GetI() == v
}

// intAttrProto makes an int attribute.
func intAttrProto(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}
