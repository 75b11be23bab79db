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
}

// Passes are the shipped whole-graph passes, in the order they are offered.
var Passes = []Pass{
	{Name: "prune-dead-rows", Apply: PruneDead},
	{Name: "fuse-attention", Apply: FuseAttention},
	{Name: "fuse-attention-2d", Apply: FuseAttention2D},
	{Name: "rows-2d", Apply: Rows2D},
	{Name: "ort-fusion-forms", Apply: FusionForms, Tolerance: FusionFormsTolerance},
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
	memo map[passKey]passResult
}

// passKey names one pass applied to one graph (by canonical hash).
type passKey struct {
	pass string
	in   graph.Hash
}

// passResult is a remembered application: the checked candidate (nil when
// the pass changed nothing) or the reason it was rejected.
type passResult struct {
	c   *Candidate
	err error
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

var _ Rewriter = (*WithPasses)(nil)

// Candidates implements Rewriter.
func (w *WithPasses) Candidates(g *graph.Graph) ([]Candidate, error) {
	var out []Candidate
	in := g.CanonicalHash()
	seen := map[graph.Hash]bool{in: true}
	for _, p := range w.Passes {
		c, err := w.applyMemo(p, g, in)
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
	if w.Base != nil {
		base, err := w.Base.Candidates(g)
		if err != nil {
			return nil, err
		}
		for _, c := range base {
			if h := c.GraphHash(); !seen[h] {
				seen[h] = true
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// applyMemo is apply, remembered per pass and input graph hash.
func (w *WithPasses) applyMemo(p Pass, g *graph.Graph, in graph.Hash) (*Candidate, error) {
	k := passKey{p.Name, in}
	w.mu.Lock()
	r, ok := w.memo[k]
	w.mu.Unlock()
	if ok {
		if r.c == nil {
			return nil, r.err
		}
		// Callers own the graphs they are given.
		c := *r.c
		c.Graph = r.c.Graph.Clone()
		return &c, nil
	}
	c, err := w.apply(p, g)
	w.mu.Lock()
	if w.memo == nil || len(w.memo) >= memoLimit {
		w.memo = map[passKey]passResult{}
	}
	var keep *Candidate
	if c != nil {
		keep = &Candidate{Graph: c.Graph.Clone(), Rule: c.Rule, Hash: c.Hash}
	}
	w.memo[k] = passResult{keep, err}
	w.mu.Unlock()
	return c, err
}

// apply runs one pass, folds and checks its result (nil when unchanged).
func (w *WithPasses) apply(p Pass, g *graph.Graph) (*Candidate, error) {
	r, changed, err := p.Apply(g)
	if err != nil || !changed {
		return nil, err
	}
	if w.Eval != nil {
		if r, _, err = Fold(r, w.Eval); err != nil {
			return nil, fmt.Errorf("%s: folding: %w", p.Name, err)
		}
	}
	if w.Check == nil {
		return nil, fmt.Errorf("%s: no checker: results of passes are only offered when verified", p.Name)
	}
	if err := w.Check(g, r, p.Tolerance); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	return &Candidate{Graph: r, Rule: p.Name, Hash: r.CanonicalHash()}, nil
}
