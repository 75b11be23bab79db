package graph

import (
	"fmt"
	"slices"
)

// inferControlFlow infers the shapes inside the bodies of an opaque If,
// Loop or Scan node and, where the bodies decide them, the node's output
// types: If when both branches agree, Loop for its carried values, Scan
// for all its outputs. Outputs already recorded are checked, not
// overwritten. It returns an error wrapping errOpaqueUnknown when some
// output stays undecided (a Loop's scan outputs, If branches of different
// shapes), so that the caller's observation path takes over for the node.
func inferControlFlow(n *Node) error {
	var outs []outType
	var err error
	switch n.Op {
	case "If":
		outs, err = inferIf(n)
	case "Loop":
		outs, err = inferLoop(n)
	case "Scan":
		outs, err = inferScan(n)
	default:
		return fmt.Errorf("%v: %w", n, errOpaqueUnknown)
	}
	if err != nil {
		return fmt.Errorf("%v: %w (%v)", n, errOpaqueUnknown, err)
	}
	for i, o := range n.Outputs {
		if o == nil {
			continue
		}
		if i >= len(outs) || !outs[i].known {
			if o.ShapeKnown && o.Shape.Static() && o.DType.Valid() {
				continue
			}
			return fmt.Errorf("%v: output %q: %w (its bodies do not decide it)", n, o.Name, errOpaqueUnknown)
		}
		t := outs[i]
		if o.ShapeKnown && o.Shape.Static() && (!sameSizes(o.Shape, t.shape) || o.DType != t.dt) {
			return fmt.Errorf("%v: output %q is recorded as %v%v but its bodies give %v%v", n, o.Name, o.DType, o.Shape, t.dt, t.shape)
		}
		o.setType(t.dt, t.shape)
	}
	return nil
}

// outType is an output's decided type (known false: undecided). The
// shape's dimensions keep their symbolic expressions.
type outType struct {
	dt    DType
	shape Shape
	known bool
}

// setType sets v's dtype and bound shape (a copy of s).
func (v *Value) setType(dt DType, s Shape) {
	v.DType, v.Shape, v.ShapeKnown = dt, s.Clone(), true
}

// sameSizes reports whether two bound shapes have the same sizes, whatever
// their symbolic expressions.
func sameSizes(a, b Shape) bool {
	return slices.EqualFunc(a, b, func(x, y Dim) bool { return x.Value == y.Value })
}

// inferBody binds a body's formal inputs to formal and its outer-scope
// inputs to the types of the owning node's implicit values, infers it, and
// returns the types of its outputs. ShapesOK is set on success.
func inferBody(n *Node, b *Body, formal []outType) ([]outType, error) {
	g := b.Graph
	if len(formal) != b.Formal {
		return nil, fmt.Errorf("body %s has %d formal inputs, the node gives %d", b.Attr, b.Formal, len(formal))
	}
	if b.ShapesOK && sameBodyInputs(n, b, formal) {
		// Inferred before with these inputs: read the result without
		// writing to the body, which clones made by rewriting share.
		return bodyOutputs(b)
	}
	b.ShapesOK = false
	for i, t := range formal {
		if !t.known {
			return nil, fmt.Errorf("body %s: formal input %d has no known type", b.Attr, i)
		}
		g.Inputs[i].setType(t.dt, t.shape)
	}
	for k, v := range b.OuterInputs() {
		if b.Outer[k] >= len(n.Implicit) {
			return nil, fmt.Errorf("body %s: outer input %q has no implicit value", b.Attr, v.Name)
		}
		src := n.Implicit[b.Outer[k]]
		if src.Const != nil {
			src.SetStatic(src.Const.DType, src.Const.Shape)
		}
		if !src.ShapeKnown || !src.Shape.Static() || !src.DType.Valid() {
			return nil, fmt.Errorf("body %s: outer value %q has no known shape", b.Attr, src.Name)
		}
		v.setType(src.DType, src.Shape)
		v.Const = src.Const
	}
	inputs := map[*Value]bool{}
	for _, v := range g.Inputs {
		inputs[v] = true
	}
	for _, bn := range g.Nodes {
		for _, o := range bn.Outputs {
			if o != nil && !bn.IsOpaque() {
				o.ShapeKnown, o.Shape = false, nil
			}
		}
	}
	if err := g.InferShapes(); err != nil {
		return nil, fmt.Errorf("body %s: %w", b.Attr, err)
	}
	out, err := bodyOutputs(b)
	if err != nil {
		return nil, err
	}
	b.ShapesOK = true
	return out, nil
}

