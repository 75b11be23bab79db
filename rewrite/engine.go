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
	// ignores them). Empty means every rule of the set but the
	// canonicalisation rules, which Canonicalize applies (name them to
	// match them too).
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
	// LazyHashNodes is the node count above which LazyCandidates leaves
	// canonical hashes to be computed on demand (0:
	// DefaultLazyHashNodes; negative: always).
	LazyHashNodes int
}

// Engine is the rule-based Rewriter: it matches every rule of a rule set
// at every place in a graph and applies each match (see Candidates). A
// graph built from a candidate of a recent generation is matched again
// only near what that rewrite changed, with the same result
// (incremental.go). An Engine is safe for concurrent use (concurrent
// calls share the fold memo and mix its hit counts in Stats).
type Engine struct {
	rules []*prule
	opts  Options
	memo  *foldMemo
	// noPrune makes pair rules enumerate every pair (tests compare the
	// candidates with and without pruning).
	noPrune bool
	// noIncremental makes every generation match in full (tests compare
	// the two).
	noIncremental bool
}

var _ LazyRewriter = (*Engine)(nil)

// NewEngine returns an engine for the rules of set (those named in
// opts.Rules when given, else all but the canonicalisation rules), in set
// order.
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
			if len(opts.Rules) == 0 && !r.IsCanonical() || slices.Contains(opts.Rules, r.Name) {
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
	rule int // index into e.rules
	m    *rules.Match
	pos  []int32
	g    *graph.Graph
	dl   *delta
	hash graph.Hash
	// key is the change key (see key.go) and hashed says hash is set;
	// keyed says key is set (lazy hashing).
	key           graph.Hash
	hashed, keyed bool
	err           error
	fold          FoldStats
	apply, hashT  time.Duration
}

// CandidatesWithStats is Candidates that also reports per-rule counts and
// where the time went.
func (e *Engine) CandidatesWithStats(g *graph.Graph) ([]Candidate, Stats, error) {
	return e.generate(g, false)
}

// CandidatesLazy implements LazyRewriter (an Engine has no deferred
// checks): each candidate holds what its rewrite changed and builds its
// graph on Candidate.Materialize. The candidates, their order and their
// rules are those of Candidates. Their canonical hashes are computed too
// when g has at most Options.LazyHashNodes nodes; above that, duplicates
// are found from change keys (see key.go) and only candidates sharing a
// key are hashed, so that a generation costs what its rewrites change
// rather than the graph's size times the number of candidates
// (Candidate.GraphHash computes the others' on demand).
func (e *Engine) CandidatesLazy(g *graph.Graph, _ bool) ([]Candidate, error) {
	cands, _, err := e.generate(g, true)
	return cands, err
}

// CandidatesLazyWithStats is CandidatesLazy with statistics.
func (e *Engine) CandidatesLazyWithStats(g *graph.Graph) ([]Candidate, Stats, error) {
	return e.generate(g, true)
}

