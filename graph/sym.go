package graph

import (
	"fmt"
	"slices"
	"strings"
)

// Sym is a symbolic dimension: a polynomial with integer coefficients over
// atoms. An atom is an input's dimension name ("batch", "seq") or a derived
// quantity that is not a polynomial (a floor division that is not exact,
// a minimum or maximum), written in its canonical form ("floor(seq/4)",
// "min(128,seq)"). The zero value is the constant 0.
//
// Sym values are immutable and have one canonical string (String), so two
// dimensions are equal for every binding of their symbols when their strings
// are equal. The converse does not hold for derived atoms (min(seq,128)
// and seq are equal whenever seq <= 128), so equality by string is the
// conservative test a rewrite needs: it never claims two different sizes
// are equal.
type Sym struct {
	terms []symTerm // canonical: sorted by symTermLess, no zero coefficients, atoms sorted
}

// symTerm is coef times the product of atoms (with repetition for powers).
type symTerm struct {
	coef  int64
	atoms []string
}

// SymConst returns the constant c.
func SymConst(c int64) Sym {
	if c == 0 {
		return Sym{}
	}
	return Sym{terms: []symTerm{{coef: c}}}
}

// SymAtom returns the symbol name.
func SymAtom(name string) Sym {
	return Sym{terms: []symTerm{{coef: 1, atoms: []string{name}}}}
}

// Const returns the value of a constant Sym; ok is false when it depends on
// a symbol.
func (a Sym) Const() (c int64, ok bool) {
	switch len(a.terms) {
	case 0:
		return 0, true
	case 1:
		if len(a.terms[0].atoms) == 0 {
			return a.terms[0].coef, true
		}
	}
	return 0, false
}

// IsConst reports whether a depends on no symbol.
func (a Sym) IsConst() bool {
	_, ok := a.Const()
	return ok
}

// Equal reports whether a and b are the same polynomial.
func (a Sym) Equal(b Sym) bool { return a.String() == b.String() }