// bodyOutputs returns the types of b's outputs, which must be static.
func bodyOutputs(b *Body) ([]outType, error) {
	out := make([]outType, len(b.Graph.Outputs))
	for i, v := range b.Graph.Outputs {
		out[i] = typeOf(v)
		if !out[i].known {
			return nil, fmt.Errorf("body %s: output %q has no static shape", b.Attr, v.Name)
		}
	}
	return out, nil
}

// sameBodyInputs reports whether b's inputs already have the types formal
// and n's implicit values give them (and the same constant data).
func sameBodyInputs(n *Node, b *Body, formal []outType) bool {
	for i, t := range formal {
		if got := typeOf(b.Graph.Inputs[i]); !t.known || !got.known || got.dt != t.dt || !slices.Equal(got.shape, t.shape) {
			return false
		}
	}
	for k, v := range b.OuterInputs() {
		if b.Outer[k] >= len(n.Implicit) {
			return false
		}
		src := n.Implicit[b.Outer[k]]
		a, c := typeOf(v), typeOf(src)
		if !a.known || !c.known || a.dt != c.dt || !slices.Equal(a.shape, c.shape) || v.Const != src.Const {
			return false
		}
	}
	return true
}

// bodyNamed returns n's body decoded from attribute attr.
func bodyNamed(n *Node, attr string) (*Body, error) {
	for _, b := range n.Bodies {
		if b.Attr == attr {
			return b, nil
		}
	}
	return nil, fmt.Errorf("attribute %s was not decoded", attr)
}

// typeOf returns v's type (unknown for nil or shapeless values).
func typeOf(v *Value) outType {
	if v == nil {
		return outType{}
	}
	if v.Const != nil {
		return outType{dt: v.Const.DType, shape: StaticShape(v.Const.Shape...), known: true}
	}
	if !v.ShapeKnown || !v.Shape.Static() || !v.DType.Valid() {
		return outType{}
	}
	return outType{dt: v.DType, shape: v.Shape.Clone(), known: true}
}

// inferIf infers both branches; an output is decided where they agree.
func inferIf(n *Node) ([]outType, error) {
	thenB, err := bodyNamed(n, "then_branch")
	if err != nil {
		return nil, err
	}
	elseB, err := bodyNamed(n, "else_branch")
	if err != nil {
		return nil, err
	}
	a, errA := inferBody(n, thenB, nil)
	b, errB := inferBody(n, elseB, nil)
	if errA != nil {
		return nil, errA
	}
	if errB != nil {
		return nil, errB
	}
	if len(a) != len(b) || len(a) != len(n.Outputs) {
		return nil, fmt.Errorf("branches have %d and %d outputs, the node %d", len(a), len(b), len(n.Outputs))
	}
	out := make([]outType, len(a))
	for i := range a {
		if a[i].dt == b[i].dt && sameSizes(a[i].shape, b[i].shape) {
			out[i] = a[i]
			if !slices.Equal(a[i].shape, b[i].shape) {
				// The branches label a size differently: neither
				// label holds for every binding.
				out[i].shape = unlabelled(a[i].shape, b[i].shape, n.Outputs[i], i)
			}
		}
	}
	return out, nil
}

