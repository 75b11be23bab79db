package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// compiler turns one raw rule into a checked Rule, reporting every problem.
type compiler struct {
	errs      *ErrorList
	r         *Rule
	vars      map[string]*Var
	srcLabels map[string]*PNode
	tgtLabels map[string]*PNode
	side      *Pattern
	target    bool
	// needDomain marks attribute variables bound at a required attribute
	// or input, which the verifier cannot leave unset.
	needDomain map[*Var]bool
	syms       map[string]*Symbol
	items      map[string]*rawWhere
	nerr       int
}

func (c *compiler) errorf(pos Pos, format string, args ...any) {
	c.errs.add(pos, format, args...)
	c.nerr++
}

// compileRule checks rr and returns the compiled rule and whether it is
// free of errors.
func compileRule(rr *rawRule, errs *ErrorList) (*Rule, bool) {
	r := &Rule{Name: rr.name, Pos: rr.pos, Group: rr.group, Doc: rr.doc, Taso: rr.tags}
	c := &compiler{
		errs: errs, r: r, vars: map[string]*Var{}, srcLabels: map[string]*PNode{},
		tgtLabels: map[string]*PNode{}, needDomain: map[*Var]bool{}, syms: map[string]*Symbol{},
	}
	seenTag := map[int]bool{}
	for _, t := range rr.tags {
		if seenTag[t] {
			c.errorf(rr.tagPos, "taso tag %d listed twice", t)
		}
		seenTag[t] = true
	}
	r.Source = &Pattern{}
	c.side, c.target = r.Source, false
	for _, a := range rr.src {
		ref := c.ref(a)
		switch {
		case ref.Kind == RefVar:
			c.errorf(a.pos, "source output %s is a variable; a source output must be an op output", a.name)
		case ref.Kind == RefNode && slices.ContainsFunc(r.Source.Outputs, func(o Ref) bool { return o.Node == ref.Node && o.Output == ref.Output }):
			c.errorf(a.pos, "source output %s is listed twice", refString(ref))
		}
		r.Source.Outputs = append(r.Source.Outputs, ref)
	}
	for _, e := range rr.conds {
		if k := c.typeExpr(e, c.condScope); k != KInvalid && k != KBool {
			c.errorf(e.Pos, "condition must be a bool, got %v", k)
		}
	}
	r.Conds = rr.conds
	r.Target = &Pattern{}
	c.side, c.target = r.Target, true
	for _, a := range rr.tgt {
		ref := c.ref(a)
		if ref.Kind == RefConst {
			c.errorf(a.pos, "a target output cannot be a constant")
		}
		r.Target.Outputs = append(r.Target.Outputs, ref)
	}
	if ns, nt := len(r.Source.Outputs), len(r.Target.Outputs); ns != nt {
		c.errorf(rr.arrow, "source has %d output%s but target has %d: outputs are mapped by position", ns, plural(ns), nt)
	}
	c.where(rr)
	c.checkRanges()
	if c.nerr == 0 {
		r.Plan, r.Disconnected = makePlan(r)
	}
	return r, c.nerr == 0
}