// Atoms returns the distinct atoms a depends on, sorted.
func (a Sym) Atoms() []string {
	var out []string
	for _, t := range a.terms {
		out = append(out, t.atoms...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Symbols returns the input dimension names a depends on, through derived
// atoms too, sorted.
func (a Sym) Symbols() []string {
	var out []string
	for _, at := range a.Atoms() {
		if !isDerivedAtom(at) {
			out = append(out, at)
			continue
		}
		if f, ok := parseDerived(at); ok {
			out = append(out, f.a.Symbols()...)
			out = append(out, f.b.Symbols()...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Neg returns -a.
func (a Sym) Neg() Sym { return a.scale(-1) }

func (a Sym) scale(c int64) Sym {
	if c == 0 {
		return Sym{}
	}
	out := make([]symTerm, len(a.terms))
	for i, t := range a.terms {
		out[i] = symTerm{coef: t.coef * c, atoms: t.atoms}
	}
	return Sym{terms: out}
}

// Add returns a + b.
func (a Sym) Add(b Sym) Sym { return normalize(append(slices.Clone(a.terms), b.terms...)) }

// Sub returns a - b.
func (a Sym) Sub(b Sym) Sym { return a.Add(b.Neg()) }

// Mul returns a * b.
func (a Sym) Mul(b Sym) Sym {
	var out []symTerm
	for _, x := range a.terms {
		for _, y := range b.terms {
			atoms := append(slices.Clone(x.atoms), y.atoms...)
			slices.Sort(atoms)
			out = append(out, symTerm{coef: x.coef * y.coef, atoms: atoms})
		}
	}
	return normalize(out)
}

// DivExact returns a / b when b divides a exactly as polynomials: b a
// nonzero constant dividing every coefficient, or a single term dividing
// every term of a, or a a constant multiple of b. ok is false otherwise.
func (a Sym) DivExact(b Sym) (q Sym, ok bool) {
	if len(b.terms) == 0 {
		return Sym{}, false
	}
	if len(a.terms) == 0 {
		return Sym{}, true
	}
	if len(b.terms) == 1 {
		d := b.terms[0]
		out := make([]symTerm, 0, len(a.terms))
		for _, t := range a.terms {
			if d.coef == 0 || t.coef%d.coef != 0 {
				return Sym{}, false
			}
			rest, ok := removeAtoms(t.atoms, d.atoms)
			if !ok {
				return Sym{}, false
			}
			out = append(out, symTerm{coef: t.coef / d.coef, atoms: rest})
		}
		return normalize(out), true
	}
	// a = c*b for an integer c.
	if len(a.terms) != len(b.terms) {
		return Sym{}, false
	}
	lead := b.terms[0].coef
	if a.terms[0].coef%lead != 0 {
		return Sym{}, false
	}
	c := a.terms[0].coef / lead
	if b.scale(c).String() != a.String() {
		return Sym{}, false
	}
	return SymConst(c), true
}

// removeAtoms returns atoms less the multiset sub, or false when sub is not
// contained in atoms.
func removeAtoms(atoms, sub []string) ([]string, bool) {
	rest := slices.Clone(atoms)
	for _, s := range sub {
		i := slices.Index(rest, s)
		if i < 0 {
			return nil, false
		}
		rest = slices.Delete(rest, i, i+1)
	}
	return rest, true
}

// FloorDiv returns floor(a / c) for a positive constant c: exact division
// when c divides every coefficient, else the derived atom "floor(a/c)".
func (a Sym) FloorDiv(c int64) Sym {
	if c == 1 {
		return a
	}
	if v, ok := a.Const(); ok {
		return SymConst(floorDiv(v, c))
	}
	if q, ok := a.DivExact(SymConst(c)); ok {
		return q
	}
	inner := a.String()
	if len(a.terms) > 1 || a.terms[0].coef < 0 {
		inner = "(" + inner + ")"
	}
	return SymAtom(fmt.Sprintf("floor(%s/%d)", inner, c))
}

// CeilDiv returns ceil(a / c) for a positive constant c.
func (a Sym) CeilDiv(c int64) Sym {
	return a.Add(SymConst(c - 1)).FloorDiv(c)
}

// Min returns min(a, b): a constant when both are, one of them when their
// difference is a constant, else the derived atom "min(a,b)" with the
// arguments in canonical order. Symbols are assumed to be at least 1 only
// through the difference test; no other fact about them is used.
func (a Sym) Min(b Sym) Sym { return minMax(a, b, true) }

// Max returns max(a, b), like Min.
func (a Sym) Max(b Sym) Sym { return minMax(a, b, false) }

func minMax(a, b Sym, isMin bool) Sym {
	diff := a.Sub(b)
	if d, ok := diff.Const(); ok {
		if (d <= 0) == isMin {
			return a
		}
		return b
	}
	if s := symSign(diff); s != 0 {
		if (s < 0) == isMin {
			return a
		}
		return b
	}
	x, y := a.String(), b.String()
	if y < x {
		x, y = y, x
	}
	name := "max"
	if isMin {
		name = "min"
	}
	return SymAtom(fmt.Sprintf("%s(%s,%s)", name, x, y))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Eval returns a's value when each symbol takes its value in bind. It is an
// error when a symbol is missing.
func (a Sym) Eval(bind map[string]int64) (int64, error) {
	var sum int64
	for _, t := range a.terms {
		p := t.coef
		for _, at := range t.atoms {
			v, err := evalAtom(at, bind)
			if err != nil {
				return 0, err
			}
			p *= v
		}
		sum += p
	}
	return sum, nil
}

func evalAtom(at string, bind map[string]int64) (int64, error) {
	if !isDerivedAtom(at) {
		v, ok := bind[at]
		if !ok {
			return 0, fmt.Errorf("symbol %q is not bound", at)
		}
		return v, nil
	}
	f, ok := parseDerived(at)
	if !ok {
		return 0, fmt.Errorf("malformed derived dimension %q", at)
	}
	x, err := f.a.Eval(bind)
	if err != nil {
		return 0, err
	}
	y, err := f.b.Eval(bind)
	if err != nil {
		return 0, err
	}
	switch f.fn {
	case "min":
		return min(x, y), nil
	case "max":
		return max(x, y), nil
	default: // floor
		if y == 0 {
			return 0, fmt.Errorf("division by zero in %q", at)
		}
		return floorDiv(x, y), nil
	}
}

// Substitute returns a with every symbol in bind replaced by its value;
// symbols not in bind stay.
func (a Sym) Substitute(bind map[string]int64) Sym {
	out := SymConst(0)
	for _, t := range a.terms {
		p := SymConst(t.coef)
		for _, at := range t.atoms {
			if v, err := evalAtom(at, bind); err == nil {
				p = p.Mul(SymConst(v))
			} else {
				p = p.Mul(SymAtom(at))
			}
		}
		out = out.Add(p)
	}
	return out
}

// normalize merges equal monomials, drops zero terms and sorts.
func normalize(ts []symTerm) Sym {
	for i := range ts {
		if !slices.IsSorted(ts[i].atoms) {
			ts[i].atoms = slices.Clone(ts[i].atoms)
			slices.Sort(ts[i].atoms)
		}
	}
	slices.SortStableFunc(ts, func(x, y symTerm) int { return compareMonomials(x.atoms, y.atoms) })
	out := ts[:0:0]
	for _, t := range ts {
		if n := len(out); n > 0 && slices.Equal(out[n-1].atoms, t.atoms) {
			out[n-1].coef += t.coef
			continue
		}
		out = append(out, t)
	}
	kept := out[:0]
	for _, t := range out {
		if t.coef != 0 {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return Sym{}
	}
	return Sym{terms: kept}
}

// compareMonomials orders higher degrees first, then atoms
// lexicographically; the constant term comes last.
func compareMonomials(x, y []string) int {
	if len(x) != len(y) {
		return len(y) - len(x)
	}
	return slices.Compare(x, y)
}

// String returns a's canonical form: terms joined by + and -, highest
// degree first, the constant last ("2*batch*seq+seq-1"); "0" for zero.
func (a Sym) String() string {
	if len(a.terms) == 0 {
		return "0"
	}
	var b strings.Builder
	for i, t := range a.terms {
		c := t.coef
		if c < 0 {
			b.WriteByte('-')
			c = -c
		} else if i > 0 {
			b.WriteByte('+')
		}
		if len(t.atoms) == 0 {
			fmt.Fprint(&b, c)
			continue
		}
		if c != 1 {
			fmt.Fprintf(&b, "%d*", c)
		}
		for j, at := range t.atoms {
			if j > 0 {
				b.WriteByte('*')
			}
			b.WriteString(quoteAtom(at))
		}
	}
	return b.String()
}
