package rules

import (
	"fmt"
	"sort"
	"strings"
)

// Canonical forms for the duplicate check. Two rules are duplicates when
// they are equal up to renaming variables and labels and swapping the
// arguments of commutative ops; a rule is trivial when its target equals
// its source in that sense. Instantiation clauses and tags do not count.

type canonizer struct {
	syms   map[*Symbol]string
	names  map[*Var]string
	swap   map[*PNode]bool
	ids    map[*PNode]int // nodes of the side being printed
	srcIDs map[*PNode]int // nodes of the source (for target expressions)
}

func (c *canonizer) varName(v *Var) string {
	if n, ok := c.names[v]; ok {
		return n
	}
	n := fmt.Sprintf("v%d", len(c.names))
	c.names[v] = n
	return n
}

func (c *canonizer) side(p *Pattern) string {
	c.ids = map[*PNode]int{}
	parts := make([]string, len(p.Outputs))
	for i, o := range p.Outputs {
		parts[i] = c.ref(o)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (c *canonizer) ref(a Ref) string {
	switch a.Kind {
	case RefVar:
		return c.varName(a.Var)
	case RefConst:
		if a.ConstShape != nil {
			return "const(" + c.expr(a.Const) + "," + c.expr(a.ConstShape) + ")"
		}
		return "const(" + c.expr(a.Const) + ")"
	}
	n := a.Node
	if id, ok := c.ids[n]; ok {
		return fmt.Sprintf("#%d.%d", id, a.Output)
	}
	c.ids[n] = len(c.ids)
	var b strings.Builder
	b.WriteString(n.Op)
	b.WriteByte('[')
	for _, at := range n.Attrs {
		b.WriteString(at.Name + "=" + c.expr(at.Value) + ",")
	}
	if n.Rest != nil {
		b.WriteString(".." + c.varName(n.Rest))
	}
	b.WriteString("](")
	args := n.Args
	if c.swap[n] && len(args) == 2 {
		args = []Ref{args[1], args[0]}
	}
	for _, x := range args {
		b.WriteString(c.ref(x) + ",")
	}
	b.WriteByte(')')
	fmt.Fprintf(&b, ".%d", a.Output)
	return b.String()
}

func (c *canonizer) expr(e *Expr) string {
	switch e.Op {
	case EName:
		switch {
		case e.Var != nil:
			return c.varName(e.Var)
		case e.Sym != nil:
			if c.syms == nil {
				c.syms = map[*Symbol]string{}
			}
			if n, ok := c.syms[e.Sym]; ok {
				return n
			}
			n := fmt.Sprintf("d%d", len(c.syms))
			c.syms[e.Sym] = n
			return n
		case e.Node != nil:
			ids := c.ids
			if !e.Node.target && c.srcIDs != nil {
				ids = c.srcIDs
			}
			if id, ok := ids[e.Node]; ok {
				return fmt.Sprintf("#%d.%d", id, e.Output)
			}
			return "#?"
		}
		return e.Name
	case ECall:
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			parts[i] = c.expr(a)
		}
		return e.Name + "(" + strings.Join(parts, ",") + ")"
	case EList, ERecord, EIn:
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			parts[i] = c.expr(a)
		}
		return fmt.Sprintf("%d%v[%s]", e.Op, e.Fields, strings.Join(parts, ","))
	case EUnary:
		return e.Name + "(" + c.expr(e.Args[0]) + ")"
	case EBinary:
		return "(" + c.expr(e.Args[0]) + e.Name + c.expr(e.Args[1]) + ")"
	}
	return e.String()
}

// templates prints the shape templates of the variables in canonical
// order, with canonical symbol names (templates restrict matching).
func (c *canonizer) templates(r *Rule) string {
	vars := make([]*Var, 0, len(c.names))
	for v := range c.names {
		if v.Template != nil {
			vars = append(vars, v)
		}
	}
	sort.Slice(vars, func(i, j int) bool { return c.names[vars[i]] < c.names[vars[j]] })
	var b strings.Builder
	for _, v := range vars {
		b.WriteString(c.names[v] + "[")
		for _, d := range v.Template.Dims {
			if d.Seg != nil {
				b.WriteString("*" + c.expr(&Expr{Op: EName, Sym: d.Seg}) + ",")
			} else {
				b.WriteString(c.expr(d.Expr) + ",")
			}
		}
		b.WriteString("]")
	}
	return b.String()
}

