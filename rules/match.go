package rules

import (
	"fmt"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// Match is one occurrence of a rule's source in a graph.
type Match struct {
	Rule *Rule
	// Nodes holds the graph node of each source node (by PNode.Index).
	Nodes []*graph.Node
	// Values holds the graph value of each tensor variable (by Var.Index;
	// nil for other variables).
	Values []*graph.Value
	// Attrs holds the value of each attribute and record variable (by
	// Var.Index).
	Attrs []Value
}

// Outputs returns the graph values of the source outputs, in order.
func (m *Match) Outputs() []*graph.Value {
	out := make([]*graph.Value, len(m.Rule.Source.Outputs))
	for i, o := range m.Rule.Source.Outputs {
		out[i] = m.Nodes[o.Node.Index].Outputs[o.Output]
	}
	return out
}

// key identifies the match by its nodes, values and attributes.
func (m *Match) key() string {
	var b strings.Builder
	for _, n := range m.Nodes {
		fmt.Fprintf(&b, "%p,", n)
	}
	for _, v := range m.Values {
		fmt.Fprintf(&b, "%p,", v)
	}
	for _, a := range m.Attrs {
		b.WriteString(a.String())
		b.WriteByte(',')
	}
	return b.String()
}

// Index is a graph prepared for matching: producers, consumers and nodes
// by op. FindMatches is a straightforward reference matcher that follows
// each rule's Plan; package rewrite may use its own, faster one, which
// must agree with it.
type Index struct {
	G         *graph.Graph
	producer  map[*graph.Value]*graph.Node
	consumers map[*graph.Value][]*graph.Node
	byOp      map[string][]*graph.Node
	isOutput  map[*graph.Value]bool
}

// NewIndex indexes g (which must have static shapes).
func NewIndex(g *graph.Graph) *Index {
	ix := &Index{G: g, producer: g.Producers(), consumers: g.Consumers(),
		byOp: map[string][]*graph.Node{}, isOutput: map[*graph.Value]bool{}}
	for _, n := range g.Nodes {
		if !n.IsOpaque() && (n.Domain == "" || n.Domain == "ai.onnx") {
			ix.byOp[n.Op] = append(ix.byOp[n.Op], n)
		}
	}
	for _, o := range g.Outputs {
		ix.isOutput[o] = true
	}
	return ix
}

// FindMatches returns every match of r in the indexed graph whose
// conditions hold and whose internal values are used only inside the match
// (or are source outputs), in a deterministic order.
func (ix *Index) FindMatches(r *Rule) []*Match {
	st := &mstate{ix: ix, r: r,
		m:    &Match{Rule: r, Nodes: make([]*graph.Node, len(r.Source.Nodes)), Values: make([]*graph.Value, len(r.Vars)), Attrs: make([]Value, len(r.Vars))},
		outs: make([][]*graph.Value, len(r.Source.Nodes)),
		syms: make([]Value, len(r.Symbols)), symSet: make([]bool, len(r.Symbols)),
		producer: func(v *graph.Value) *graph.Node { return ix.producer[v] },
	}
	var out []*Match
	seen := map[string]bool{}
	st.search(0, func(s *mstate) {
		if !s.final() {
			return
		}
		if k := s.m.key(); !seen[k] {
			seen[k] = true
			out = append(out, s.m)
		}
	})
	return out
}

// mstate is a partial match.
type mstate struct {
	ix     *Index
	r      *Rule
	m      *Match
	outs   [][]*graph.Value // bound outputs of not yet matched source nodes
	syms   []Value
	symSet []bool
	// producer returns the node producing a value, or nil.
	producer func(*graph.Value) *graph.Node
}

func (s *mstate) clone() *mstate {
	c := *s
	m := *s.m
	m.Nodes = append([]*graph.Node(nil), s.m.Nodes...)
	m.Values = append([]*graph.Value(nil), s.m.Values...)
	m.Attrs = append([]Value(nil), s.m.Attrs...)
	c.m = &m
	c.outs = make([][]*graph.Value, len(s.outs))
	for i, o := range s.outs {
		c.outs[i] = append([]*graph.Value(nil), o...)
	}
	c.syms = append([]Value(nil), s.syms...)
	c.symSet = append([]bool(nil), s.symSet...)
	return &c
}

// search extends the partial match by plan step i.
func (s *mstate) search(i int, found func(*mstate)) {
	if i == len(s.r.Plan) {
		found(s)
		return
	}
	step := s.r.Plan[i]
	var cands []*graph.Node
	switch step.Kind {
	case StepScan:
		cands = s.ix.byOp[step.Node.Op]
	case StepProducer:
		v := s.boundRef(step.From)
		if v == nil {
			return
		}
		if p := s.ix.producer[v]; p != nil {
			cands = []*graph.Node{p}
		}
	case StepConsumer:
		v := s.boundRef(step.From)
		if v == nil {
			return
		}
		cands = s.ix.consumers[v]
	}
	for _, gn := range cands {
		for _, next := range s.matchNode(step.Node, gn) {
			next.search(i+1, found)
		}
	}
}

// boundRef returns the graph value bound to a variable or node output.
func (s *mstate) boundRef(r Ref) *graph.Value {
	switch r.Kind {
	case RefVar:
		return s.m.Values[r.Var.Index]
	case RefNode:
		if n := s.m.Nodes[r.Node.Index]; n != nil {
			return n.Output(r.Output)
		}
		if o := s.outs[r.Node.Index]; r.Output < len(o) {
			return o[r.Output]
		}
	}
	return nil
}

// matchNode tries to match pattern node pn at graph node gn and returns
// the extended states (two for a commutative node matching both ways).
func (s *mstate) matchNode(pn *PNode, gn *graph.Node) []*mstate {
	if gn.Op != pn.Op || gn.IsOpaque() || (gn.Domain != "" && gn.Domain != "ai.onnx") {
		return nil
	}
	for _, n := range s.m.Nodes {
		if n == gn {
			return nil // each graph node matches one pattern node
		}
	}
	ins := gn.Inputs
	for len(ins) > 0 && ins[len(ins)-1] == nil {
		ins = ins[:len(ins)-1]
	}
	if len(ins) != pn.NumInputs {
		return nil
	}
	if pn.Schema.MaxOutputs() < 0 {
		if len(gn.Outputs) != pn.NumOutputs {
			return nil
		}
	} else if len(gn.Outputs) < pn.NumOutputs {
		return nil
	}
	for k := 0; k < pn.NumOutputs; k++ {
		if gn.Outputs[k] == nil {
			return nil
		}
		if o := s.outs[pn.Index]; k < len(o) && o[k] != nil && o[k] != gn.Outputs[k] {
			return nil
		}
	}
	// Input positions the pattern leaves empty must be absent.
	used := make([]bool, len(ins))
	for _, p := range pn.ArgInput {
		used[p] = true
	}
	for _, a := range pn.Attrs {
		if a.Param {
			used[a.Input] = true
		}
	}
	for p, in := range ins {
		if !used[p] && in != nil {
			return nil
		}
	}
	st := s.clone()
	if !st.matchAttrs(pn, gn) {
		return nil
	}
	st.m.Nodes[pn.Index] = gn
	orders := [][]int{nil}
	if pn.Commutative {
		orders = [][]int{{0, 1}, {1, 0}}
	}
	var out []*mstate
	for _, ord := range orders {
		states := []*mstate{st.clone()}
		for i, a := range pn.Args {
			p := pn.ArgInput[i]
			if ord != nil {
				p = pn.ArgInput[ord[i]]
			}
			var next []*mstate
			for _, c := range states {
				next = append(next, c.bindArg(a, ins[p])...)
			}
			states = next
		}
		out = append(out, states...)
	}
	return out
}

// matchAttrs checks the attributes and bracketed constant inputs of gn.
func (s *mstate) matchAttrs(pn *PNode, gn *graph.Node) bool {
	sch := pn.Schema
	mentioned := map[string]*AttrArg{}
	for _, a := range pn.Attrs {
		mentioned[a.Name] = a
		var v Value
		if a.Param {
			var ok bool
			v, ok = paramValue(gn, a)
			if !ok {
				return false
			}
		} else {
			v = effAttr(gn, sch.Attr(a.Name))
		}
		if !s.bindValue(a.Value, v) {
			return false
		}
	}
	for i := range sch.Attrs {
		spec := &sch.Attrs[i]
		if mentioned[spec.Name] != nil || pn.Rest != nil {
			continue
		}
		if !isDefault(gn, spec) {
			return false
		}
	}
	if pn.Rest != nil {
		rec := captureRecord(gn, pn.Rest.recNamed)
		old := s.m.Attrs[pn.Rest.Index]
		if old.Kind == KRecord {
			return old.Equal(rec)
		}
		s.m.Attrs[pn.Rest.Index] = rec
	}
	return true
}

// bindValue matches a source attribute expression (literal or variable).
func (s *mstate) bindValue(e *Expr, v Value) bool {
	if e.Var != nil {
		old := s.m.Attrs[e.Var.Index]
		if old.Kind != KInvalid {
			return old.Equal(v)
		}
		s.m.Attrs[e.Var.Index] = v
		return true
	}
	lit, err := (&env{}).eval(e)
	return err == nil && lit.Equal(v)
}

// paramValue reads a bracketed constant input of gn.
func paramValue(gn *graph.Node, a *AttrArg) (Value, bool) {
	in := gn.Input(a.Input)
	if in == nil {
		return unsetVal(a.Type), true
	}
	t := in.Const
	if t == nil {
		t = in.Known
	}
	if t == nil {
		return Value{}, false
	}
	switch a.Type {
	case KInts:
		v, err := t.AsInt64()
		return intsVal(v), err == nil
	case KFloats:
		v, err := t.AsFloat64()
		return floatsVal(v), err == nil
	case KFloat:
		v, err := t.AsFloat64()
		if err != nil || len(v) != 1 {
			return Value{}, false
		}
		return floatVal(v[0]), true
	}
	return Value{}, false
}

// bindArg binds a pattern argument to the graph value gv and returns the
// resulting states (several when a shape template fits in several ways).
func (s *mstate) bindArg(a Ref, gv *graph.Value) []*mstate {
	if gv == nil {
		return nil
	}
	switch a.Kind {
	case RefVar:
		if old := s.m.Values[a.Var.Index]; old != nil {
			if old == gv {
				return []*mstate{s}
			}
			return nil
		}
		var out []*mstate
		for _, alt := range s.fitTemplate(a.Var, gv) {
			c := s.clone()
			for _, b := range alt {
				c.syms[b.sym.Index], c.symSet[b.sym.Index] = b.val, true
			}
			c.m.Values[a.Var.Index] = gv
			out = append(out, c)
		}
		return out
	case RefNode:
		if n := s.m.Nodes[a.Node.Index]; n != nil {
			if n.Output(a.Output) == gv {
				return []*mstate{s}
			}
			return nil
		}
		o := s.outs[a.Node.Index]
		if a.Output < len(o) && o[a.Output] != nil {
			if o[a.Output] == gv {
				return []*mstate{s}
			}
			return nil
		}
		for len(o) <= a.Output {
			o = append(o, nil)
		}
		o[a.Output] = gv
		s.outs[a.Node.Index] = o
		return []*mstate{s}
	}
	return nil
}

// symBinding is one symbol value chosen while fitting a template.
type symBinding struct {
	sym *Symbol
	val Value
}

// fitTemplate returns every way gv's shape fits v's template given the
// symbols bound so far: each is the list of new symbol bindings. Only
// floating-point values fit. A
// template without segments fits at most one way; with segments, each
// split of the dimensions among them is tried.
func (s *mstate) fitTemplate(v *Var, gv *graph.Value) [][]symBinding {
	if !gv.DType.IsFloat() {
		// Rules are verified in floating point; integer tensors (shape
		// arithmetic) and bools are never rewritten.
		return nil
	}
	if v.Template == nil {
		return [][]symBinding{nil}
	}
	if !gv.ShapeKnown || !gv.Shape.Static() {
		return nil
	}
	shape := gv.Shape.Ints()
	dims := v.Template.Dims
	var out [][]symBinding
	var walk func(i, k int, acc []symBinding)
	lookup := func(sym *Symbol, acc []symBinding) (Value, bool) {
		for _, b := range acc {
			if b.sym == sym {
				return b.val, true
			}
		}
		if s.symSet[sym.Index] {
			return s.syms[sym.Index], true
		}
		return Value{}, false
	}
	walk = func(i, k int, acc []symBinding) {
		if i == len(dims) {
			if k == len(shape) {
				out = append(out, append([]symBinding(nil), acc...))
			}
			return
		}
		d := dims[i]
		if d.Seg != nil {
			rest := 0
			for _, e := range dims[i+1:] {
				if e.Seg == nil {
					rest++
				}
			}
			if old, ok := lookup(d.Seg, acc); ok {
				n := len(old.Ints)
				if k+n > len(shape) {
					return
				}
				for j, x := range old.Ints {
					if int64(shape[k+j]) != x {
						return
					}
				}
				walk(i+1, k+n, acc)
				return
			}
			for n := 0; k+n+rest <= len(shape); n++ {
				seg := make([]int64, n)
				for j := range seg {
					seg[j] = int64(shape[k+j])
				}
				walk(i+1, k+n, append(acc, symBinding{d.Seg, intsVal(seg)}))
			}
			return
		}
		if k >= len(shape) {
			return
		}
		x := int64(shape[k])
		switch {
		case d.Expr.Sym != nil:
			if old, ok := lookup(d.Expr.Sym, acc); ok {
				if old.Int != x {
					return
				}
				walk(i+1, k+1, acc)
				return
			}
			walk(i+1, k+1, append(acc, symBinding{d.Expr.Sym, intVal(x)}))
		case d.Expr.Op == ELit:
			if d.Expr.Lit.Int == x {
				walk(i+1, k+1, acc)
			}
		default:
			// Computed dimensions are checked once every symbol is bound.
			walk(i+1, k+1, acc)
		}
	}
	walk(0, 0, nil)
	return out
}

func (s *mstate) bindSym(sym *Symbol, v Value) bool {
	if s.symSet[sym.Index] {
		return s.syms[sym.Index].Equal(v)
	}
	s.syms[sym.Index], s.symSet[sym.Index] = v, true
	return true
}

// final runs the checks that need the whole match: computed template
// dimensions, conditions, and that values made inside the match are not
// used outside it unless they are source outputs.
func (s *mstate) final() bool {
	return s.holds() && s.closed()
}

// holds checks the computed template dimensions and the conditions.
func (s *mstate) holds() bool {
	en := &env{m: s.m, syms: s.syms}
	for _, v := range s.r.Vars {
		if v.Template == nil || s.m.Values[v.Index] == nil {
			continue
		}
		shape := s.m.Values[v.Index].Shape
		k := 0
		for _, d := range v.Template.Dims {
			if d.Seg != nil {
				k += len(s.syms[d.Seg.Index].Ints)
				continue
			}
			if d.Expr.Sym == nil && d.Expr.Op != ELit {
				want, err := en.eval(d.Expr)
				if err != nil || want.Int != shape[k].Value {
					return false
				}
			}
			k++
		}
	}
	for _, v := range s.r.Vars {
		if v.Range != RangeAny && !v.Range.proved(s.m.Values[v.Index], s.producer) {
			return false
		}
	}
	for _, c := range s.r.Conds {
		v, err := en.eval(c)
		if err != nil || !v.Bool {
			return false
		}
	}
	return true
}

// closed reports whether every value produced by a matched node and used
// outside the match (or as a graph output) is a source output.
func (s *mstate) closed() bool {
	inMatch := map[*graph.Node]bool{}
	for _, n := range s.m.Nodes {
		inMatch[n] = true
	}
	mapped := map[*graph.Value]bool{}
	for _, v := range s.m.Outputs() {
		mapped[v] = true
	}
	for _, n := range s.m.Nodes {
		for _, o := range n.Outputs {
			if o == nil || mapped[o] {
				continue
			}
			if s.ix.isOutput[o] {
				return false
			}
			for _, c := range s.ix.consumers[o] {
				if !inMatch[c] {
					return false
				}
			}
		}
	}
	return true
}
