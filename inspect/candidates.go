package inspect

import (
	"fmt"
	"io"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/rewrite"
)

// Candidates are the rewrite candidates of a graph's first step: how many
// the rules produce, of how many rules, with the rewriter's per-rule
// statistics.
type Candidates struct {
	N, Rules int
	Stats    rewrite.Stats
}

// CandidatesOf returns the candidates of g's first rewrite step with every
// rule, after folding its constant subgraphs as optimize does; g must have
// static shapes.
func CandidatesOf(g *graph.Graph) (*Candidates, error) {
	engine, folded, err := firstStep(g)
	if err != nil {
		return nil, err
	}
	// Lazy: the count and the table need no candidate's graph, and
	// building each one (a copy of the node list, hashed) cost the
	// 50,000-node residual MLP 3m55s for its 12,500 candidates.
	cands, st, err := engine.CandidatesLazyWithStats(folded)
	if err != nil {
		return nil, err
	}
	return &Candidates{N: len(cands), Rules: len(engine.Rules()), Stats: st}, nil
}

// firstStep returns the engine with every rule and g with its constant
// subgraphs folded, as optimize's first rewrite step sees them.
func firstStep(g *graph.Graph) (*rewrite.Engine, *graph.Graph, error) {
	engine, err := pipeline.NewEngine(nil, len(g.Nodes))
	if err != nil {
		return nil, nil, err
	}
	folded, _, err := rewrite.Fold(g, executor.Evaluate)
	if err != nil {
		return nil, nil, fmt.Errorf("folding constants: %w", err)
	}
	return engine, folded, nil
}

// Write prints the count and the per-rule table.
func (c *Candidates) Write(w io.Writer) error {
	fmt.Fprintf(w, "\ncandidates  %d from %d matches of %d rules, in %v\n", c.N, c.Stats.Matches, c.Rules, c.Stats.Total.Round(time.Microsecond))
	return rewrite.WriteCandidateTable(w, c.Stats)
}