// maxTies bounds the commutative nodes (of both sides together) whose
// argument order the duplicate check enumerates (2^maxTies orders);
// further ties keep their written order, so duplicates among giant rules
// may go unnoticed.
const maxTies = 8

// orient fixes the argument order of every commutative node of p whose
// two arguments differ in structure (ignoring variable names), and returns
// the nodes whose arguments look alike (ties), which must be enumerated.
func orient(p *Pattern, swap map[*PNode]bool, room int) []*PNode {
	memo := map[*PNode]string{}
	var sig func(a Ref) string
	sig = func(a Ref) string {
		switch a.Kind {
		case RefVar:
			return "v"
		case RefConst:
			return "c(" + a.Const.String() + ")"
		}
		n := a.Node
		if s, ok := memo[n]; ok {
			return s + fmt.Sprintf(".%d", a.Output)
		}
		var b strings.Builder
		b.WriteString(n.Op + "[")
		for _, at := range n.Attrs {
			v := "?"
			if isLiteral(at.Value) {
				v = at.Value.String()
			}
			b.WriteString(at.Name + "=" + v + ",")
		}
		if n.Rest != nil {
			b.WriteString("..")
		}
		b.WriteString("](")
		args := make([]string, len(n.Args))
		for i, x := range n.Args {
			args[i] = sig(x)
		}
		if n.Commutative && len(args) == 2 && args[1] < args[0] {
			args[0], args[1] = args[1], args[0]
		}
		b.WriteString(strings.Join(args, ",") + ")")
		memo[n] = b.String()
		return memo[n] + fmt.Sprintf(".%d", a.Output)
	}
	var ties []*PNode
	for _, n := range p.Nodes {
		if !n.Commutative || len(n.Args) != 2 {
			continue
		}
		a, b := sig(n.Args[0]), sig(n.Args[1])
		switch {
		case a != b:
			swap[n] = b < a
		case len(ties) < room:
			ties = append(ties, n)
		}
	}
	return ties
}

// swapsFor sets the order of the tie nodes from the bits of mask.
func swapsFor(nodes []*PNode, mask int, into map[*PNode]bool) {
	for i, n := range nodes {
		into[n] = mask&(1<<i) != 0
	}
}

// canonicalKey returns r's canonical text (the least over the argument
// orders of commutative ops whose arguments look alike; others are put in
// a fixed order) and whether its target equals its source.
func canonicalKey(r *Rule) (key string, trivial bool) {
	fixed := map[*PNode]bool{}
	sc := orient(r.Source, fixed, maxTies)
	tc := orient(r.Target, fixed, maxTies-len(sc))
	best := ""
	for sm := 0; sm < 1<<len(sc); sm++ {
		c := &canonizer{names: map[*Var]string{}, swap: map[*PNode]bool{}}
		for n, v := range fixed {
			c.swap[n] = v
		}
		swapsFor(sc, sm, c.swap)
		src := c.side(r.Source)
		conds := make([]string, len(r.Conds))
		c.srcIDs = c.ids
		for i, e := range r.Conds {
			conds[i] = c.expr(e)
		}
		sort.Strings(conds)
		conds = append(conds, c.templates(r))
		bestT := ""
		for tm := 0; tm < 1<<len(tc); tm++ {
			swapsFor(tc, tm, c.swap)
			t := c.side(r.Target)
			if t == src {
				trivial = true
			}
			if bestT == "" || t < bestT {
				bestT = t
			}
		}
		k := src + " => " + bestT + " && " + strings.Join(conds, " && ")
		if best == "" || k < best {
			best = k
		}
	}
	return best, trivial
}
