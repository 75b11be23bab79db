package rewrite

import (
	"crypto/sha256"
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// Candidate is one rewrite of a graph.
type Candidate struct {
	// Graph is the rewritten graph (static shapes, validated); nil for a
	// lazy candidate (LazyRewriter), whose graph Materialize builds.
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

	// lazy holds a lazy candidate's change to its base graph.
	lazy *delta
}

// Materialize returns the candidate's graph: Graph, or for a lazy
// candidate the graph built from its change (built once; later calls
// return the same graph).
func (c Candidate) Materialize() *graph.Graph {
	if c.Graph != nil || c.lazy == nil {
		return c.Graph
	}
	g, _, err := c.lazy.build()
	if err != nil {
		// The engine builds the candidates whose order could fail before
		// offering them.
		panic(fmt.Sprintf("rewrite: building a lazy candidate of rule %s: %v", c.Rule, err))
	}
	return g
}

// NumNodes returns the number of nodes of the candidate's graph, without
// building a lazy candidate's.
func (c Candidate) NumNodes() int {
	if c.Graph == nil && c.lazy != nil {
		return c.lazy.nodes
	}
	return len(c.Graph.Nodes)
}

// Change returns what a lazy candidate changed in the graph it was
// generated from; ok is false for a built candidate, or when the order of
// the new nodes needs the built graph.
func (c Candidate) Change() (ch Change, ok bool) {
	if c.Graph != nil || c.lazy == nil {
		return ch, false
	}
	return c.lazy.change()
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

// GraphHash returns c.Hash, computing it when the rewriter left it zero
// (for a lazy candidate, incrementally from its base graph's digests).
func (c Candidate) GraphHash() graph.Hash {
	if c.Hash != (graph.Hash{}) {
		return c.Hash
	}
	if c.lazy != nil {
		if h, err := c.lazy.canonicalHash(); err == nil {
			return h
		}
	}
	return c.Materialize().CanonicalHash()
}

// Sources returns the graph a lazy candidate was generated from and where
// each node of its graph (Materialize) comes from, so that what was
// computed for the base graph's nodes can be reused for the candidate's;
// ok is false for a built candidate.
func (c Candidate) Sources() (base *graph.Graph, src []NodeSource, ok bool) {
	if c.lazy == nil {
		return nil, nil, false
	}
	return c.lazy.sources()
}

// CacheKey returns a key for caching what is computed from the
// candidate's graph (its latency, say): c.GraphHash(), except for a lazy
// candidate that the engine told apart from the others by its change
// alone (see CandidatesLazy), whose key is a digest of its base graph's
// canonical hash and that change. Two different graphs never share a key;
// one graph may have several (one per graph it was generated from), so a
// cache keyed by it may compute a result twice but never mixes two
// graphs'. Unlike GraphHash, it costs nothing for such a candidate.
func (c Candidate) CacheKey() graph.Hash {
	if c.Hash != (graph.Hash{}) || c.lazy == nil || !c.lazy.keyed {
		return c.GraphHash()
	}
	return sha256.Sum256(graph.HashEnc(nil).Str("lazy candidate").Digest(c.lazy.gen.hb.hash).Digest(c.lazy.key))
}

// LazyRewriter is a Rewriter that can offer lazy candidates: each keeps
// what its rewrite changed and builds its graph on Materialize, so that
// the candidates of a large graph cost what they change, not one copy of
// the node list each.
type LazyRewriter interface {
	Rewriter
	// CandidatesLazy returns the candidates of Candidates, in the same
	// order, lazy where the rewriter can; with deferred, a
	// DeferredRewriter leaves its costly checks to Candidate.Verify as
	// CandidatesDeferred does.
	CandidatesLazy(g *graph.Graph, deferred bool) ([]Candidate, error)
}

// CandidatesOfLazy is CandidatesOf returning lazy candidates when r is a
// LazyRewriter.
func CandidatesOfLazy(r Rewriter, g *graph.Graph, deferred bool) ([]Candidate, error) {
	if lr, ok := r.(LazyRewriter); ok {
		return lr.CandidatesLazy(g, deferred)
	}
	return CandidatesOf(r, g, deferred)
}

// CandidatesOf returns r's candidates of g, with their costly checks left
// to Candidate.Verify when deferred and r is a DeferredRewriter.
func CandidatesOf(r Rewriter, g *graph.Graph, deferred bool) ([]Candidate, error) {
	if dr, ok := r.(DeferredRewriter); ok && deferred {
		return dr.CandidatesDeferred(g)
	}
	return r.Candidates(g)
}
