package rules

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Raw syntax produced by the parser and compiled by the checker.

type rawRule struct {
	name    string
	pos     Pos
	group   string
	doc     string
	tags    []int
	tagPos  Pos
	src     []*rawArg
	tgt     []*rawArg
	arrow   Pos
	conds   []*Expr
	where   []*rawWhere
	section []*rawWhere // defaults in force
}

type rawNode struct {
	pos   Pos
	label string
	op    string
	attrs []*rawAttr
	rest  string
	rPos  Pos
	args  []*rawArg
}

type rawArg struct {
	pos       Pos
	node      *rawNode
	name      string
	output    int
	hasOutput bool
	konst     *Expr
	kshape    *Expr
}

type rawAttr struct {
	pos   Pos
	name  string
	value *Expr
}

type rawWhere struct {
	pos     Pos
	name    string
	dims    []*rawDim // shape template (nil for a domain)
	isShape bool
	rng     Range
	domain  []*Expr
}

type rawDim struct {
	pos  Pos
	seg  string
	expr *Expr
}

// bailout aborts the parse of one item after a syntax error.
type bailout struct{}

// parser reads the items of one file. Each item starts at a token in
// column 1: a heading comment, a "default" line or a rule.
type parser struct {
	toks     []token
	i        int
	end      int // end of the current item
	errs     *ErrorList
	comments map[int]string
}

// parseFile returns the raw rules of a file.
func parseFile(file string, src []byte, errs *ErrorList) []*rawRule {
	toks, comments := lex(file, src, errs)
	p := &parser{toks: toks, errs: errs, comments: comments}
	var rules []*rawRule
	group := ""
	var defaults []*rawWhere
	start := 0
	for start < len(toks) && toks[start].kind != tEOF {
		end := start + 1
		for end < len(toks) && !toks[end].first {
			end++
		}
		t := toks[start]
		switch {
		case t.kind == tHeading:
			group = t.text
			defaults = nil
		case !t.first:
			errs.add(t.pos, "expected a rule, a heading or a default line at the start of a line, found %s", describe(t))
		case t.kind == tIdent && t.text == "default":
			if ws, ok := p.item(start, end, func() any { p.i++; return p.whereItems() }); ok {
				defaults = ws.([]*rawWhere)
			}
		case t.kind == tIdent:
			if r, ok := p.item(start, end, p.rule); ok {
				rr := r.(*rawRule)
				rr.group = group
				rr.section = defaults
				rr.doc = p.docAbove(t.pos.Line)
				rules = append(rules, rr)
			}
		default:
			errs.add(t.pos, "expected a rule name, a heading or a default line, found %s", describe(t))
		}
		start = end
	}
	return rules
}

// item parses toks[start:end] with f, recovering from syntax errors.
func (p *parser) item(start, end int, f func() any) (result any, ok bool) {
	p.i, p.end = start, end
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(bailout); !is {
				panic(r)
			}
			result, ok = nil, false
		}
	}()
	result = f()
	if p.i < p.end {
		p.fail(p.tok(), "unexpected %s", describe(p.tok()))
	}
	return result, true
}

// docAbove joins the column-1 comment lines directly above line.
func (p *parser) docAbove(line int) string {
	var lines []string
	for l := line - 1; ; l-- {
		c, ok := p.comments[l]
		if !ok {
			break
		}
		lines = append([]string{c}, lines...)
	}
	return strings.Join(lines, "\n")
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of line"
	case tIdent:
		return "name " + t.text
	case tInt, tFloat:
		return "number " + t.text
	case tString:
		return "string " + strconv.Quote(t.text)
	case tHeading:
		return "heading"
	}
	return "'" + t.text + "'"
}

// tok returns the current token, or an end-of-item token.
func (p *parser) tok() token {
	if p.i < p.end {
		return p.toks[p.i]
	}
	// Point just past the item's last token.
	last := p.toks[p.end-1]
	pos := last.pos
	pos.Col += len([]rune(last.text))
	if last.kind == tString {
		pos.Col += 2
	}
	return token{kind: tEOF, pos: pos}
}

func (p *parser) fail(t token, format string, args ...any) {
	p.errs.add(t.pos, format, args...)
	panic(bailout{})
}

func (p *parser) isPunct(s string) bool {
	t := p.tok()
	return t.kind == tPunct && t.text == s
}

func (p *parser) isKeyword(s string) bool {
	t := p.tok()
	return t.kind == tIdent && t.text == s
}

// list parses comma-separated items, each by item, up to and including
// the closing punctuation close (a trailing comma is allowed).
func (p *parser) list(close string, item func()) {
	for !p.isPunct(close) {
		item()
		if !p.isPunct(",") {
			break
		}
		p.i++
	}
	p.expect(close)
}

func (p *parser) expect(s string) token {
	t := p.tok()
	if t.kind != tPunct || t.text != s {
		p.fail(t, "expected '%s', found %s", s, describe(t))
	}
	p.i++
	return t
}

