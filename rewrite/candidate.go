package rewrite

import "github.com/xrl-dev/xrl/graph"

// Candidate is one rewrite of a graph.
type Candidate struct {
	// Graph is the rewritten graph (static shapes, validated).
	Graph *graph.Graph
	// Rule names the rewrite rule that produced it.
	Rule string
	// Hash is Graph.CanonicalHash() when the rewriter computed it (the
	// Engine always does), else zero.
	Hash graph.Hash
}

// Rewriter proposes the rewrites of a graph. Engine is the rule-based
// implementation; tests and other search spaces may plug in their own.
// Candidates must be deterministic for a given graph, free of duplicates
// (by canonical hash), and different from g.
type Rewriter interface {
	Candidates(g *graph.Graph) ([]Candidate, error)
}

// GraphHash returns c.Hash, computing it when the rewriter left it zero.
func (c Candidate) GraphHash() graph.Hash {
	if c.Hash != (graph.Hash{}) {
		return c.Hash
	}
	return c.Graph.CanonicalHash()
}
