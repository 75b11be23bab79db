package ruleverify

import (
	"testing"

	"github.com/xrl-dev/xrl/rules"
)

// TestVerifyConstValueRules checks that verification knows what the
// constant-value predicates mean: a rule true for the pinned value
// verifies; a target that replaces a constant matched by isConstNear with
// a fresh copy of the nominal value fails (a match may hold any value
// within the margin); a target that drops a constant matched by
// isConstValue holds exactly, including in the exact check.
func TestVerifyConstValueRules(t *testing.T) {
	tests := []struct {
		name, rule string
		ok         bool
	}{
		{"drop a pinned one", "r  Mul(x, o) && isConstValue(o, 1.0)  => x", true},
		{"a half is a division by two", "r  Mul(x, h) && isConstValue(h, 0.5)  => Div(x, const(2.0))", true},
		{"a pinned half is not a third", "r  Mul(x, h) && isConstValue(h, 0.5)  => Div(x, const(3.0))", false},
		{"reuse the matched divisor", "r  Erf(Mul(x, s)) && isConstNear(s, 1.0 / sqrt(2.0))  => Erf(Div(x, Div(const(1.0), s)))", true},
		{"a fresh divisor is unsound", "r  Erf(Mul(x, s)) && isConstNear(s, 1.0 / sqrt(2.0))  => Erf(Div(x, const(1.4142135623730951)))", false},
		{"a scale from the head size", "r  Mul(x, s) && isConstNear(s, 1.0 / sqrt(dim(x, -1)))  => Div(x, Div(const(1.0), s))", true},
		{"a fresh scale from the head size is unsound", "r  Mul(x, s) && isConstNear(s, 1.0 / sqrt(dim(x, -1)))  => Div(x, const(2.0))\n    where n in {4}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := rules.Parse("pins.rules", []byte("default x[m, n]  o[]  h[]  s[]\n"+tt.rule+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Verify(set.Rules[0], Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK != tt.ok {
				t.Errorf("verified %v, want %v (max relative error %g, %v)", rep.OK, tt.ok, rep.MaxRelErr, rep.Err)
			}
		})
	}
}