// checkRanges rejects range assumptions the matcher cannot prove: "pos"
// holds only for a constant's data, so the rule must require isConst.
func (c *compiler) checkRanges() {
	consts := c.r.constVars()
	for _, v := range c.r.Vars {
		if v.Range == RangePos && !consts[v] && v.Template != nil {
			c.errorf(v.Template.Pos, "%s is declared pos (> 0), which a match can prove only from a constant's data: add the condition isConst(%s), or declare it nonneg (>= 0, proved by a producing %s)",
				v.Name, v.Name, nonNegOpList())
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ref compiles one argument or output.
func (c *compiler) ref(a *rawArg) Ref {
	switch {
	case a.konst != nil:
		if !c.target {
			c.errorf(a.pos, "const(...) may appear only in a target")
		}
		k := c.typeExpr(a.konst, c.targetScope)
		if k != KInvalid && k != KInt && k != KFloat && k != KInts && k != KFloats {
			c.errorf(a.konst.Pos, "const(...) needs a number or a list of numbers, got %v", k)
		}
		ref := Ref{Kind: RefConst, Const: a.konst, ConstShape: a.kshape, Pos: a.pos}
		if a.kshape != nil {
			if k := c.typeExpr(a.kshape, c.targetScope); k != KInvalid && k != KInts {
				c.errorf(a.kshape.Pos, "the shape of const(...) must be ints, got %v", k)
			}
		}
		return ref
	case a.node != nil:
		n := c.node(a.node)
		return Ref{Kind: RefNode, Node: n, Pos: a.pos}
	}
	if n := c.srcLabels[a.name]; n != nil {
		if c.target {
			c.errorf(a.pos, "the target cannot read %s, an op output of the source; only variables carry over", a.name)
			return Ref{Kind: RefNode, Node: n, Pos: a.pos}
		}
		c.useOutput(n, a.output, a.pos)
		return Ref{Kind: RefNode, Node: n, Output: a.output, Pos: a.pos}
	}
	if n := c.tgtLabels[a.name]; n != nil && c.target {
		c.useOutput(n, a.output, a.pos)
		return Ref{Kind: RefNode, Node: n, Output: a.output, Pos: a.pos}
	}
	if a.hasOutput {
		c.errorf(a.pos, "%s.%d: %s is not the label of an op", a.name, a.output, a.name)
	}
	v := c.vars[a.name]
	switch {
	case v == nil && c.target:
		c.errorf(a.pos, "target uses %s, which the source does not bind", a.name)
		return Ref{Kind: RefVar, Var: &Var{Name: a.name}, Pos: a.pos}
	case v == nil:
		v = c.newVar(a.name, TensorVar, KTensor, a.pos)
	case v.Kind != TensorVar:
		c.errorf(a.pos, "%s is used as a tensor here but is %s at %v", a.name, kindPhrase(v), v.Pos)
	}
	return Ref{Kind: RefVar, Var: v, Pos: a.pos}
}

func kindPhrase(v *Var) string {
	switch v.Kind {
	case TensorVar:
		return "a tensor variable"
	case AttrVar:
		return "an attribute variable of kind " + v.Type.String()
	}
	return "a record variable"
}

func (c *compiler) newVar(name string, kind VarKind, t Kind, pos Pos) *Var {
	v := &Var{Name: name, Kind: kind, Type: t, Index: len(c.r.Vars), Pos: pos}
	c.vars[name] = v
	c.r.Vars = append(c.r.Vars, v)
	return v
}

// useOutput records a reference to output out of n.
func (c *compiler) useOutput(n *PNode, out int, pos Pos) {
	if n.Schema != nil {
		if max := n.Schema.MaxOutputs(); max >= 0 && out >= max {
			c.errorf(pos, "%s has %d output%s; output %d does not exist", n.Op, max, plural(max), out)
			return
		}
	}
	if out+1 > n.NumOutputs {
		n.NumOutputs = out + 1
	}
}

// node compiles an op application (arguments first: post-order).
func (c *compiler) node(rn *rawNode) *PNode {
	n := &PNode{Pos: rn.pos, Op: rn.op, Label: rn.label, NumOutputs: 1, target: c.target}
	n.Schema = graph.Lookup("", rn.op)
	if n.Schema == nil {
		c.errorf(rn.pos, "unknown op %s", rn.op)
	}
	for _, a := range rn.args {
		n.Args = append(n.Args, c.ref(a))
	}
	if n.Schema != nil {
		c.attrs(n, rn)
		c.layout(n)
		n.Commutative = n.Schema.Commutative && len(n.Args) == 2 && n.NumInputs == 2
	}
	if rn.label != "" {
		switch {
		case c.srcLabels[rn.label] != nil || c.tgtLabels[rn.label] != nil:
			c.errorf(rn.pos, "label %s is defined twice", rn.label)
		case c.vars[rn.label] != nil:
			c.errorf(rn.pos, "label %s is already a variable", rn.label)
		case c.target:
			c.tgtLabels[rn.label] = n
		default:
			c.srcLabels[rn.label] = n
		}
	}
	n.Index = len(c.side.Nodes)
	c.side.Nodes = append(c.side.Nodes, n)
	return n
}

// attrs compiles the bracketed attributes and constant inputs of n.
func (c *compiler) attrs(n *PNode, rn *rawNode) {
	s := n.Schema
	seen := map[string]bool{}
	var named []string
	for _, ra := range rn.attrs {
		if seen[ra.name] {
			c.errorf(ra.pos, "%s of %s is given twice", ra.name, n.Op)
			continue
		}
		seen[ra.name] = true
		aa := &AttrArg{Name: ra.name, Pos: ra.pos, Value: ra.value}
		required := false
		if spec := s.Attr(ra.name); spec != nil {
			aa.Type = kindOfAttr(spec.Kind)
			if aa.Type == KInvalid {
				c.errorf(ra.pos, "attribute %s of %s has kind %v, which rules cannot express", ra.name, n.Op, spec.Kind)
				continue
			}
			required = spec.Required
			named = append(named, ra.name)
		} else if ps, ok := paramSpecs(s)[ra.name]; ok {
			aa.Param, aa.Input, aa.Type = true, ps.Input, ps.Type
			required = !ps.Optional
		} else {
			c.errorf(ra.pos, "%s has no attribute or constant input %s", n.Op, ra.name)
			continue
		}
		if c.target {
			if k := c.typeExpr(ra.value, c.targetScope); k != KInvalid && !assignable(k, aa.Type) {
				c.errorf(ra.value.Pos, "%s of %s is %v, got %v", ra.name, n.Op, aa.Type, k)
			}
		} else {
			c.sourceAttr(n, aa, required)
		}
		n.Attrs = append(n.Attrs, aa)
	}
	sort.Slice(n.Attrs, func(i, j int) bool { return n.Attrs[i].Name < n.Attrs[j].Name })
	sort.Strings(named)
	if rn.rest == "" {
		return
	}
	v := c.vars[rn.rest]
	switch {
	case v == nil && c.target:
		c.errorf(rn.rPos, "target uses record ..%s, which the source does not bind", rn.rest)
	case v == nil:
		v = c.newVar(rn.rest, RecordVar, KRecord, rn.rPos)
		v.recOp, v.recNamed = n.Op, named
	case v.Kind != RecordVar:
		c.errorf(rn.rPos, "..%s: %s is %s (bound at %v)", rn.rest, rn.rest, kindPhrase(v), v.Pos)
		v = nil
	case v.recOp != n.Op:
		c.errorf(rn.rPos, "record %s holds attributes of %s and cannot be used on %s", rn.rest, v.recOp, n.Op)
	case !c.target && !slices.Equal(v.recNamed, named):
		c.errorf(rn.rPos, "record %s must capture the same attributes wherever it occurs: %s except [%s] at %v, here except [%s]",
			rn.rest, v.recOp, strings.Join(v.recNamed, " "), v.Pos, strings.Join(named, " "))
	}
	n.Rest = v
}

// sourceAttr checks a source attribute: a literal or a variable.
func (c *compiler) sourceAttr(n *PNode, aa *AttrArg, required bool) {
	e := aa.Value
	if e.Op == EName && !e.HasOutput {
		v := c.vars[e.Name]
		switch {
		case v == nil:
			if c.srcLabels[e.Name] != nil {
				c.errorf(e.Pos, "%s is an op label, not an attribute variable", e.Name)
				return
			}
			v = c.newVar(e.Name, AttrVar, aa.Type, e.Pos)
		case v.Kind != AttrVar:
			c.errorf(e.Pos, "%s is used as an attribute here but is %s at %v", e.Name, kindPhrase(v), v.Pos)
			return
		case v.Type != aa.Type:
			c.errorf(e.Pos, "attribute variable %s is %v here but %v at %v", e.Name, aa.Type, v.Type, v.Pos)
			return
		}
		if required {
			c.needDomain[v] = true
		}
		e.Var, e.Type = v, v.Type
		return
	}
	if !isLiteral(e) {
		c.errorf(e.Pos, "source attributes must be literals or variables (put computations in a condition)")
		return
	}
	if k := c.typeExpr(e, c.noScope); k != KInvalid && !assignable(k, aa.Type) {
		c.errorf(e.Pos, "%s of %s is %v, got %v", aa.Name, n.Op, aa.Type, k)
	}
}

// isLiteral reports whether e is a literal or a list of literals.
func isLiteral(e *Expr) bool {
	switch e.Op {
	case ELit:
		return true
	case EList:
		for _, a := range e.Args {
			if a.Op != ELit {
				return false
			}
		}
		return true
	}
	return false
}

// layout assigns input positions to arguments and checks the arity.
func (c *compiler) layout(n *PNode) {
	s := n.Schema
	params := map[int]bool{}
	for _, a := range n.Attrs {
		if a.Param {
			params[a.Input] = true
		}
	}
	idx := 0
	n.ArgInput = make([]int, len(n.Args))
	for i := range n.Args {
		for params[idx] {
			idx++
		}
		n.ArgInput[i] = idx
		idx++
	}
	n.NumInputs = idx
	for p := range params {
		n.NumInputs = max(n.NumInputs, p+1)
	}
	got := len(n.Args) + len(params)
	lo, hi := s.MinInputs(), s.MaxInputs()
	if n.NumInputs < lo || (hi >= 0 && n.NumInputs > hi) {
		c.errorf(n.Pos, "%s takes %s, got %d", n.Op, arityPhrase(lo, hi), got)
		return
	}
	for pos := 0; pos < n.NumInputs; pos++ {
		if params[pos] || slices.Contains(n.ArgInput, pos) {
			continue
		}
		spec := s.Inputs[min(pos, len(s.Inputs)-1)]
		if !spec.Optional {
			c.errorf(n.Pos, "%s input %d (%s) is required", n.Op, pos, spec.Name)
		}
	}
}

func arityPhrase(lo, hi int) string {
	switch {
	case hi < 0:
		return fmt.Sprintf("at least %d input%s", lo, plural(lo))
	case lo == hi:
		return fmt.Sprintf("%d input%s", lo, plural(lo))
	}
	return fmt.Sprintf("%d to %d inputs", lo, hi)
}

// Name scopes for type checking.

// scope resolves a name in e (sets e.Var, e.Node or e.Sym) and returns its
// kind, or reports it and returns KInvalid.
type scope func(e *Expr) Kind

func (c *compiler) noScope(e *Expr) Kind {
	c.errorf(e.Pos, "%s: names are not allowed here", e.Name)
	return KInvalid
}

func (c *compiler) varKind(e *Expr, v *Var) Kind {
	e.Var = v
	switch v.Kind {
	case TensorVar:
		return KTensor
	case RecordVar:
		return KRecord
	}
	return v.Type
}

func (c *compiler) condScope(e *Expr) Kind {
	if n := c.srcLabels[e.Name]; n != nil {
		c.useOutput(n, e.Output, e.Pos)
		e.Node = n
		return KTensor
	}
	if v := c.vars[e.Name]; v != nil && !e.HasOutput {
		return c.varKind(e, v)
	}
	c.errorf(e.Pos, "unknown name %s (not bound by the source)", e.Name)
	return KInvalid
}

func (c *compiler) targetScope(e *Expr) Kind {
	if n := c.tgtLabels[e.Name]; n != nil {
		c.useOutput(n, e.Output, e.Pos)
		e.Node = n
		return KTensor
	}
	return c.condScope(e)
}

// typeExpr resolves names and functions in e and returns its kind.
func (c *compiler) typeExpr(e *Expr, sc scope) Kind {
	e.Type = c.typeOf(e, sc)
	return e.Type
}

func (c *compiler) typeOf(e *Expr, sc scope) Kind {
	switch e.Op {
	case ELit:
		return e.Lit.Kind
	case EName:
		return sc(e)
	case ECall:
		f := funcTable[e.Name]
		kinds := make([]Kind, len(e.Args))
		for i, a := range e.Args {
			kinds[i] = c.typeExpr(a, sc)
		}
		if f == nil {
			c.errorf(e.Pos, "unknown function %s", e.Name)
			return KInvalid
		}
		e.Func = f
		if len(e.Args) != len(f.Args) {
			c.errorf(e.Pos, "%s takes %d argument%s, got %d", f.Name, len(f.Args), plural(len(f.Args)), len(e.Args))
			return f.Result
		}
		for i, k := range kinds {
			if k != KInvalid && !assignable(k, f.Args[i]) {
				c.errorf(e.Args[i].Pos, "argument %d of %s must be %v, got %v", i+1, f.Name, f.Args[i], k)
			}
		}
		return f.Result
	case EList:
		k := KInts
		for _, a := range e.Args {
			switch c.typeExpr(a, sc) {
			case KInt:
			case KFloat:
				k = KFloats
			case KInvalid:
			default:
				c.errorf(a.Pos, "list elements must be numbers, got %v", a.Type)
				return KInvalid
			}
		}
		return k
	case ERecord:
		for _, a := range e.Args {
			c.typeExpr(a, sc)
		}
		return KRecord
	case EUnary:
		k := c.typeExpr(e.Args[0], sc)
		switch {
		case k == KInvalid:
			return KInvalid
		case e.Name == "!" && k == KBool:
			return KBool
		case e.Name == "-" && (k == KInt || k == KFloat):
			return k
		}
		c.errorf(e.Pos, "operator %s does not apply to %v", e.Name, k)
		return KInvalid
	case EBinary:
		a, b := c.typeExpr(e.Args[0], sc), c.typeExpr(e.Args[1], sc)
		if a == KInvalid || b == KInvalid {
			return KInvalid
		}
		num := func(k Kind) bool { return k == KInt || k == KFloat }
		switch e.Name {
		case "+", "-", "*", "/":
			if num(a) && num(b) {
				if a == KFloat || b == KFloat {
					return KFloat
				}
				return KInt
			}
		case "<", "<=", ">", ">=":
			if num(a) && num(b) {
				return KBool
			}
		case "==", "!=":
			if assignable(a, b) || assignable(b, a) {
				return KBool
			}
		}
		c.errorf(e.Pos, "operator %s does not apply to %v and %v", e.Name, a, b)
		return KInvalid
	case EIn:
		k := c.typeExpr(e.Args[0], sc)
		for _, a := range e.Args[1:] {
			if ak := c.typeExpr(a, sc); k != KInvalid && ak != KInvalid && !assignable(ak, k) && !assignable(k, ak) {
				c.errorf(a.Pos, "%v alternative for a %v value", ak, k)
			}
		}
		return KBool
	}
	return KInvalid
}

// refString names a reference for messages.
func refString(r Ref) string {
	switch r.Kind {
	case RefVar:
		return r.Var.Name
	case RefNode:
		name := r.Node.Op
		if r.Node.Label != "" {
			name = r.Node.Label
		}
		if r.Output > 0 {
			return fmt.Sprintf("%s.%d", name, r.Output)
		}
		return name
	}
	return "const(...)"
}

// lookupSchema returns the default-domain schema of op.
func lookupSchema(op string) *graph.OpSchema { return graph.Lookup("", op) }

func contains(list []string, s string) bool { return slices.Contains(list, s) }
