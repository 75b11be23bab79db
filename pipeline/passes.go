package pipeline

import (
	"fmt"
	"slices"
	"sync"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules"
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

// canonicalFirst runs each fusion pass (rewrite.Pass.Fuses) on the graph
// canonicalised by the shipped canonicalisation rules, folded on the
// executor (rewrite.CanonicalFirst); other passes are kept as they are.
// Only the measured passes are wrapped this way: the passes offered to the
// search and the agent run only their SearchCanonical rules (withPasses).
func canonicalFirst(passes []rewrite.Pass) ([]rewrite.Pass, error) {
	return canonicalised(passes, func(set *rules.Set, p rewrite.Pass) []string {
		if p.Fuses {
			return set.CanonicalNames()
		}
		return nil
	})
}

// canonicalised returns passes with each pass that names(p) gives rules
// for preceded by those canonicalisation rules of the shipped set
// (rewrite.CanonicalFirstWith, folded on the executor).
func canonicalised(passes []rewrite.Pass, names func(*rules.Set, rewrite.Pass) []string) ([]rewrite.Pass, error) {
	set, err := rules.Load()
	if err != nil {
		return nil, fmt.Errorf("canonicalisation rules: %w", err)
	}
	out := slices.Clone(passes)
	for i, p := range out {
		if n := names(set, p); len(n) > 0 {
			out[i] = rewrite.CanonicalFirstWith(p, set, n, executor.Evaluate)
		}
	}
	return out, nil
}

// withPasses offers the passes' results (each verified in float64 on
// random inputs when applied) before base's candidates, each pass after
// its SearchCanonical rules.
func withPasses(base rewrite.Rewriter, passes []rewrite.Pass, check rewrite.Checker) (rewrite.Rewriter, error) {
	if len(passes) == 0 {
		return base, nil
	}
	passes, err := canonicalised(passes, func(_ *rules.Set, p rewrite.Pass) []string { return p.SearchCanonical })
	if err != nil {
		return nil, err
	}
	return &rewrite.WithPasses{Base: base, Passes: passes, Eval: executor.Evaluate, Check: check}, nil
}

// passCheck is the check of every pass result: the same function as the
// graph before, in float64 on two random input sets from seed, on the
// part of the graph the pass changed when that part is small
// (ruleverify.Reference.Regions).
func passCheck(seed uint64) rewrite.Checker { return newPassChecks().check(seed) }

// passChecks hands out the pass checks of one run, one
// ruleverify.Reference a seed, so that a graph that several checks
// compare against (the start graph, for every pass offered on it and
// again for the measured passes; a pass's result, for the pass applied
// after it) is run once to observe its values, and a check made twice
// is made once: on ViT-B/16, each run took seconds. The checks run on
// all cores.
type passChecks struct {
	mu     sync.Mutex
	bySeed map[uint64]*ruleverify.Reference
}

func newPassChecks() *passChecks {
	return &passChecks{bySeed: map[uint64]*ruleverify.Reference{}}
}

// forget drops the graphs' values the checks keep (ruleverify.Reference.Forget);
// a nil p has none.
func (p *passChecks) forget() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.bySeed {
		r.Forget()
	}
}

// check returns the pass check of seed: passCheck's, on p's reference.
func (p *passChecks) check(seed uint64) rewrite.Checker {
	p.mu.Lock()
	r, ok := p.bySeed[seed]
	if !ok {
		r = &ruleverify.Reference{Seeds: 2, FirstSeed: seed, Regions: true}
		p.bySeed[seed] = r
	}
	p.mu.Unlock()
	return func(before, after *graph.Graph, tol float64) error {
		if tol == 0 {
			tol = passTolerance
		}
		_, err := r.Same(before, after, tol)
		return err
	}
}