// generate finds, applies and deduplicates the candidates of g, lazy or
// built.
func (e *Engine) generate(g *graph.Graph, lazy bool) ([]Candidate, Stats, error) {
	t0 := time.Now()
	st := Stats{Nodes: 0, Workers: e.opts.Workers}
	if g == nil {
		return nil, st, fmt.Errorf("rewrite: nil graph")
	}
	st.Nodes = len(g.Nodes)
	if e.memo != nil {
		e.memo.next()
	}
	gx := keptIndex(g)
	if gx == nil {
		var err error
		if gx, err = newIndex(g); err != nil {
			return nil, st, err
		}
	}
	st.Rules = make([]RuleStats, len(e.rules))
	// Match the rules on the workers (only near the change when g derives
	// from a kept generation), then list the matches in rule order.
	var prev *matchSet
	var near []bool
	var nearList []int32
	if !e.noIncremental {
		if prev = e.previous(g); prev != nil {
			near, nearList = nearChange(prev.gx, gx)
			st.Incremental, st.Near = fewNear(len(nearList), len(gx.nodes)), len(nearList)
		}
	}
	ms := &matchSet{gx: gx, found: make([][]found, len(e.rules)), ext: make([][][]int32, len(e.rules))}
	inParallel(len(e.rules), e.opts.Workers, func(i int) {
		pr := e.rules[i]
		rs := &st.Rules[i]
		tm := time.Now()
		var fs []found
		var ext [][]int32
		if st.Incremental && pr.rooted != nil {
			fs, ext = rematch(gx, pr, prev, i, near, nearList)
		} else {
			fs, ext, rs.Pruned = findMatchesPruned(gx, pr, !e.noPrune)
		}
		rs.MatchTime = time.Since(tm)
		rs.Matches = len(fs)
		rs.Rejected = map[Reject]int{}
		if len(ext) > 0 {
			rs.Rejected[RejectExternal] = len(ext)
		}
		ms.found[i], ms.ext[i] = fs, ext
	})
	e.remember(ms)
	var jobs []*job
	for i, pr := range e.rules {
		rs := &st.Rules[i]
		rs.Rule = pr.r.Name
		for _, f := range keepOnePerNodeSet(ms.found[i]) {
			if f.m == nil {
				rs.Rejected[RejectSymmetric]++
				continue
			}
			jobs = append(jobs, &job{rule: i, m: f.m, pos: f.pos})
		}
	}
	st.MatchTime = time.Since(t0)
	// The input graph's digests, then apply and hash in parallel.
	if len(jobs) == 0 {
		// Nothing to apply: the digests of g are not needed (a
		// canonicalisation finding nothing on a large graph).
		return nil, e.finish(st, t0), nil
	}
	th := time.Now()
	lazyHash := lazy && len(g.Nodes) > e.lazyHashNodes()
	gen := &generation{gx: gx, hb: newHashBase(gx), inOrder: slices.Equal(gx.nodes, g.Nodes)}
	baseHash := gen.hb.hash
	st.HashTime = time.Since(th)
	ta := time.Now()
	e.parallel(jobs, func(ws *workerState, j *job) { e.run(gen, ws, j, lazy, lazyHash) })
	if lazyHash {
		// Candidates sharing a key with another one are hashed fully.
		count := map[graph.Hash]int{}
		for _, j := range jobs {
			if j.err == nil {
				count[j.key]++
			}
		}
		var ties []*job
		for _, j := range jobs {
			if j.err == nil && !j.hashed && count[j.key] > 1 {
				ties = append(ties, j)
			}
		}
		e.parallel(ties, func(_ *workerState, j *job) { hashDelta(j) })
	}
	st.ApplyWall = time.Since(ta)
	if lazy {
		gen.slim() // the lazy candidates outlive the generation
	}
	// Keep the first of each graph, in order.
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
		if j.hashed {
			switch {
			case j.hash == baseHash:
				rs.Rejected[RejectUnchanged]++
				continue
			case seen[j.hash]:
				rs.Rejected[RejectDuplicate]++
				continue
			}
			seen[j.hash] = true
		}
		rs.Candidates++
		c := Candidate{Graph: j.g, Rule: e.rules[j.rule].r.Name, Hash: j.hash}
		if lazy {
			c.Graph, c.lazy = nil, j.dl
		}
		out = append(out, c)
	}
	return out, e.finish(st, t0), nil
}

// finish sums a generation's per-rule statistics and times it from t0.
func (e *Engine) finish(st Stats, t0 time.Time) Stats {
	for i := range st.Rules {
		st.Matches += st.Rules[i].Matches
		st.Candidates += st.Rules[i].Candidates
		st.Pruned += st.Rules[i].Pruned
	}
	if e.memo != nil {
		st.MemoHits, st.MemoMisses = e.memo.stats()
	}
	st.Total = time.Since(t0)
	return st
}

