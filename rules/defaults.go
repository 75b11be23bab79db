package rules

import "slices"

// OffByDefault names shipped rules that are correct but, in ONNX Runtime,
// turn a graph that ORT's optimiser fuses into one it no longer fuses, so
// they are used only when asked for by name (--rules):
//
//   - div-scalar-to-mul rewrites GELU's Div(x, sqrt 2) as a Mul, which
//     ORT's GeluFusion does not match (BiasGelu is lost: an exported
//     encoder classifier ran 11-15% slower), and the Div after QK^T that
//     its AttentionFusion looks for.
var OffByDefault = []string{"div-scalar-to-mul"}

// DefaultNames returns the names of s's rules that are on by default (all
// but OffByDefault), in set order.
func (s *Set) DefaultNames() []string {
	var out []string
	for _, r := range s.Rules {
		if !slices.Contains(OffByDefault, r.Name) {
			out = append(out, r.Name)
		}
	}
	return out
}
