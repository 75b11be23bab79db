package rewrite

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules"
)

// Options configures an Engine.
type Options struct {
	// Rules, when not empty, restricts the engine to the rules with these
	// names (unknown names are an error of NewEngineChecked; NewEngine
	// ignores them).
	Rules []string
	// MaxNodes rejects candidates with more nodes than this (0: no cap).
	// Callers set it from the starting graph, e.g. 2x its node count as
	// TASO does.
	MaxNodes int
	// Workers is the number of goroutines applying matches (default 2;
	// 1 applies serially).
	Workers int
	// FoldBytes caps the size of a constant that folding a candidate may
	// create (0: DefaultCandidateFoldBytes; negative: only MaxFoldBytes).
	// Larger folds are left as nodes over constants for Fold.
	FoldBytes int64
	// MemoBytes is the budget of the fold memo, which keeps the constants
	// folded for earlier candidates so that later generations (the next
	// graphs of a search or an episode) reuse them instead of folding and
	// hashing them again (0: DefaultMemoBytes; negative: no memo).
	MemoBytes int64
	// Eval computes the constants that folding a candidate creates
	// (executor.Evaluate in practice). Without it, candidates whose folds
	// need an evaluation are rejected.
	Eval Evaluator
}

// Engine is the rule-based Rewriter: it matches every rule of a rule set
// at every place in a graph and applies each match (see Candidates). An
// Engine is safe for concurrent use (concurrent calls share the fold memo
// and mix its hit counts in Stats).
type Engine struct {
	rules []*prule
	opts  Options
	memo  *foldMemo
	// noPrune makes pair rules enumerate every pair (tests compare the
	// candidates with and without pruning).
	noPrune bool
}

var _ Rewriter = (*Engine)(nil)

// NewEngine returns an engine for the rules of set (those named in
// opts.Rules when given), in set order.
func NewEngine(set *rules.Set, opts Options) *Engine {
	e, _ := newEngine(set, opts)
	return e
}

// NewEngineChecked is NewEngine that fails when opts.Rules names a rule
// the set does not have.
func NewEngineChecked(set *rules.Set, opts Options) (*Engine, error) {
	return newEngine(set, opts)
}

func newEngine(set *rules.Set, opts Options) (*Engine, error) {
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	switch {
	case opts.FoldBytes == 0:
		opts.FoldBytes = DefaultCandidateFoldBytes
	case opts.FoldBytes < 0 || opts.FoldBytes > MaxFoldBytes:
		opts.FoldBytes = MaxFoldBytes
	}
	e := &Engine{opts: opts}
	switch {
	case opts.MemoBytes == 0:
		e.memo = newFoldMemo(DefaultMemoBytes)
	case opts.MemoBytes > 0:
		e.memo = newFoldMemo(opts.MemoBytes)
	}
	var unknown []string
	for _, name := range opts.Rules {
		if set.Lookup(name) == nil {
			unknown = append(unknown, name)
		}
	}
	if set != nil {
		for _, r := range set.Rules {
			if len(opts.Rules) == 0 || slices.Contains(opts.Rules, r.Name) {
				e.rules = append(e.rules, prepareRule(r))
			}
		}
	}
	if len(unknown) > 0 {
		return e, fmt.Errorf("rewrite: unknown rules %v", unknown)
	}
	return e, nil
}

// Rules returns the names of the engine's rules in order.
func (e *Engine) Rules() []string {
	out := make([]string, len(e.rules))
	for i, pr := range e.rules {
		out[i] = pr.r.Name
	}
	return out
}

// Candidates implements Rewriter. It finds every match of every rule in g
// (ops, attributes, shape templates, conditions and connectivity; both
// argument orders of commutative ops; never opaque nodes; a matched node's
// output read outside the match must be a source output), keeps one match
// per set of matched nodes and rule (symmetric sources match the same
// nodes in several arrangements), applies each (folding the constants the
// rewrite creates and removing what it leaves unread), and drops results
// with a cycle, more than Options.MaxNodes nodes, equal to g or to an
// earlier candidate (by canonical hash). Candidates come in rule order,
// then in the order the matcher finds the matches (by the position in g's
// topological order of the node it starts from, then of the others).
// Each carries its canonical hash in Candidate.Hash. g must have static
// inferred
// shapes; it is not modified. The candidates share g's unchanged nodes,
// values and tensors: treat all of them as immutable (see the package
// documentation).
func (e *Engine) Candidates(g *graph.Graph) ([]Candidate, error) {
	cands, _, err := e.CandidatesWithStats(g)
	return cands, err
}

// job is one match to apply.
type job struct {
	rule  int // index into e.rules
	m     *rules.Match
	pos   []int32
	g     *graph.Graph
	hash  graph.Hash
	err   error
	fold  FoldStats
	apply time.Duration
	hashT time.Duration
}