// DefaultLazyHashNodes is the default of Options.LazyHashNodes.
const DefaultLazyHashNodes = 4096

// lazyHashNodes returns the node count above which lazy candidates are
// keyed instead of hashed.
func (e *Engine) lazyHashNodes() int {
	switch {
	case e.opts.LazyHashNodes == 0:
		return DefaultLazyHashNodes
	case e.opts.LazyHashNodes < 0:
		return 0
	}
	return e.opts.LazyHashNodes
}

// inParallel calls f(i) for every i in [0, n) on workers goroutines.
func inParallel(n, workers int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// workerState is what one worker reuses from job to job: its draft
// scratch and, for built candidates, its hash state.
type workerState struct {
	scratch draftScratch
	hs      *hashState
}

// parallel runs f on every job on the engine's workers.
func (e *Engine) parallel(jobs []*job, f func(*workerState, *job)) {
	work := make(chan *job)
	var wg sync.WaitGroup
	for w := 0; w < e.opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ws workerState
			for j := range work {
				f(&ws, j)
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
}

// run applies one match and hashes or keys the result: built (lazy
// false), lazy with its canonical hash, or lazy with its change key
// (lazyHash).
func (e *Engine) run(gen *generation, ws *workerState, j *job, lazy, lazyHash bool) {
	t := time.Now()
	d := newDraftOn(gen.gx, &ws.scratch)
	d.memo = e.memo
	d.eval = e.opts.Eval
	rule := e.rules[j.rule].r.Name
	defer func() {
		d.release()
		if r := recover(); r != nil {
			j.g, j.dl = nil, nil
			j.err = reject(RejectInternal, fmt.Errorf("rule %s: %v", rule, r))
		}
	}()
	ast, err := applyMatch(d, j.m, j.pos, e.opts.FoldBytes)
	j.fold = ast.fold
	var pl placement
	if err == nil {
		pl, err = d.place()
		err = cycleReject(rule, err)
	}
	if err == nil {
		j.dl = capture(d, pl, gen)
		if e.opts.MaxNodes > 0 && j.dl.nodes > e.opts.MaxNodes {
			err = reject(RejectSize, fmt.Errorf("%d nodes, cap %d", j.dl.nodes, e.opts.MaxNodes))
		}
	}
	if err == nil && (!lazy || !pl.ordered) {
		// Built now: a Candidates result, or a rewrite whose order needs
		// the whole graph (and may yet show a cycle).
		_, _, err = j.dl.build()
		err = cycleReject(rule, err)
	}
	j.apply = time.Since(t)
	if err != nil {
		j.err, j.dl = err, nil
		return
	}
	t = time.Now()
	switch {
	case !lazy:
		if ws.hs == nil {
			ws.hs = newHashState(gen.hb)
		}
		g, origins, _ := j.dl.build()
		j.g, j.hash, j.hashed = g, gen.hb.candidateHash(ws.hs, g, origins), true
		j.dl = nil
	case lazyHash:
		var found int
		var ok bool
		if j.key, found, ok = j.dl.walkKey(); ok && found > 0 {
			j.keyed = true
			j.dl.key, j.dl.keyed, j.dl.walked = j.key, true, true
		} else {
			hashDelta(j) // possibly equal to g, or a key the walk cannot tell
		}
	default:
		if j.hash, j.err = j.dl.canonicalHash(); j.err != nil {
			j.dl = nil
		} else {
			j.hashed = true
		}
	}
	j.hashT = time.Since(t)
}

// hashDelta sets j's canonical hash and exact change key from its delta.
func hashDelta(j *job) {
	t := time.Now()
	h, key, err := j.dl.hashAndKey()
	if err != nil {
		j.err, j.dl = err, nil
		return
	}
	j.hash, j.key, j.hashed, j.keyed = h, key, true, true
	j.dl.key, j.dl.keyed = key, true
	j.hashT += time.Since(t)
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
