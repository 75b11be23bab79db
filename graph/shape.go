package graph

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Dim is one dimension of a possibly symbolic shape. A known dimension has
// Value >= 0; a symbolic one has Value < 0 and a non-empty Param ("batch");
// an unknown one has Value < 0 and Param "".
type Dim struct {
	Value int64
	Param string
}

// Known reports whether the dimension has a concrete size.
func (d Dim) Known() bool { return d.Value >= 0 }

// String returns the size, the symbol name, or "?".
func (d Dim) String() string {
	switch {
	case d.Known():
		return strconv.FormatInt(d.Value, 10)
	case d.Param != "":
		return d.Param
	}
	return "?"
}

// Shape is the possibly symbolic shape of a Value.
type Shape []Dim

// StaticShape converts a concrete shape to a Shape.
func StaticShape(dims ...int) Shape {
	s := make(Shape, len(dims))
	for i, d := range dims {
		s[i] = Dim{Value: int64(d)}
	}
	return s
}

// Static reports whether every dimension is known.
func (s Shape) Static() bool {
	for _, d := range s {
		if !d.Known() {
			return false
		}
	}
	return true
}

// Ints returns the dimensions as ints; it panics if s is not static.
func (s Shape) Ints() []int {
	out := make([]int, len(s))
	for i, d := range s {
		if !d.Known() {
			panic(fmt.Sprintf("graph: Shape.Ints on non-static shape %v", s))
		}
		out[i] = int(d.Value)
	}
	return out
}

// Clone returns a copy of s.
func (s Shape) Clone() Shape { return append(Shape(nil), s...) }

// Equal reports whether two shapes have identical dimensions and symbols.
func (s Shape) Equal(o Shape) bool { return slices.Equal(s, o) }

// String formats the shape as "1x3xHx?" ("scalar" for rank 0).
func (s Shape) String() string {
	if len(s) == 0 {
		return "scalar"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return strings.Join(parts, "x")
}

// ParseShape parses "1x3x224x224" into concrete dimensions. An empty string
// or "scalar" is rank 0.
func ParseShape(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "scalar" {
		return nil, nil
	}
	parts := strings.Split(s, "x")
	out := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad dimension %q in shape %q (want non-negative integers joined by 'x', e.g. 1x3x224x224)", p, s)
		}
		out[i] = v
	}
	return out, nil
}

// Symbolic returns whether d is a bound dimension that depends on the
// model's symbolic input dimensions: its Value is its size at the binding
// being tuned for and its Param the expression (a canonical Sym string)
// that gives it for every binding.
func (d Dim) Symbolic() bool { return d.Value >= 0 && d.Param != "" }

// Sym returns d as an expression: its Param parsed when it has one, else
// the constant Value. A Param that does not parse is taken as one symbol.
func (d Dim) Sym() Sym {
	if d.Param == "" {
		return SymConst(d.Value)
	}
	e, err := ParseSym(d.Param)
	if err != nil {
		return SymAtom(d.Param)
	}
	return e
}

// SymDim returns the dimension whose size at the bound shape is value and
// whose expression is e: a plain dimension when e is constant (its
// constant then wins), else one carrying e's canonical string.
func SymDim(value int64, e Sym) Dim {
	if c, ok := e.Const(); ok {
		return Dim{Value: c}
	}
	return Dim{Value: value, Param: e.String()}
}

// Fixed reports whether every dimension is known and none depends on a
// symbol: the shape is the same for every binding of the model's inputs.
func (s Shape) Fixed() bool {
	for _, d := range s {
		if !d.Known() || d.Param != "" {
			return false
		}
	}
	return true
}

// Symbolic reports whether any dimension of s depends on a symbol.
func (s Shape) Symbolic() bool {
	for _, d := range s {
		if d.Symbolic() {
			return true
		}
	}
	return false
}

// FixedDims returns a copy of s with the symbols dropped: the shape at the
// bound binding only.
func (s Shape) FixedDims() Shape {
	out := make(Shape, len(s))
	for i, d := range s {
		out[i] = Dim{Value: d.Value}
		if !d.Known() {
			out[i] = d
		}
	}
	return out
}

// SymString formats s with each symbolic dimension as its size at the
// binding and its expression: "1x128(seq)x384".
func (s Shape) SymString() string {
	if len(s) == 0 {
		return "scalar"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
		if d.Symbolic() {
			parts[i] += "(" + d.Param + ")"
		}
	}
	return strings.Join(parts, "x")
}

// ParamName returns the name a symbolic dimension is written under in a
// model file: the symbol's own name when the expression is one symbol
// (which may need brackets in Param), else the expression ("6*batch").
func (d Dim) ParamName() string {
	e := d.Sym()
	if len(e.terms) == 1 && e.terms[0].coef == 1 && len(e.terms[0].atoms) == 1 {
		return e.terms[0].atoms[0]
	}
	return d.Param
}
