package rules

import (
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// Effective attribute values. An attribute that is absent has its schema
// default; a few attributes without a schema default have one that
// depends on the inputs (Conv's strides are ones, Transpose's perm is the
// reversal ...). Matching compares effective values, so an explicit
// default and an absent attribute are the same.

// effAttr returns the effective value of attribute spec on n; kind is the
// value kind of the attribute. Unset means absent with no default.
func effAttr(n *graph.Node, spec *graph.AttrSpec) Value {
	k := kindOfAttr(spec.Kind)
	if a, ok := n.Attrs[spec.Name]; ok {
		return attrToValue(a)
	}
	return effDefault(n, spec, k)
}

// effDefault returns the value attribute spec has on n when absent.
func effDefault(n *graph.Node, spec *graph.AttrSpec, k Kind) Value {
	if spec.Default != nil {
		return attrToValue(*spec.Default)
	}
	x := n.Input(0)
	if x == nil || !x.ShapeKnown {
		return unsetVal(k)
	}
	r := len(x.Shape)
	if s := n.Schema(); s != nil && s.Window && r >= 2 {
		sp := r - 2
		switch spec.Name {
		case "strides", "dilations":
			return intsVal(repeat(1, sp))
		case "pads":
			return intsVal(repeat(0, 2*sp))
		case "kernel_shape":
			if weightDerived(n, spec.Name) && n.Input(1) != nil && n.Input(1).ShapeKnown {
				w := n.Input(1).Shape
				if len(w) == r {
					ks := make([]int64, sp)
					for i := range ks {
						ks[i] = w[2+i].Value
					}
					return intsVal(ks)
				}
			}
		}
	}
	if n.Op == "Transpose" && spec.Name == "perm" {
		p := make([]int64, r)
		for i := range p {
			p[i] = int64(r - 1 - i)
		}
		return intsVal(p)
	}
	return unsetVal(k)
}

// repeat returns n copies of v.
func repeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// isDefault reports whether attribute spec of n has its default value.
func isDefault(n *graph.Node, spec *graph.AttrSpec) bool {
	k := kindOfAttr(spec.Kind)
	a, ok := n.Attrs[spec.Name]
	if !ok {
		return true
	}
	if k == KInvalid {
		return false
	}
	return attrToValue(a).Equal(effDefault(n, spec, k))
}

// weightDerived reports whether the weights of n determine attribute
// name (the op table's WeightDerived). A record never carries such an
// attribute: Conv's kernel_shape is redundant with the weight shape, and a
// rule that changes the weights (enlarging a kernel) must not copy the old
// value.
func weightDerived(n *graph.Node, name string) bool {
	s := n.Schema()
	return s != nil && slices.Contains(s.WeightDerived, name)
}

// captureRecord returns the record of n's attributes other than named:
// the explicit ones (copied to targets) and the node (for comparisons).
func captureRecord(n *graph.Node, named []string) Value {
	rec := graph.Attrs{}
	for name, a := range n.Attrs {
		if !slices.Contains(named, name) && !weightDerived(n, name) {
			rec[name] = a.Clone()
		}
	}
	return Value{Kind: KRecord, Rec: rec, node: n, named: named}
}

// recordsEqual compares two records: by effective values over the op's
// schema when both were captured from nodes, else attribute by attribute.
func recordsEqual(v, w Value) bool {
	if v.node != nil && w.node != nil {
		if v.node.Op != w.node.Op {
			return false
		}
		s := v.node.Schema()
		if s == nil {
			return false
		}
		for i := range s.Attrs {
			spec := &s.Attrs[i]
			if slices.Contains(v.named, spec.Name) || weightDerived(v.node, spec.Name) {
				continue
			}
			a, b := effAttr(v.node, spec), effAttr(w.node, spec)
			if kindOfAttr(spec.Kind) == KInvalid {
				// Tensor-valued attributes: compare digests.
				ta, tb := v.node.Attrs[spec.Name], w.node.Attrs[spec.Name]
				if (ta.Tensor == nil) != (tb.Tensor == nil) || (ta.Tensor != nil && ta.Tensor.Digest() != tb.Tensor.Digest()) {
					return false
				}
				continue
			}
			if !a.Equal(b) {
				return false
			}
		}
		return true
	}
	if len(v.Rec) != len(w.Rec) {
		return false
	}
	for name, a := range v.Rec {
		b, ok := w.Rec[name]
		if !ok || !attrToValue(a).Equal(attrToValue(b)) {
			return false
		}
	}
	return true
}
