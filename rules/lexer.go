package rules

import (
	"strings"
	"unicode"
)

// tokKind classifies a token of the rules language.
type tokKind int

const (
	tEOF     tokKind = iota
	tIdent           // names of rules, ops, variables, functions, attributes
	tInt             // 12
	tFloat           // 1.5, 1e-5
	tString          // "SAME_UPPER"
	tPunct           // ( ) [ ] { } , : . .. = == != < <= > >= + - * / ! && =>
	tHeading         // a "// == Title" line; text is the title
)

// token is one lexeme with its position. first marks a token that starts
// in column 1, which begins a new item (rule, directive).
type token struct {
	kind  tokKind
	text  string
	pos   Pos
	first bool
}

// lexer splits a rules file into tokens and remembers column-1 comment
// lines (documentation of the rule that follows them).
type lexer struct {
	file     string
	src      []rune
	i        int
	line     int
	col      int
	errs     *ErrorList
	comments map[int]string // line -> text of a column-1 comment
}

// lex tokenises src completely.
func lex(file string, src []byte, errs *ErrorList) ([]token, map[int]string) {
	lx := &lexer{file: file, src: []rune(string(src)), line: 1, col: 1, errs: errs, comments: map[int]string{}}
	var toks []token
	for {
		t := lx.next()
		toks = append(toks, t)
		if t.kind == tEOF {
			return toks, lx.comments
		}
	}
}

func (lx *lexer) peek(k int) rune {
	if lx.i+k < len(lx.src) {
		return lx.src[lx.i+k]
	}
	return 0
}

func (lx *lexer) advance() rune {
	r := lx.src[lx.i]
	lx.i++
	if r == '\n' {
		lx.line++
		lx.col = 1
	} else {
		lx.col++
	}
	return r
}

func (lx *lexer) pos() Pos { return Pos{File: lx.file, Line: lx.line, Col: lx.col} }

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func isIdentPart(r rune) bool  { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// next returns the next token, skipping blanks and comments.
func (lx *lexer) next() token {
	for lx.i < len(lx.src) {
		r := lx.peek(0)
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			lx.advance()
			continue
		}
		if r == '/' && lx.peek(1) == '/' {
			p := lx.pos()
			var b strings.Builder
			for lx.i < len(lx.src) && lx.peek(0) != '\n' {
				b.WriteRune(lx.advance())
			}
			text := strings.TrimSpace(strings.TrimPrefix(b.String(), "//"))
			if p.Col == 1 {
				if strings.HasPrefix(text, "==") {
					title := strings.TrimSpace(strings.Trim(text, "= "))
					return token{kind: tHeading, text: title, pos: p, first: true}
				}
				lx.comments[p.Line] = text
			}
			continue
		}
		break
	}
	p := lx.pos()
	if lx.i >= len(lx.src) {
		return token{kind: tEOF, pos: p, first: true}
	}
	first := p.Col == 1
	r := lx.peek(0)
	switch {
	case first && isIdentStart(r):
		// Rule names may contain '-' and '.' ("conv-bn-fold.s2").
		var b strings.Builder
		for lx.i < len(lx.src) && (isIdentPart(lx.peek(0)) || lx.peek(0) == '-' || lx.peek(0) == '.') {
			b.WriteRune(lx.advance())
		}
		return token{kind: tIdent, text: b.String(), pos: p, first: true}
	case isIdentStart(r):
		var b strings.Builder
		for lx.i < len(lx.src) && isIdentPart(lx.peek(0)) {
			b.WriteRune(lx.advance())
		}
		return token{kind: tIdent, text: b.String(), pos: p}
	case unicode.IsDigit(r):
		return lx.number(p, first)
	case r == '"':
		lx.advance()
		var b strings.Builder
		for {
			if lx.i >= len(lx.src) || lx.peek(0) == '\n' {
				lx.errs.add(p, "string literal not terminated")
				break
			}
			c := lx.advance()
			if c == '"' {
				break
			}
			b.WriteRune(c)
		}
		return token{kind: tString, text: b.String(), pos: p, first: first}
	}
	two := string(r) + string(lx.peek(1))
	switch two {
	case "==", "!=", "<=", ">=", "&&", "=>", "..":
		lx.advance()
		lx.advance()
		return token{kind: tPunct, text: two, pos: p, first: first}
	}
	if strings.ContainsRune("()[]{},:.=<>+-*/!", r) {
		lx.advance()
		return token{kind: tPunct, text: string(r), pos: p, first: first}
	}
	lx.advance()
	lx.errs.add(p, "unexpected character %q", r)
	return lx.next()
}

// number lexes an integer or a float (digits, optional fraction, optional
// exponent). A '.' not followed by a digit is not part of the number, so
// "s.1" and "[1..2]" lex as expected.
func (lx *lexer) number(p Pos, first bool) token {
	var b strings.Builder
	for unicode.IsDigit(lx.peek(0)) {
		b.WriteRune(lx.advance())
	}
	kind := tInt
	if lx.peek(0) == '.' && unicode.IsDigit(lx.peek(1)) {
		kind = tFloat
		b.WriteRune(lx.advance())
		for unicode.IsDigit(lx.peek(0)) {
			b.WriteRune(lx.advance())
		}
	}
	if (lx.peek(0) == 'e' || lx.peek(0) == 'E') &&
		(unicode.IsDigit(lx.peek(1)) || ((lx.peek(1) == '-' || lx.peek(1) == '+') && unicode.IsDigit(lx.peek(2)))) {
		kind = tFloat
		b.WriteRune(lx.advance())
		if lx.peek(0) == '-' || lx.peek(0) == '+' {
			b.WriteRune(lx.advance())
		}
		for unicode.IsDigit(lx.peek(0)) {
			b.WriteRune(lx.advance())
		}
	}
	return token{kind: kind, text: b.String(), pos: p, first: first}
}
