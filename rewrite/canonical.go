package rewrite

import (
	"fmt"
	"maps"
	"slices"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules"
)

// CanonStats describes one Canonicalize run, egg-style: how often each
// rule applied, how many rounds ran and why the run stopped.
type CanonStats struct {
	// Applied counts the applications per rule name.
	Applied map[string]int
	// Rounds is the number of rewrites made (one per round).
	Rounds int
	// Stop is "saturated" (no rule matches any more) or "round limit".
	Stop string
}

// Canonicalize rewrites g with the canonicalisation rules of set (those
// of rules.CanonicalFile) to a fixed point: each round applies the first
// candidate of the rules, in rule order, until none matches. The rules
// only rewrite towards the canonical form, so the run ends; a round limit
// of four times the node count guards against a rule set that cycles.
// Every rewrite is one of the Engine's: folded with ev, and rejected when
// a replacement's shape differs in its symbolic dimensions
// (RejectShape), so the result holds at every binding of a graph bound
// with its symbols kept. g is not modified.
func Canonicalize(g *graph.Graph, set *rules.Set, ev Evaluator) (*graph.Graph, CanonStats, error) {
	return CanonicalizeWith(g, set, set.CanonicalNames(), ev)
}

// CanonicalizeWith is Canonicalize with the canonicalisation rules named
// in names only.
func CanonicalizeWith(g *graph.Graph, set *rules.Set, names []string, ev Evaluator) (*graph.Graph, CanonStats, error) {
	st := CanonStats{Applied: map[string]int{}, Stop: "saturated"}
	if g == nil {
		return nil, st, fmt.Errorf("rewrite: Canonicalize: nil graph")
	}
	if len(names) == 0 {
		return g, st, nil
	}
	e := NewEngine(set, Options{Rules: names, Workers: 1, Eval: ev, MemoBytes: -1})
	limit := 4*len(g.Nodes) + 16
	cur := g
	for {
		cands, err := e.Candidates(cur)
		if err != nil {
			return nil, st, fmt.Errorf("rewrite: Canonicalize: %w", err)
		}
		if len(cands) == 0 {
			return cur, st, nil
		}
		if st.Rounds == limit {
			st.Stop = "round limit"
			return cur, st, nil
		}
		cur = cands[0].Graph
		st.Applied[cands[0].Rule]++
		st.Rounds++
	}
}

// String lists the rules applied and their counts in name order
// ("gelu-erf-half-last x2, mul-one-elim x4; saturated").
func (st CanonStats) String() string {
	s := ""
	for _, name := range slices.Sorted(maps.Keys(st.Applied)) {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("%s x%d", name, st.Applied[name])
	}
	if s == "" {
		s = "no rule applied"
	}
	return s + "; " + st.Stop
}

// CanonicalFirst returns p preceded by Canonicalize with set's rules: the
// pass canonicalises g and applies p to the result. It reports a change
// when either step changed something: the canonical forms are those ONNX
// Runtime's own fusions match, so canonicalisation is kept even where p
// then finds nothing to fuse. Passes marked Pass.Fuses match the
// canonical forms; callers that have an Evaluator wrap them with it. The
// result may differ from g by the float32 rounding of constants the rules
// fold (1/c for a matched c), so the pass's Tolerance is at least
// FusionFormsTolerance, and p.Canonical, when set, runs instead of p.Apply.
func CanonicalFirst(p Pass, set *rules.Set, ev Evaluator) Pass {
	return CanonicalFirstWith(p, set, set.CanonicalNames(), ev)
}

// CanonicalFirstWith is CanonicalFirst with the canonicalisation rules
// named in names only.
func CanonicalFirstWith(p Pass, set *rules.Set, names []string, ev Evaluator) Pass {
	apply := p.Apply
	if p.Canonical != nil {
		apply = p.Canonical
	}
	p.Tolerance = max(p.Tolerance, FusionFormsTolerance)
	p.Apply = func(g *graph.Graph) (*graph.Graph, bool, error) {
		c, st, err := CanonicalizeWith(g, set, names, ev)
		if err != nil {
			return nil, false, err
		}
		out, changed, err := apply(c)
		if err != nil {
			return nil, false, err
		}
		return out, changed || st.Rounds > 0, nil
	}
	return p
}
