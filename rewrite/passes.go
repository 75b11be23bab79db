package rewrite

import (
	"fmt"
	"sync"

	"github.com/xrl-dev/xrl/graph"
)

// Pass is a whole-graph rewrite that the rule language cannot state (it
// follows demand through arbitrarily many nodes, say). Apply returns the
// rewritten graph and whether it changed anything; it must not modify its
// argument.
type Pass struct {
	Name  string
	Apply func(g *graph.Graph) (*graph.Graph, bool, error)
	// Tolerance, when not 0, is the relative error in float64 the pass's
	// result may show against its input (a pass that replaces a constant
	// by another within float32 rounding); 0 means the checker's own.
	Tolerance float64
	// Fuses marks a fusion pass that matches the canonical forms of the
	// rules of rules.CanonicalFile: callers with an Evaluator run it
	// after Canonicalize (see CanonicalFirst).
	Fuses bool
	// Canonical, when not nil, is the pass as CanonicalFirst runs it:
	// Apply with rewrites allowed that move results by float32 rounding,
	// within the tolerance CanonicalFirst gives.
	Canonical func(g *graph.Graph) (*graph.Graph, bool, error)
	// SearchCanonical names the canonicalisation rules the pass runs
	// first when it is offered to the search and the agent (see
	// CanonicalFirstWith): the exporters' near-misses it once repaired
	// itself. The measured passes run every canonicalisation rule before
	// a Fuses pass.
	SearchCanonical []string
	// Layout marks a pass that changes how values are laid out rather
	// than what is computed (rows-2d): as a measured pass it is tried
	// on its own, on the model the other measured passes chose, since
	// whether ONNX Runtime runs the other layout faster depends on the
	// fusions it then forms.
	Layout bool
}

// Passes are the shipped whole-graph passes, in the order they are offered.
var Passes = []Pass{
	{Name: "prune-dead-rows", Apply: PruneDead},
	{Name: "fuse-attention", Apply: FuseAttention, Fuses: true, Canonical: FuseAttentionRounded},
	{Name: "fuse-attention-2d", Apply: FuseAttention2D, Fuses: true},
	{Name: "rows-2d", Apply: Rows2D, Layout: true},
	{Name: "ort-fusion-forms", Apply: FusionForms, Tolerance: FusionFormsTolerance, Fuses: true, SearchCanonical: FusionFormsRules},
}

// FuseAttention2D is FuseAttention followed, when it fused something, by
// Rows2D: one candidate that both forms ONNX Runtime's Attention and
// keeps the residual stream around it 2-D, checked once. It is offered
// beside FuseAttention alone because the per-operator cost model, which
// cannot see ONNX Runtime's SkipLayerNormalization fusion, prices the 2-D
// graph about as the 3-D one.
func FuseAttention2D(g *graph.Graph) (*graph.Graph, bool, error) {
	f, changed, err := FuseAttention(g)
	if err != nil || !changed {
		return f, changed, err
	}
	r, flat, err := Rows2D(f)
	if err != nil {
		return nil, false, err
	}
	if flat {
		return r, true, nil
	}
	return f, true, nil
}

// Checker decides whether two graphs compute the same function, typically
// by executing both on random inputs in float64 (see
// ruleverify.SameFunction); it returns an error when they do not. tol,
// when not 0, is the relative error allowed (Pass.Tolerance); 0 means
// the checker's default.
type Checker func(before, after *graph.Graph, tol float64) error

// WithPasses is a Rewriter, safe for concurrent use when Base is, that offers, before the candidates of Base, the
// result of each pass that changes the graph, folded with Eval and
// accepted only when Check confirms it computes what the graph did. A
// rejected application is reported in Rejected and not offered.
type WithPasses struct {
	Base   Rewriter
	Passes []Pass
	Check  Checker
	Eval   Evaluator
	// Rejected counts, per pass, applications that failed or that Check
	// refused; read it with Failures when Candidates may run concurrently.
	Rejected map[string]int
	// LastErr is the latest of those failures.
	LastErr error

	mu   sync.Mutex
	memo map[passKey]*passResult
}

