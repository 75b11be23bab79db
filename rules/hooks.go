package rules

import "github.com/xrl-dev/xrl/graph"

// Matcher hooks. Package rewrite has its own, faster matcher that follows
// each rule's Plan; it calls these for the parts whose meaning is defined
// here (effective attribute values, records, conditions), so that both
// matchers agree by construction.

// MatchAttrs reports whether the attributes and bracketed constant inputs
// of graph node gn fit pattern node pn, binding pn's attribute and record
// variables in m.Attrs (a variable already bound must have an equal
// value). It does not check the op, the arguments or the outputs. On
// failure m.Attrs may be partly updated: the caller restores it.
func (pn *PNode) MatchAttrs(m *Match, gn *graph.Node) bool {
	s := &mstate{m: m}
	return s.matchAttrs(pn, gn)
}

// Holds reports whether a complete match of r satisfies the checks that
// need the whole match: the computed dimensions of the shape templates
// (such as 2 * c), the value-range assumptions of its variables and the
// rule's conditions. syms holds the dimension symbols bound while fitting
// the templates, by Symbol.Index: a KInt value for a dimension symbol, a
// KInts value for a segment. producer returns the node that produces a
// value in the graph (nil for inputs and constants); range assumptions
// that need a producer fail when it is nil. Holds does not check that the
// values made inside the match are used only inside it.
func (r *Rule) Holds(m *Match, syms []Value, producer func(*graph.Value) *graph.Node) bool {
	s := &mstate{r: r, m: m, syms: syms, producer: producer}
	return s.holds()
}