func (p *parser) ident(what string) token {
	t := p.tok()
	if t.kind != tIdent {
		p.fail(t, "expected %s, found %s", what, describe(t))
	}
	p.i++
	return t
}

// rule parses: NAME [tags]? SOURCE (&& COND)* => TARGET (where ITEMS)?
func (p *parser) rule() any {
	name := p.ident("a rule name")
	r := &rawRule{name: name.text, pos: name.pos}
	if p.isPunct("[") {
		r.tagPos = p.tok().pos
		p.i++
		tag := p.ident("a tag name (taso)")
		if tag.text != "taso" {
			p.errs.add(tag.pos, "unknown tag %q (the only tag is taso)", tag.text)
		}
		for {
			t := p.tok()
			if t.kind != tInt {
				p.fail(t, "expected a TASO rule number, found %s", describe(t))
			}
			p.i++
			n, _ := strconv.Atoi(t.text)
			r.tags = append(r.tags, n)
			if !p.isPunct(",") {
				break
			}
			p.i++
		}
		p.expect("]")
	}
	r.src = p.outputs()
	for p.isPunct("&&") {
		p.i++
		r.conds = append(r.conds, p.vexpr())
	}
	r.arrow = p.expect("=>").pos
	r.tgt = p.outputs()
	if p.isKeyword("where") {
		p.i++
		r.where = p.whereItems()
	}
	return r
}

// outputs parses one pattern expression or a parenthesised tuple.
func (p *parser) outputs() []*rawArg {
	if p.isPunct("(") {
		p.i++
		var outs []*rawArg
		for {
			outs = append(outs, p.patExpr())
			if !p.isPunct(",") {
				break
			}
			p.i++
		}
		p.expect(")")
		return outs
	}
	return []*rawArg{p.patExpr()}
}

// isOpName reports whether an identifier names an op (starts upper-case).
func isOpName(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}

// patExpr parses: label:Op[...](...) | Op[...](...) | name(.N)? | const(VEXPR)
func (p *parser) patExpr() *rawArg {
	t := p.tok()
	if t.kind != tIdent {
		p.fail(t, "expected an op or a variable, found %s", describe(t))
	}
	if t.text == "const" && p.i+1 < p.end && p.toks[p.i+1].kind == tPunct && p.toks[p.i+1].text == "(" {
		p.i += 2
		a := &rawArg{pos: t.pos, konst: p.vexpr()}
		if p.isPunct(",") {
			p.i++
			a.kshape = p.vexpr()
		}
		p.expect(")")
		return a
	}
	if isOpName(t.text) {
		return &rawArg{pos: t.pos, node: p.opCall("")}
	}
	p.i++
	if p.isPunct(":") {
		p.i++
		op := p.tok()
		if op.kind != tIdent || !isOpName(op.text) {
			p.fail(op, "expected an op after label %s:, found %s", t.text, describe(op))
		}
		return &rawArg{pos: t.pos, node: p.opCall(t.text)}
	}
	a := &rawArg{pos: t.pos, name: t.text}
	a.output, a.hasOutput = p.outputSuffix(t)
	return a
}

// outputSuffix parses an optional ".N" output number after the name t.
func (p *parser) outputSuffix(t token) (int, bool) {
	if !p.isPunct(".") {
		return 0, false
	}
	p.i++
	n := p.tok()
	if n.kind != tInt {
		p.fail(n, "expected an output number after %s., found %s", t.text, describe(n))
	}
	p.i++
	out, _ := strconv.Atoi(n.text)
	return out, true
}

// opCall parses Op[attrs](args) with the op name as the current token.
func (p *parser) opCall(label string) *rawNode {
	op := p.ident("an op")
	n := &rawNode{pos: op.pos, label: label, op: op.text}
	if p.isPunct("[") {
		p.i++
		p.list("]", func() {
			if p.isPunct("..") {
				p.i++
				r := p.ident("a record variable after '..'")
				if n.rest != "" {
					p.errs.add(r.pos, "%s has two record variables (..%s and ..%s)", op.text, n.rest, r.text)
				}
				n.rest, n.rPos = r.text, r.pos
			} else {
				name := p.ident("an attribute name")
				p.expect("=")
				n.attrs = append(n.attrs, &rawAttr{pos: name.pos, name: name.text, value: p.vexpr()})
			}
		})
	}
	p.expect("(")
	p.list(")", func() {
		n.args = append(n.args, p.patExpr())
	})
	return n
}

