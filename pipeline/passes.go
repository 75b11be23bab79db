package pipeline

import (
	"slices"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// passTolerance bounds the float64 relative error of a pass's result.
const passTolerance = 1e-9

// splitPassNames separates the names of whole-graph passes from rule
// names in a --rules list; with no list, every pass is used.
func splitPassNames(names []string) (passes []rewrite.Pass, ruleNames []string) {
	for _, n := range names {
		if !slices.ContainsFunc(rewrite.Passes, func(p rewrite.Pass) bool { return p.Name == n }) {
			ruleNames = append(ruleNames, n)
		}
	}
	for _, p := range rewrite.Passes {
		if len(names) == 0 || slices.Contains(names, p.Name) {
			passes = append(passes, p)
		}
	}
	return passes, ruleNames
}

// withPasses offers the passes' results (each verified in float64 on
// random inputs when applied) before base's candidates.
func withPasses(base rewrite.Rewriter, passes []rewrite.Pass, seed uint64) rewrite.Rewriter {
	if len(passes) == 0 {
		return base
	}
	return &rewrite.WithPasses{Base: base, Passes: passes, Eval: executor.Evaluate, Check: passCheck(seed)}
}

// passCheck is the check of every pass result: the same function as the
// graph before, in float64 on two random input sets from seed.
func passCheck(seed uint64) rewrite.Checker {
	return func(before, after *graph.Graph, tol float64) error {
		if tol == 0 {
			tol = passTolerance
		}
		_, err := ruleverify.SameFunction(before, after, 2, seed, tol)
		return err
	}
}