// passKey names one pass applied to one graph (by canonical hash).
type passKey struct {
	pass string
	in   graph.Hash
}

// passResult is a remembered application: the candidate (nil when the
// pass changed nothing or its result was rejected), the reason it was
// rejected, and, while its check has not run (deferred), the graph it
// rewrote. Graphs held here are the memo's own copies.
type passResult struct {
	mu      sync.Mutex
	c       *Candidate
	err     error
	before  *graph.Graph
	tol     float64 // the pass's Tolerance, given to the Checker
	checked bool
}

// memoLimit bounds the remembered applications; the memo is emptied when
// it is full. Environments reset to the same start graph every episode,
// and re-checking a pass result there costs two graph executions.
const memoLimit = 4096

// Failures returns a copy of Rejected and LastErr, safe to call while
// other goroutines generate candidates.
func (w *WithPasses) Failures() (map[string]int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]int, len(w.Rejected))
	for k, v := range w.Rejected {
		out[k] = v
	}
	return out, w.LastErr
}

var (
	_ DeferredRewriter = (*WithPasses)(nil)
	_ LazyRewriter     = (*WithPasses)(nil)
)

// Candidates implements Rewriter: every pass result offered has passed
// Check.
func (w *WithPasses) Candidates(g *graph.Graph) ([]Candidate, error) {
	return w.candidates(g, false)
}

// CandidatesDeferred implements DeferredRewriter: a pass result whose
// check has not run yet is offered with Candidate.Verify, which runs it
// (once per pass and graph; the outcome is remembered for Candidates).
// When every Verify succeeds the list equals Candidates(g).
func (w *WithPasses) CandidatesDeferred(g *graph.Graph) ([]Candidate, error) {
	return w.candidates(g, true)
}

// CandidatesLazy implements LazyRewriter: the pass results as in
// Candidates or CandidatesDeferred, then Base's candidates, lazy when Base
// is a LazyRewriter.
func (w *WithPasses) CandidatesLazy(g *graph.Graph, deferred bool) ([]Candidate, error) {
	return w.candidatesOf(g, deferred, true)
}

func (w *WithPasses) candidates(g *graph.Graph, deferred bool) ([]Candidate, error) {
	return w.candidatesOf(g, deferred, false)
}

