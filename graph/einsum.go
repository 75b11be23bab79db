package graph

import (
	"fmt"
	"sort"
	"strings"
)

// EinsumSpec is a parsed Einsum equation with the ellipsis expanded for
// concrete input ranks. Labels are small integers: letters map to their
// byte value, ellipsis dimensions to 0, 1, ... (below 'A').
type EinsumSpec struct {
	Inputs [][]int // labels of each input's axes
	Output []int   // labels of the output's axes
}

// ParseEinsum parses an Einsum equation for inputs of the given ranks. An
// equation without "->" produces the labels used exactly once, in
// alphabetical order, after the ellipsis dimensions.
func ParseEinsum(eq string, ranks []int) (*EinsumSpec, error) {
	eq = strings.ReplaceAll(eq, " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(ranks) {
		return nil, fmt.Errorf("equation %q has %d operands, node has %d inputs", eq, len(terms), len(ranks))
	}
	spec := &EinsumSpec{}
	ell := -1 // number of ellipsis dims (broadcast to the largest)
	for i, t := range terms {
		labels, e, err := einsumTerm(t, ranks[i])
		if err != nil {
			return nil, fmt.Errorf("equation %q operand %d: %w", eq, i, err)
		}
		ell = max(ell, e)
		spec.Inputs = append(spec.Inputs, labels)
	}
	spec.ellipsisAligned(max(ell, 0))
	if explicit {
		out, e, err := einsumTerm(rhs, -1)
		if err != nil {
			return nil, fmt.Errorf("equation %q output: %w", eq, err)
		}
		if e >= 0 {
			out = expandEllipsis(out, max(ell, 0))
		} else if ell > 0 {
			return nil, fmt.Errorf("equation %q: output omits the ellipsis", eq)
		}
		spec.Output = out
	} else {
		count := map[int]int{}
		for _, in := range spec.Inputs {
			for _, l := range in {
				count[l]++
			}
		}
		for i := 0; i < max(ell, 0); i++ {
			spec.Output = append(spec.Output, i)
		}
		var letters []int
		for l, c := range count {
			if l >= 'A' && c == 1 {
				letters = append(letters, l)
			}
		}
		sort.Ints(letters)
		spec.Output = append(spec.Output, letters...)
	}
	seen := map[int]bool{}
	for _, l := range spec.Output {
		if seen[l] {
			return nil, fmt.Errorf("equation %q: output label repeated", eq)
		}
		seen[l] = true
		found := false
		for _, in := range spec.Inputs {
			for _, m := range in {
				found = found || m == l
			}
		}
		if !found {
			return nil, fmt.Errorf("equation %q: output label not in any operand", eq)
		}
	}
	return spec, nil
}

// einsumTerm returns the labels of one operand (ellipsis dims numbered so
// they right-align across operands) and how many dims the ellipsis covers
// (-1 when absent). rank -1 leaves the ellipsis as a marker (-1 label).
func einsumTerm(t string, rank int) ([]int, int, error) {
	before, after, hasEll := strings.Cut(t, "...")
	if strings.Contains(after, ".") || strings.Contains(before, ".") {
		return nil, 0, fmt.Errorf("malformed term %q", t)
	}
	letters := func(s string) ([]int, error) {
		var out []int
		for _, c := range s {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return nil, fmt.Errorf("bad label %q in %q", c, t)
			}
			out = append(out, int(c))
		}
		return out, nil
	}
	a, err := letters(before)
	if err != nil {
		return nil, 0, err
	}
	b, err := letters(after)
	if err != nil {
		return nil, 0, err
	}
	if !hasEll {
		if rank >= 0 && len(a) != rank {
			return nil, 0, fmt.Errorf("term %q has %d labels for rank %d", t, len(a), rank)
		}
		return a, -1, nil
	}
	if rank < 0 {
		return append(append(a, -1), b...), 0, nil
	}
	e := rank - len(a) - len(b)
	if e < 0 {
		return nil, 0, fmt.Errorf("term %q has too many labels for rank %d", t, rank)
	}
	out := append([]int(nil), a...)
	for i := 0; i < e; i++ {
		out = append(out, i)
	}
	return append(out, b...), e, nil
}

// expandEllipsis replaces the -1 marker by ellipsis labels 0..e-1.
func expandEllipsis(labels []int, e int) []int {
	var out []int
	for _, l := range labels {
		if l != -1 {
			out = append(out, l)
			continue
		}
		for i := 0; i < e; i++ {
			out = append(out, i)
		}
	}
	return out
}

// ellipsisAligned renumbers the ellipsis labels of every operand, whose
// own ellipsis covers e dims, when the largest covers total dims, so that
// operands broadcast right-aligned.
func (s *EinsumSpec) ellipsisAligned(total int) {
	for k, in := range s.Inputs {
		e := 0
		for _, l := range in {
			if l < 'A' {
				e++
			}
		}
		for i, l := range in {
			if l < 'A' {
				s.Inputs[k][i] = l + total - e
			}
		}
	}
}

// Sizes returns each label's size given the input shapes; broadcast
// ellipsis dims of size 1 take the other operands' size.
func (s *EinsumSpec) Sizes(shapes [][]int) (map[int]int, error) {
	size := map[int]int{}
	for k, in := range s.Inputs {
		for i, l := range in {
			d := shapes[k][i]
			old, ok := size[l]
			switch {
			case !ok || old == 1 && l < 'A':
				size[l] = d
			case old == d || d == 1 && l < 'A':
			default:
				return nil, fmt.Errorf("label %q has sizes %d and %d", rune(l), old, d)
			}
		}
	}
	return size, nil
}