// inferLoop infers the body with the iteration number and condition as
// scalars and the carried values at their initial types; the body's
// shapes hold for every iteration only when each carried value comes out
// with the type it went in with. Scan outputs stay undecided (their
// length is the trip count, known only at run time).
func inferLoop(n *Node) ([]outType, error) {
	b, err := bodyNamed(n, "body")
	if err != nil {
		return nil, err
	}
	carried := len(n.Inputs) - 2
	if carried < 0 {
		return nil, fmt.Errorf("Loop has %d inputs, want at least 2", len(n.Inputs))
	}
	formal := []outType{{dt: Int64, shape: Shape{}, known: true}, {dt: Bool, shape: Shape{}, known: true}}
	for _, v := range n.Inputs[2:] {
		formal = append(formal, typeOf(v))
	}
	res, err := inferBody(n, b, formal)
	if err != nil {
		return nil, err
	}
	if len(res) < 1+carried {
		return nil, fmt.Errorf("body has %d outputs, want at least %d", len(res), 1+carried)
	}
	out := make([]outType, len(n.Outputs))
	for i := 0; i < carried && i < len(out); i++ {
		in, got := formal[2+i], res[1+i]
		if in.dt != got.dt || !sameSizes(in.shape, got.shape) {
			b.ShapesOK = false
			return nil, fmt.Errorf("carried value %d changes type in the body (%v%v -> %v%v)", i, in.dt, in.shape, got.dt, got.shape)
		}
		out[i] = in
	}
	return out, nil
}

// inferScan infers the body with the states at their initial types and
// each scan input sliced along its scan axis; outputs are the final states
// and the per-iteration outputs stacked along their scan output axes.
func inferScan(n *Node) ([]outType, error) {
	b, err := bodyNamed(n, "body")
	if err != nil {
		return nil, err
	}
	m := int(n.AttrInt("num_scan_inputs"))
	states := len(n.Inputs) - m
	if m <= 0 || states < 0 {
		return nil, fmt.Errorf("num_scan_inputs %d does not fit %d inputs", m, len(n.Inputs))
	}
	inAxes := n.AttrInts("scan_input_axes")
	var formal []outType
	for _, v := range n.Inputs[:states] {
		formal = append(formal, typeOf(v))
	}
	seq := Dim{Value: -1}
	for j, v := range n.Inputs[states:] {
		t := typeOf(v)
		if !t.known {
			return nil, fmt.Errorf("scan input %d has no known shape", j)
		}
		axis := int64(0)
		if j < len(inAxes) {
			axis = inAxes[j]
		}
		ax, err := NormAxis(axis, len(t.shape))
		if err != nil {
			return nil, fmt.Errorf("scan input %d: %w", j, err)
		}
		if seq.Value >= 0 && t.shape[ax].Value != seq.Value {
			return nil, fmt.Errorf("scan inputs have sequence lengths %d and %d", seq.Value, t.shape[ax].Value)
		}
		seq = t.shape[ax]
		t.shape = slices.Delete(t.shape, ax, ax+1)
		formal = append(formal, t)
	}
	res, err := inferBody(n, b, formal)
	if err != nil {
		return nil, err
	}
	if len(res) != len(n.Outputs) || len(res) < states {
		return nil, fmt.Errorf("body has %d outputs, the node %d", len(res), len(n.Outputs))
	}
	outAxes := n.AttrInts("scan_output_axes")
	out := make([]outType, len(res))
	for i := 0; i < states; i++ {
		if res[i].dt != formal[i].dt || !sameSizes(res[i].shape, formal[i].shape) {
			b.ShapesOK = false
			return nil, fmt.Errorf("state %d changes type in the body", i)
		}
		out[i] = formal[i]
	}
	for k := states; k < len(res); k++ {
		axis := int64(0)
		if k-states < len(outAxes) {
			axis = outAxes[k-states]
		}
		ax, err := NormAxis(axis, len(res[k].shape)+1)
		if err != nil {
			return nil, fmt.Errorf("scan output %d: %w", k-states, err)
		}
		shape := slices.Insert(res[k].shape.Clone(), ax, seq)
		out[k] = outType{dt: res[k].dt, shape: shape, known: true}
	}
	return out, nil
}

// unlabelled returns a with each dimension whose label differs in b made
// an unknown symbol of output o.
func unlabelled(a, b Shape, o *Value, k int) Shape {
	out := a.Clone()
	for i := range out {
		if a[i] != b[i] && o != nil {
			out[i] = unknownDim(o, k*maxRank+i, a[i].Value)
		}
	}
	return out
}
