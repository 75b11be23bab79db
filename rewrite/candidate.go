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
	// Verify, when not nil, is a check the candidate has not passed yet
	// (only DeferredRewriter.CandidatesDeferred leaves one): call it before
	// the candidate is used; an error means the rewriter's Candidates
	// would not have offered it.
	Verify func() error
}

// Rewriter proposes the rewrites of a graph. Engine is the rule-based
// implementation; tests and other search spaces may plug in their own.
// Candidates must be deterministic for a given graph, free of duplicates
// (by canonical hash), and different from g.
type Rewriter interface {
	Candidates(g *graph.Graph) ([]Candidate, error)
}

// DeferredRewriter is a Rewriter whose candidates need a costly check
// (WithPasses: executing the graph before and after a whole-graph pass)
// that it can leave to the caller, who then checks only the candidates it
// uses. CandidatesDeferred(g) equals Candidates(g), in the same order,
// when every Verify succeeds; otherwise it also holds the failing ones
// (which may hide, as duplicates, candidates that Candidates offers), and
// callers that meet a failing Verify call Candidates(g) for the list
// without them.
type DeferredRewriter interface {
	Rewriter
	CandidatesDeferred(g *graph.Graph) ([]Candidate, error)
}

// GraphHash returns c.Hash, computing it when the rewriter left it zero.
func (c Candidate) GraphHash() graph.Hash {
	if c.Hash != (graph.Hash{}) {
		return c.Hash
	}
	return c.Graph.CanonicalHash()
}

// CandidatesOf returns r's candidates of g, with their costly checks left
// to Candidate.Verify when deferred and r is a DeferredRewriter.
func CandidatesOf(r Rewriter, g *graph.Graph, deferred bool) ([]Candidate, error) {
	if dr, ok := r.(DeferredRewriter); ok && deferred {
		return dr.CandidatesDeferred(g)
	}
	return r.Candidates(g)
}