// whereItems parses instantiation items up to the end of the item:
// name[dims] (pos)?  |  name in {values}
func (p *parser) whereItems() []*rawWhere {
	var items []*rawWhere
	for p.i < p.end {
		name := p.ident("a variable or dimension symbol")
		w := &rawWhere{pos: name.pos, name: name.text}
		switch {
		case p.isPunct("["):
			p.i++
			w.isShape = true
			p.list("]", func() {
				if p.isPunct("*") {
					p.i++
					s := p.ident("a segment name after '*'")
					w.dims = append(w.dims, &rawDim{pos: s.pos, seg: s.text})
				} else {
					t := p.tok()
					w.dims = append(w.dims, &rawDim{pos: t.pos, expr: p.vexpr()})
				}
			})
			switch {
			case p.isKeyword("pos"):
				p.i++
				w.rng = RangePos
			case p.isKeyword("nonneg"):
				p.i++
				w.rng = RangeNonNeg
			}
		case p.isKeyword("in"):
			p.i++
			p.expect("{")
			p.list("}", func() {
				w.domain = append(w.domain, p.vexpr())
			})
			if len(w.domain) == 0 {
				p.fail(p.tok(), "empty domain for %s", name.text)
			}
		default:
			p.fail(p.tok(), "expected '[' (shape template) or 'in' (domain) after %s, found %s", name.text, describe(p.tok()))
		}
		items = append(items, w)
		if p.isPunct(",") {
			p.i++
		}
	}
	return items
}

// Value expressions, by increasing precedence:
//
//	cmp:   add (('=='|'!='|'<'|'<='|'>'|'>=') add | 'in' '{' vexpr, ... '}')?
//	add:   mul (('+'|'-') mul)*
//	mul:   unary (('*'|'/') unary)*
//	unary: ('-'|'!') unary | primary
func (p *parser) vexpr() *Expr {
	x := p.addExpr()
	t := p.tok()
	if t.kind == tPunct {
		switch t.text {
		case "==", "!=", "<", "<=", ">", ">=":
			p.i++
			y := p.addExpr()
			return &Expr{Op: EBinary, Pos: t.pos, Name: t.text, Args: []*Expr{x, y}}
		}
	}
	if p.isKeyword("in") {
		p.i++
		p.expect("{")
		e := &Expr{Op: EIn, Pos: t.pos, Args: []*Expr{x}}
		p.list("}", func() {
			e.Args = append(e.Args, p.vexpr())
		})
		if len(e.Args) == 1 {
			p.fail(t, "empty set after 'in'")
		}
		return e
	}
	return x
}

func (p *parser) addExpr() *Expr { return p.leftAssoc(p.mulExpr, "+", "-") }

func (p *parser) mulExpr() *Expr { return p.leftAssoc(p.unary, "*", "/") }

// leftAssoc parses operand (op operand)* for the binary operators ops,
// grouping to the left.
func (p *parser) leftAssoc(operand func() *Expr, ops ...string) *Expr {
	x := operand()
	for t := p.tok(); t.kind == tPunct && slices.Contains(ops, t.text); t = p.tok() {
		p.i++
		x = &Expr{Op: EBinary, Pos: t.pos, Name: t.text, Args: []*Expr{x, operand()}}
	}
	return x
}

func (p *parser) unary() *Expr {
	t := p.tok()
	if p.isPunct("-") || p.isPunct("!") {
		p.i++
		x := p.unary()
		if t.text == "-" && x.Op == ELit && (x.Lit.Kind == KInt || x.Lit.Kind == KFloat) {
			x.Lit.Int, x.Lit.Float = -x.Lit.Int, -x.Lit.Float
			x.Pos = t.pos
			return x
		}
		return &Expr{Op: EUnary, Pos: t.pos, Name: t.text, Args: []*Expr{x}}
	}
	return p.primary()
}

func (p *parser) primary() *Expr {
	t := p.tok()
	switch t.kind {
	case tInt:
		p.i++
		v, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			p.fail(t, "integer %s out of range", t.text)
		}
		return &Expr{Op: ELit, Pos: t.pos, Lit: intVal(v)}
	case tFloat:
		p.i++
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			p.fail(t, "bad float %s", t.text)
		}
		return &Expr{Op: ELit, Pos: t.pos, Lit: floatVal(v)}
	case tString:
		p.i++
		return &Expr{Op: ELit, Pos: t.pos, Lit: stringVal(t.text)}
	case tIdent:
		p.i++
		switch t.text {
		case "true", "false":
			return &Expr{Op: ELit, Pos: t.pos, Lit: boolVal(t.text == "true")}
		}
		if p.isPunct("(") {
			p.i++
			e := &Expr{Op: ECall, Pos: t.pos, Name: t.text}
			p.list(")", func() {
				e.Args = append(e.Args, p.vexpr())
			})
			return e
		}
		e := &Expr{Op: EName, Pos: t.pos, Name: t.text}
		e.Output, e.HasOutput = p.outputSuffix(t)
		return e
	case tPunct:
		switch t.text {
		case "(":
			p.i++
			e := p.vexpr()
			p.expect(")")
			return e
		case "[":
			p.i++
			e := &Expr{Op: EList, Pos: t.pos}
			p.list("]", func() {
				e.Args = append(e.Args, p.vexpr())
			})
			return e
		case "{":
			p.i++
			e := &Expr{Op: ERecord, Pos: t.pos}
			p.list("}", func() {
				name := p.ident("an attribute name")
				p.expect("=")
				e.Fields = append(e.Fields, name.text)
				e.Args = append(e.Args, p.vexpr())
			})
			return e
		}
	}
	p.fail(t, "expected a value, found %s", describe(t))
	return nil
}