// CandidatesWithStats is Candidates that also reports per-rule counts and
// where the time went.
func (e *Engine) CandidatesWithStats(g *graph.Graph) ([]Candidate, Stats, error) {
	t0 := time.Now()
	st := Stats{Nodes: 0, Workers: e.opts.Workers}
	if g == nil {
		return nil, st, fmt.Errorf("rewrite: nil graph")
	}
	st.Nodes = len(g.Nodes)
	if e.memo != nil {
		e.memo.next()
	}
	gx, err := newIndex(g)
	if err != nil {
		return nil, st, err
	}
	st.Rules = make([]RuleStats, len(e.rules))
	var jobs []*job
	for i, pr := range e.rules {
		rs := &st.Rules[i]
		rs.Rule = pr.r.Name
		rs.Rejected = map[Reject]int{}
		tm := time.Now()
		fs, external, pruned := findMatchesPruned(gx, pr, !e.noPrune)
		rs.MatchTime = time.Since(tm)
		rs.Matches = len(fs)
		rs.Pruned = pruned
		if external > 0 {
			rs.Rejected[RejectExternal] = external
		}
		for _, f := range keepOnePerNodeSet(fs) {
			if f.m == nil {
				rs.Rejected[RejectSymmetric]++
				continue
			}
			jobs = append(jobs, &job{rule: i, m: f.m, pos: f.pos})
		}
	}
	st.MatchTime = time.Since(t0)
	// The input graph's digests, then apply and hash in parallel.
	th := time.Now()
	hb := newHashBase(gx)
	baseHash := hb.hash
	st.HashTime = time.Since(th)
	ta := time.Now()
	work := make(chan *job)
	var wg sync.WaitGroup
	for w := 0; w < e.opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := newHashState(hb)
			for j := range work {
				e.run(hb, st, j)
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	st.ApplyWall = time.Since(ta)
	// Keep the first of each hash, in order.
	seen := map[graph.Hash]bool{baseHash: true}
	var out []Candidate
	for _, j := range jobs {
		rs := &st.Rules[j.rule]
		st.ApplyTime += j.apply
		st.HashTime += j.hashT
		st.Fold.add(j.fold)
		if j.err != nil {
			rs.Rejected[reasonOf(j.err)]++
			continue
		}
		switch {
		case j.hash == baseHash:
			rs.Rejected[RejectUnchanged]++
			continue
		case seen[j.hash]:
			rs.Rejected[RejectDuplicate]++
			continue
		}
		seen[j.hash] = true
		rs.Candidates++
		out = append(out, Candidate{Graph: j.g, Rule: e.rules[j.rule].r.Name, Hash: j.hash})
	}
	for i := range st.Rules {
		st.Matches += st.Rules[i].Matches
		st.Candidates += st.Rules[i].Candidates
		st.Pruned += st.Rules[i].Pruned
	}
	if e.memo != nil {
		st.MemoHits, st.MemoMisses = e.memo.stats()
	}
	st.Total = time.Since(t0)
	return out, st, nil
}

// run applies one match and hashes the result.
func (e *Engine) run(hb *hashBase, st *hashState, j *job) {
	t := time.Now()
	defer func() {
		if r := recover(); r != nil {
			j.g = nil
			j.err = reject(RejectInternal, fmt.Errorf("rule %s: %v", e.rules[j.rule].r.Name, r))
		}
	}()
	g, origins, ast, err := applyMatch(hb.gx, j.m, j.pos, e.opts.FoldBytes, e.memo, e.opts.Eval)
	j.fold = ast.fold
	if err == nil && e.opts.MaxNodes > 0 && len(g.Nodes) > e.opts.MaxNodes {
		err = reject(RejectSize, fmt.Errorf("%d nodes, cap %d", len(g.Nodes), e.opts.MaxNodes))
	}
	j.apply = time.Since(t)
	if err != nil {
		j.err = err
		return
	}
	t = time.Now()
	j.g, j.hash = g, hb.candidateHash(st, g, origins)
	j.hashT = time.Since(t)
}

// keepOnePerNodeSet returns fs with the matches that cover the same graph
// nodes as an earlier match but bind them to other source nodes replaced
// by zero entries (m == nil). Matches over the same nodes in the same
// arrangement (differing only in how commutative arguments bind
// variables) are distinct rewrites and stay.
func keepOnePerNodeSet(fs []found) []found {
	first := map[string][]int32{}
	out := make([]found, len(fs))
	var key []byte
	for i, f := range fs {
		sorted := slices.Clone(f.pos)
		slices.Sort(sorted)
		key = key[:0]
		for _, p := range sorted {
			key = append(key, byte(p), byte(p>>8), byte(p>>16), byte(p>>24))
		}
		if arr, ok := first[string(key)]; ok && !slices.Equal(arr, f.pos) {
			continue
		} else if !ok {
			first[string(key)] = f.pos
		}
		out[i] = f
	}
	return out
}
