package graph

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Parsing and printing of Sym. An atom that is a plain identifier (letters,
// digits, '_' and '.', not starting with a digit) is written as is; any
// other dimension name is written in brackets ("[batch size]") so that the
// canonical string stays unambiguous. Derived atoms are "floor(E/c)",
// "min(E,F)" and "max(E,F)".

var derivedFuncs = []string{"floor(", "min(", "max("}

// isDerivedAtom reports whether atom is a derived quantity rather than an
// input's dimension name.
func isDerivedAtom(atom string) bool {
	for _, f := range derivedFuncs {
		if strings.HasPrefix(atom, f) && strings.HasSuffix(atom, ")") {
			return true
		}
	}
	return false
}

// derived is a parsed derived atom: fn(a, b), with floor(a/b) as "floor".
type derived struct {
	fn   string
	a, b Sym
}

var derivedCache sync.Map // string -> derived

// parseDerived parses a derived atom.
func parseDerived(atom string) (derived, bool) {
	if d, ok := derivedCache.Load(atom); ok {
		return d.(derived), true
	}
	p := &symParser{s: atom}
	e, err := p.factor()
	if err != nil || p.pos != len(p.s) || len(e.terms) != 1 || len(e.terms[0].atoms) != 1 {
		return derived{}, false
	}
	d, ok := p.last, p.lastOK
	if ok {
		derivedCache.Store(atom, d)
	}
	return d, ok
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '.'
}

// quoteAtom returns atom as written in a canonical string.
func quoteAtom(atom string) string {
	if isDerivedAtom(atom) || plainIdent(atom) {
		return atom
	}
	return "[" + atom + "]"
}

func plainIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

var symCache sync.Map // string -> Sym

// ParseSym parses a dimension expression: integers, names (plain or in
// brackets), + - * with the usual precedence, parentheses, / (floor
// division by a positive integer constant), min(E,F) and max(E,F). The
// result is canonical: ParseSym(e.String()) equals e.
func ParseSym(s string) (Sym, error) {
	if v, ok := symCache.Load(s); ok {
		return v.(Sym), nil
	}
	p := &symParser{s: s}
	e, err := p.expr()
	if err == nil && p.pos != len(p.s) {
		err = fmt.Errorf("unexpected %q", p.s[p.pos:])
	}
	if err != nil {
		return Sym{}, fmt.Errorf("dimension expression %q: %w", s, err)
	}
	symCache.Store(s, e)
	return e, nil
}

type symParser struct {
	s   string
	pos int
	// last is the derived atom most recently parsed (for parseDerived).
	last   derived
	lastOK bool
}

func (p *symParser) peek() byte {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *symParser) expr() (Sym, error) {
	neg := false
	if p.peek() == '-' {
		neg = true
		p.pos++
	}
	e, err := p.term()
	if err != nil {
		return Sym{}, err
	}
	if neg {
		e = e.Neg()
	}
	for {
		switch p.peek() {
		case '+', '-':
			op := p.s[p.pos]
			p.pos++
			t, err := p.term()
			if err != nil {
				return Sym{}, err
			}
			if op == '+' {
				e = e.Add(t)
			} else {
				e = e.Sub(t)
			}
		default:
			return e, nil
		}
	}
}

func (p *symParser) term() (Sym, error) {
	e, err := p.factor()
	if err != nil {
		return Sym{}, err
	}
	for {
		switch p.peek() {
		case '*':
			p.pos++
			f, err := p.factor()
			if err != nil {
				return Sym{}, err
			}
			e = e.Mul(f)
		case '/':
			p.pos++
			f, err := p.factor()
			if err != nil {
				return Sym{}, err
			}
			c, ok := f.Const()
			if !ok || c <= 0 {
				return Sym{}, fmt.Errorf("division by %s: only positive integer divisors", f)
			}
			e = e.FloorDiv(c)
		default:
			return e, nil
		}
	}
}

func (p *symParser) factor() (Sym, error) {
	c := p.peek()
	switch {
	case c == '(':
		p.pos++
		e, err := p.expr()
		if err != nil {
			return Sym{}, err
		}
		if p.peek() != ')' {
			return Sym{}, fmt.Errorf("missing ')'")
		}
		p.pos++
		return e, nil
	case c == '[':
		end := strings.IndexByte(p.s[p.pos:], ']')
		if end < 0 {
			return Sym{}, fmt.Errorf("missing ']'")
		}
		name := p.s[p.pos+1 : p.pos+end]
		p.pos += end + 1
		return SymAtom(name), nil
	case c >= '0' && c <= '9':
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		v, err := strconv.ParseInt(p.s[start:p.pos], 10, 64)
		if err != nil {
			return Sym{}, err
		}
		return SymConst(v), nil
	case isIdentStart(c):
		start := p.pos
		for p.pos < len(p.s) && isIdentChar(p.s[p.pos]) {
			p.pos++
		}
		name := p.s[start:p.pos]
		if p.peek() == '(' && (name == "min" || name == "max" || name == "floor") {
			return p.call(name)
		}
		return SymAtom(name), nil
	case c == 0:
		return Sym{}, fmt.Errorf("unexpected end")
	}
	return Sym{}, fmt.Errorf("unexpected %q", string(c))
}

// call parses the arguments of min, max or floor after the name.
func (p *symParser) call(name string) (Sym, error) {
	p.pos++ // '('
	a, err := p.expr()
	if err != nil {
		return Sym{}, err
	}
	if name == "floor" {
		// floor(E/c): the division was parsed inside a's term; the
		// argument is already the floor.
		if p.peek() != ')' {
			return Sym{}, fmt.Errorf("missing ')' after floor's argument")
		}
		p.pos++
		p.noteFloor(a)
		return a, nil
	}
	if p.peek() != ',' {
		return Sym{}, fmt.Errorf("%s needs two arguments", name)
	}
	p.pos++
	b, err := p.expr()
	if err != nil {
		return Sym{}, err
	}
	if p.peek() != ')' {
		return Sym{}, fmt.Errorf("missing ')' after %s's arguments", name)
	}
	p.pos++
	p.last, p.lastOK = derived{fn: name, a: a, b: b}, true
	if name == "min" {
		return a.Min(b), nil
	}
	return a.Max(b), nil
}

// noteFloor records floor(E/c) for parseDerived: a is the already reduced
// floor atom, whose inner expression and divisor are recovered from its
// canonical text.
func (p *symParser) noteFloor(a Sym) {
	if len(a.terms) != 1 || len(a.terms[0].atoms) != 1 || a.terms[0].coef != 1 {
		return
	}
	at := a.terms[0].atoms[0]
	if !strings.HasPrefix(at, "floor(") {
		return
	}
	inner := at[len("floor(") : len(at)-1]
	slash := strings.LastIndexByte(inner, '/')
	if slash < 0 {
		return
	}
	c, err := strconv.ParseInt(inner[slash+1:], 10, 64)
	if err != nil {
		return
	}
	e, err := ParseSym(inner[:slash])
	if err != nil {
		return
	}
	p.last, p.lastOK = derived{fn: "floor", a: e, b: SymConst(c)}, true
}
