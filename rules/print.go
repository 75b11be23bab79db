package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// String prints the rule in canonical syntax: one line for the rule
// (attributes sorted, one space between items) and one indented line for
// its instantiation clause, which includes the defaults in force where the
// rule was written. Parsing the result gives an equivalent rule, and
// printing that gives the same text.
func (r *Rule) String() string {
	var b strings.Builder
	b.WriteString(r.Name)
	if len(r.Taso) > 0 {
		parts := make([]string, len(r.Taso))
		for i, t := range r.Taso {
			parts[i] = strconv.Itoa(t)
		}
		fmt.Fprintf(&b, " [taso %s]", strings.Join(parts, ", "))
	}
	b.WriteByte(' ')
	b.WriteString(r.Source.String())
	for _, c := range r.Conds {
		b.WriteString(" && ")
		b.WriteString(c.String())
	}
	b.WriteString(" => ")
	b.WriteString(r.Target.String())
	if w := r.WhereString(); w != "" {
		b.WriteString("\n    where ")
		b.WriteString(w)
	}
	return b.String()
}

// WhereString prints the rule's instantiation clause (without "where"):
// shape templates of the tensor variables, then domains.
func (r *Rule) WhereString() string {
	var items []string
	for _, v := range r.Vars {
		if v.Kind != TensorVar || v.Template == nil {
			continue
		}
		s := v.Name + v.Template.String()
		if v.Range != RangeAny {
			s += " " + v.Range.String()
		}
		items = append(items, s)
	}
	domain := func(name string, d []*Expr) string {
		parts := make([]string, len(d))
		for i, e := range d {
			parts[i] = e.String()
		}
		return name + " in {" + strings.Join(parts, ", ") + "}"
	}
	for _, s := range r.Symbols {
		if len(s.Domain) > 0 {
			items = append(items, domain(s.Name, s.Domain))
		}
	}
	for _, v := range r.Vars {
		if v.Kind != TensorVar && len(v.Domain) > 0 {
			items = append(items, domain(v.Name, v.Domain))
		}
	}
	return strings.Join(items, "  ")
}

// String prints a template: [n, c, *s, 2*k].
func (t *Template) String() string {
	parts := make([]string, len(t.Dims))
	for i, d := range t.Dims {
		if d.Seg != nil {
			parts[i] = "*" + d.Seg.Name
		} else {
			parts[i] = d.Expr.String()
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// String prints the pattern's outputs: one expression or a tuple.
func (p *Pattern) String() string {
	pr := &patPrinter{done: map[*PNode]bool{}}
	parts := make([]string, len(p.Outputs))
	for i, o := range p.Outputs {
		parts[i] = pr.ref(o)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

type patPrinter struct {
	done map[*PNode]bool
}

func (pr *patPrinter) ref(a Ref) string {
	switch a.Kind {
	case RefVar:
		return a.Var.Name
	case RefConst:
		if a.ConstShape != nil {
			return "const(" + a.Const.String() + ", " + a.ConstShape.String() + ")"
		}
		return "const(" + a.Const.String() + ")"
	}
	n := a.Node
	if pr.done[n] {
		if a.Output > 0 {
			return fmt.Sprintf("%s.%d", n.Label, a.Output)
		}
		return n.Label
	}
	pr.done[n] = true
	var b strings.Builder
	if n.Label != "" {
		b.WriteString(n.Label)
		b.WriteByte(':')
	}
	b.WriteString(n.Op)
	if len(n.Attrs) > 0 || n.Rest != nil {
		b.WriteByte('[')
		for i, at := range n.Attrs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(at.Name)
			b.WriteByte('=')
			b.WriteString(at.Value.String())
		}
		if n.Rest != nil {
			if len(n.Attrs) > 0 {
				b.WriteString(", ")
			}
			b.WriteString("..")
			b.WriteString(n.Rest.Name)
		}
		b.WriteByte(']')
	}
	b.WriteByte('(')
	for i, x := range n.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pr.ref(x))
	}
	b.WriteByte(')')
	s := b.String()
	if a.Output > 0 {
		// Only reachable for hand-built patterns; parsed ones define a
		// label before using another output.
		s += fmt.Sprintf(".%d", a.Output)
	}
	return s
}

// precedence of binary operators (higher binds tighter).
func precedence(e *Expr) int {
	switch e.Op {
	case EBinary:
		switch e.Name {
		case "==", "!=", "<", "<=", ">", ">=":
			return 1
		case "+", "-":
			return 2
		case "*", "/":
			return 3
		}
	case EIn:
		return 1
	case EUnary:
		return 4
	}
	return 5
}

// String prints the expression with the parentheses it needs.
func (e *Expr) String() string {
	switch e.Op {
	case ELit:
		return e.Lit.String()
	case EName:
		if e.HasOutput {
			return fmt.Sprintf("%s.%d", e.Name, e.Output)
		}
		return e.Name
	case ECall:
		return e.Name + "(" + joinExprs(e.Args) + ")"
	case EList:
		return "[" + joinExprs(e.Args) + "]"
	case ERecord:
		parts := make([]string, len(e.Fields))
		for i, f := range e.Fields {
			parts[i] = f + "=" + e.Args[i].String()
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case EUnary:
		return e.Name + paren(e.Args[0], precedence(e), false)
	case EBinary:
		p := precedence(e)
		return paren(e.Args[0], p, false) + " " + e.Name + " " + paren(e.Args[1], p, true)
	case EIn:
		return paren(e.Args[0], 2, false) + " in {" + joinExprs(e.Args[1:]) + "}"
	}
	return "?"
}

func paren(e *Expr, p int, right bool) string {
	q := precedence(e)
	if q < p || (right && q == p && q < 4) {
		return "(" + e.String() + ")"
	}
	return e.String()
}

func joinExprs(es []*Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}
