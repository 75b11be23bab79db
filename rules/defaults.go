package rules

import (
	"path"
	"slices"
)

// OffByDefault names shipped rules that are correct but, in ONNX Runtime,
// turn a graph that ORT's optimiser fuses into one it no longer fuses, so
// they are used only when asked for by name (--rules):
//
//   - div-scalar-to-mul rewrites GELU's Div(x, sqrt 2) as a Mul, which
//     ORT's GeluFusion does not match (BiasGelu is lost: an exported
//     encoder classifier ran 11-15% slower), and the Div after QK^T that
//     its AttentionFusion looks for.
var OffByDefault = []string{"div-scalar-to-mul"}

// CanonicalFile is the shipped .rules file of canonicalisation rules: they
// rewrite exporters' forms towards one canonical form and are applied to
// a fixed point before the fusion passes (rewrite.Canonicalize), not
// offered to the search.
const CanonicalFile = "canonical.rules"

// IsCanonical reports whether r is a canonicalisation rule (one of
// CanonicalFile).
func (r *Rule) IsCanonical() bool { return path.Base(r.Pos.File) == CanonicalFile }

// DefaultNames returns the names of s's rules that are on by default (all
// but OffByDefault and the canonicalisation rules), in set order.
func (s *Set) DefaultNames() []string {
	var out []string
	for _, r := range s.Rules {
		if !slices.Contains(OffByDefault, r.Name) && !r.IsCanonical() {
			out = append(out, r.Name)
		}
	}
	return out
}

// CanonicalNames returns the names of s's canonicalisation rules, in set
// order.
func (s *Set) CanonicalNames() []string {
	var out []string
	for _, r := range s.Rules {
		if r.IsCanonical() {
			out = append(out, r.Name)
		}
	}
	return out
}