func (w *WithPasses) candidatesOf(g *graph.Graph, deferred, lazy bool) ([]Candidate, error) {
	// The base's candidates come first when lazy: the engine digests g
	// anyway, and its candidates carry g's canonical hash.
	var base []Candidate
	if w.Base != nil && lazy {
		var err error
		if base, err = CandidatesOfLazy(w.Base, g, false); err != nil {
			return nil, err
		}
	}
	in, ok := baseHash(base)
	if !ok {
		in = g.CanonicalHash()
	}
	var out []Candidate
	seen := map[graph.Hash]bool{in: true}
	for _, p := range w.Passes {
		c, err := w.applyMemo(p, g, in, deferred)
		if err != nil {
			w.mu.Lock()
			if w.Rejected == nil {
				w.Rejected = map[string]int{}
			}
			w.Rejected[p.Name]++
			w.LastErr = err
			w.mu.Unlock()
			continue
		}
		if c == nil || seen[c.Hash] {
			continue
		}
		seen[c.Hash] = true
		out = append(out, *c)
	}
	if w.Base == nil {
		return out, nil
	}
	if !lazy {
		var err error
		if base, err = w.Base.Candidates(g); err != nil {
			return nil, err
		}
	}
	passes := newPassMatcher(out)
	for _, c := range base {
		if !passes.mayEqual(c) {
			out = append(out, c) // differs from g and from every pass result
			continue
		}
		if h := c.GraphHash(); !seen[h] {
			seen[h] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// baseHash returns the canonical hash of the graph lazy candidates were
// generated from, when one of cands is lazy.
func baseHash(cands []Candidate) (graph.Hash, bool) {
	for _, c := range cands {
		if c.lazy != nil {
			return c.lazy.gen.hb.hash, true
		}
	}
	return graph.Hash{}, false
}

// passMatcher tells which candidates of a base rewriter may equal a pass
// result, without hashing a lazy candidate whose change key shows it
// cannot (see key.go): the base's candidates differ from the graph and
// from each other already.
type passMatcher struct {
	results []Candidate
	// keys holds each result's change key against a generation, computed
	// when a candidate of that generation has the result's node count.
	gen  *generation
	keys []graph.Hash
}

func newPassMatcher(results []Candidate) *passMatcher {
	return &passMatcher{results: results}
}

// mayEqual reports whether c may equal a pass result.
func (pm *passMatcher) mayEqual(c Candidate) bool {
	if len(pm.results) == 0 {
		return false
	}
	dl := c.lazy
	if c.Graph != nil || dl == nil || !dl.keyed || c.Hash != (graph.Hash{}) {
		return true // hashed already, or no key: compare hashes
	}
	if pm.gen != dl.gen {
		pm.gen, pm.keys = dl.gen, make([]graph.Hash, len(pm.results))
	}
	for i, r := range pm.results {
		if len(r.Graph.Nodes) != dl.nodes {
			continue
		}
		if pm.keys[i] == (graph.Hash{}) {
			pm.keys[i] = dl.gen.graphKey(r.Graph)
		}
		if pm.keys[i] == dl.key {
			return true
		}
	}
	return false
}

// applyMemo is apply, remembered per pass and input graph hash. Unless
// deferred, the result's check runs before it is returned; deferred, a
// result not yet checked carries Verify.
func (w *WithPasses) applyMemo(p Pass, g *graph.Graph, in graph.Hash, deferred bool) (*Candidate, error) {
	k := passKey{p.Name, in}
	w.mu.Lock()
	r, ok := w.memo[k]
	w.mu.Unlock()
	if !ok {
		c, err := w.apply(p, g)
		r = &passResult{err: err, tol: p.Tolerance}
		if c != nil {
			// The memo keeps its own copies: callers own the graphs they
			// are given.
			r.c = &Candidate{Graph: c.Graph.Clone(), Rule: c.Rule, Hash: c.Hash}
			if deferred {
				r.before = g.Clone()
			} else {
				r.before = g
				r.check(w.Check) // before r is shared, while g is the caller's
			}
		}
		w.mu.Lock()
		if w.memo == nil || len(w.memo) >= memoLimit {
			w.memo = map[passKey]*passResult{}
		}
		if old, dup := w.memo[k]; dup {
			r = old // another worker stored it meanwhile
		} else {
			w.memo[k] = r
		}
		w.mu.Unlock()
	}
	r.mu.Lock()
	checked := r.checked
	r.mu.Unlock()
	if !checked && !deferred {
		if err := r.check(w.Check); err != nil {
			return nil, err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.c == nil {
		return nil, r.err
	}
	c := *r.c
	c.Graph = r.c.Graph.Clone()
	if !r.checked {
		c.Verify = func() error { return r.check(w.Check) }
	}
	return &c, nil
}

// check runs the check of a remembered result once and remembers its
// outcome: the candidate is dropped when it fails.
func (r *passResult) check(check Checker) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.checked || r.c == nil {
		r.checked = true
		return r.err
	}
	r.checked = true
	if check == nil {
		r.err = fmt.Errorf("%s: no checker: results of passes are only offered when verified", r.c.Rule)
	} else if err := check(r.before, r.c.Graph, r.tol); err != nil {
		r.err = fmt.Errorf("%s: %w", r.c.Rule, err)
	}
	if r.err != nil {
		r.c = nil
	}
	r.before = nil
	return r.err
}

// apply runs one pass and folds its result (nil when unchanged); the
// result is not checked yet.
func (w *WithPasses) apply(p Pass, g *graph.Graph) (*Candidate, error) {
	r, changed, err := p.Apply(g)
	if err != nil || !changed {
		return nil, err
	}
	if err := SameOutputShapes(g, r); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	if w.Eval != nil {
		if r, _, err = Fold(r, w.Eval); err != nil {
			return nil, fmt.Errorf("%s: folding: %w", p.Name, err)
		}
	}
	return &Candidate{Graph: r, Rule: p.Name, Hash: r.CanonicalHash()}, nil
}
