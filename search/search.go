package search

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/xrl-dev/xrl/evolve"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/nodecost"
	"github.com/xrl-dev/xrl/rewrite"
)

// Options configures a search run.
type Options struct {
	// Budget bounds the steps: greedy and random steps taken, best-first
	// queue pops (default 100 for best-first and random, 1000 for greedy).
	Budget int
	// Alpha keeps graphs costing less than Alpha x best in the best-first
	// queue (default 1.05; TASO uses 1.0-1.05).
	Alpha float64
	// MaxGrowth caps graph size at MaxGrowth x the start's node count
	// (default 2, as TASO).
	MaxGrowth float64
	// TimeLimit stops the run early (0 = none).
	TimeLimit time.Duration
	// Seed drives the random walk.
	Seed uint64
	// Progress, if set, is called after every step with the step number
	// and the best latency so far.
	Progress func(step int, best time.Duration)
	// MaxCandidates caps the candidates BRKGA's environment shows per
	// step (0: env.DefaultMaxCandidates).
	MaxCandidates int
	// Prior, when set, biases BRKGA's decoding (a trained policy's action
	// probabilities, for example); the other algorithms ignore it.
	Prior evolve.Prior
	// Keys, when set, makes BRKGA decode by priority with fresh keys from
	// this distribution (a trained regal network, say); it excludes Prior.
	Keys evolve.KeyDist
}

// Problem is what every algorithm optimises: a start model, the rewriter
// that proposes candidates and the latency model that scores graphs (for
// the memory objectives, measure.MemoryObjective or measure.Combined,
// whose scores rank graphs but are not times).
type Problem struct {
	Model    *graph.Model
	Rewriter rewrite.Rewriter
	Latency  measure.LatencyModel
	// NodeTimes, when set, is Latency's per-node view: Latency must be
	// the sum of its node times over the nodes that do not compute from
	// constants only (measure.CostModel, behind its cache). Best-first and
	// greedy search then score lazy candidates from what they change
	// (see package nodecost).
	NodeTimes *nodecost.Timer
}

// modelOf returns the problem's model around graph g.
func (p *Problem) modelOf(g *graph.Graph) *graph.Model {
	m := *p.Model
	m.Graph = g
	return &m
}

// latency scores g, whose canonical hash is h (zero: unknown; a
// candidate's is known, so a caching latency model need not hash it).
func (p *Problem) latency(g *graph.Graph, h graph.Hash, res *Result) (time.Duration, error) {
	res.Evaluations++
	st, err := measure.LatencyKnownHash(p.Latency, p.modelOf(g), h)
	if err != nil {
		return 0, err
	}
	return st.Median, nil
}

// expansion is a graph whose candidates are being scored, with its node
// times when the problem has NodeTimes.
type expansion struct {
	base *nodecost.Base
}

// expand prepares the scoring of g's candidates (g has latency lat).
func (p *Problem) expand(g *graph.Graph, lat time.Duration) (*expansion, error) {
	if p.NodeTimes == nil {
		return &expansion{}, nil
	}
	b, err := p.NodeTimes.Base(p.modelOf(g), lat)
	if err != nil {
		return nil, err
	}
	return &expansion{base: b}, nil
}

// candidateLatency scores candidate c of the expanded graph: from its
// change when NodeTimes allows, else on its graph.
func (p *Problem) candidateLatency(x *expansion, c rewrite.Candidate, res *Result) (time.Duration, error) {
	if x.base != nil {
		l, ok, err := x.base.Latency(c)
		if err != nil {
			return 0, err
		}
		if ok {
			res.Evaluations++
			return l, nil
		}
	}
	return p.latency(c.Materialize(), c.Hash, res)
}

// start begins a run of the named algorithm: it defaults o.Budget to budget
// when it is not positive and measures the start graph.
func (p *Problem) start(name string, o *Options, budget int) (*Result, time.Time, error) {
	if o.Budget <= 0 {
		o.Budget = budget
	}
	t0 := time.Now()
	res := &Result{Algorithm: name, Best: p.Model.Graph, Rules: map[string]*RuleUse{}}
	l, err := p.latency(p.Model.Graph, graph.Hash{}, res)
	if err != nil {
		return nil, t0, fmt.Errorf("%s: measuring the start graph: %w", name, err)
	}
	res.InitialLatency, res.BestLatency = l, l
	return res, t0, nil
}

// search runs the body of one algorithm: it measures the start graph, calls body
// with the result to fill in and the size limit, stores the rule path body
// returns (the path to the best graph) and records the elapsed time.
func (p *Problem) search(name string, o *Options, budget int, body func(res *Result, t0 time.Time, limit int) ([]string, error)) (*Result, error) {
	res, t0, err := p.start(name, o, budget)
	if err != nil {
		return nil, err
	}
	defer func() { res.Elapsed = time.Since(t0) }()
	path, err := body(res, t0, o.sizeLimit(p.Model.Graph))
	if err != nil {
		return nil, err
	}
	res.setPath(path)
	return res, nil
}

// candidates returns g's candidates within the size limit, counted in
// res. With deferred, a DeferredRewriter may leave costly checks to the
// caller (Candidate.Verify), who must run them through use before using a
// candidate.
func (p *Problem) candidates(g *graph.Graph, res *Result, limit int, deferred bool) ([]rewrite.Candidate, error) {
	cands, err := rewrite.CandidatesOfLazy(p.Rewriter, g, deferred)
	if err != nil {
		return nil, err
	}
	kept := cands[:0:0]
	for _, c := range cands {
		res.rule(c.Rule).Candidates++
		if limit <= 0 || c.NumNodes() <= limit {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// use runs c's deferred check, if any, and reports whether c may be used.
// A failing candidate is one the rewriter's Candidates would not have
// offered, so it is taken out of res's count too. (A failing pass result
// cannot hide a valid rule candidate of the same graph: equal graphs
// compute the same function, so that one would fail its check as well.)
func use(c *rewrite.Candidate, res *Result) bool {
	if c.Verify == nil {
		return true
	}
	if err := c.Verify(); err != nil {
		res.rule(c.Rule).Candidates--
		return false
	}
	c.Verify = nil
	return true
}

func (o Options) sizeLimit(g *graph.Graph) int {
	growth := o.MaxGrowth
	if growth <= 0 {
		growth = 2
	}
	return int(growth * float64(len(g.Nodes)))
}

// limitReached reports whether the step budget or the time limit is spent,
// and records the stop reason.
func limitReached(res *Result, o Options, t0 time.Time) bool {
	switch {
	case res.Steps >= o.Budget:
		res.StopReason = StopBudget
	case o.TimeLimit > 0 && time.Since(t0) >= o.TimeLimit:
		res.StopReason = StopTimeLimit
	default:
		return false
	}
	return true
}

// walk is the loop of Greedy and RandomWalk: from cur it moves to the graph
// that step picks among cur's candidates, until the budget or the time limit
// is spent, cur has no candidates or step returns nil; it records the stop
// reason (except step's own) and reports progress after every move.
func (p *Problem) walk(cur *graph.Graph, res *Result, o Options, t0 time.Time, limit int, deferred bool, step func(*graph.Graph, []rewrite.Candidate) (*graph.Graph, error)) error {
	for !limitReached(res, o, t0) {
		cands, err := p.candidates(cur, res, limit, deferred)
		if err != nil {
			return err
		}
		if len(cands) == 0 {
			res.StopReason = StopNoCandidates
			return nil
		}
		if cur, err = step(cur, cands); err != nil || cur == nil {
			return err
		}
		if o.Progress != nil {
			o.Progress(res.Steps, res.BestLatency)
		}
	}
	return nil
}

// Greedy repeatedly applies the candidate with the lowest latency while it
// improves on the current graph.
func Greedy(p *Problem, o Options) (*Result, error) {
	return p.search("greedy", &o, 1000, func(res *Result, t0 time.Time, limit int) ([]string, error) {
		curLat := res.InitialLatency
		var path []string
		err := p.walk(p.Model.Graph, res, o, t0, limit, true, func(cur *graph.Graph, cands []rewrite.Candidate) (*graph.Graph, error) {
			x, err := p.expand(cur, curLat)
			if err != nil {
				return nil, err
			}
			lats := make([]time.Duration, len(cands))
			for i, c := range cands {
				l, err := p.candidateLatency(x, c, res)
				if err != nil {
					return nil, fmt.Errorf("greedy: candidate of rule %s: %w", c.Rule, err)
				}
				lats[i] = l
			}
			// The fastest improving candidate that passes its check (the
			// first of equals, as without deferred checks).
			failed := make([]bool, len(cands))
			var bestI int
			var bestLat time.Duration
			for {
				bestI, bestLat = -1, curLat
				for i, l := range lats {
					if l < bestLat && !failed[i] {
						bestI, bestLat = i, l
					}
				}
				if bestI < 0 || use(&cands[bestI], res) {
					break
				}
				failed[bestI] = true
			}
			if bestI < 0 {
				// As with checks up front: no improvement among usable
				// candidates, or none usable at all.
				res.StopReason = StopNoCandidates
				for i := range cands {
					if !failed[i] && use(&cands[i], res) {
						res.StopReason = StopNoImprovement
						break
					}
					failed[i] = true
				}
				return nil, nil
			}
			curLat = bestLat
			path = append(path, cands[bestI].Rule)
			res.Steps++
			res.Best, res.BestLatency = cands[bestI].Materialize(), curLat
			return res.Best, nil
		})
		return path, err
	})
}

// queued is a graph waiting in the best-first queue: the start graph (g)
// or a candidate (built when popped).
type queued struct {
	g    *graph.Graph
	cand rewrite.Candidate
	lat  time.Duration
	path *step
	seq  int // insertion order, to break ties deterministically
}

// step is one rule of a path from the start graph, linked to the rules
// before it (queued graphs share their parents' paths).
type step struct {
	rule string
	prev *step
}

// rules returns the path's rules from the start.
func (s *step) rules() []string {
	var out []string
	for ; s != nil; s = s.prev {
		out = append(out, s.rule)
	}
	slices.Reverse(out)
	return out
}

// graph returns the queued graph.
func (q *queued) graph() *graph.Graph {
	if q.g != nil {
		return q.g
	}
	return q.cand.Materialize()
}

type pq []*queued

func (q pq) Len() int { return len(q) }
func (q pq) Less(i, j int) bool {
	if q[i].lat != q[j].lat {
		return q[i].lat < q[j].lat
	}
	return q[i].seq < q[j].seq
}
func (q pq) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pq) Push(x any)   { *q = append(*q, x.(*queued)) }
func (q *pq) Pop() any {
	old := *q
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return x
}

// BestFirst is TASO's search: a priority queue of graphs ordered by
// latency; each pop expands a graph's candidates, keeping unseen ones whose
// latency is below Alpha x the best so far (the best before the candidate
// itself is counted) and whose size is within
// MaxGrowth x the start's; it stops when the queue is empty or after
// Budget pops.
//
// A candidate is dropped when an earlier candidate had its canonical
// hash. A lazy candidate of a large graph comes without its hash (rewrite.Engine.CandidatesLazy): it is queued, and
// when popped it is skipped if an equal graph was expanded before. Equal
// graphs have equal latencies and the earlier one pops first, so the
// search goes as with every hash known, except that such duplicates count
// among the latency queries.
func BestFirst(p *Problem, o Options) (*Result, error) {
	if o.Alpha <= 0 {
		o.Alpha = 1.05
	}
	return p.search("taso", &o, 100, func(res *Result, t0 time.Time, limit int) ([]string, error) {
		start := p.Model.Graph.CanonicalHash()
		generated := map[graph.Hash]bool{start: true}
		expanded := map[graph.Hash]bool{}
		q := &pq{{g: p.Model.Graph, lat: res.InitialLatency}}
		seq := 1
		var bestPath *step
		var best *rewrite.Candidate
		for {
			if q.Len() == 0 {
				res.StopReason = StopQueueEmpty
				break
			}
			if limitReached(res, o, t0) {
				break
			}
			item := heap.Pop(q).(*queued)
			h := start
			if item.g == nil {
				h = item.cand.GraphHash()
			}
			if expanded[h] {
				continue // an equal graph was expanded (see above)
			}
			expanded[h] = true
			if !use(&item.cand, res) {
				continue // checks up front would never have queued it
			}
			res.Steps++
			g := item.graph()
			x, err := p.expand(g, item.lat)
			if err != nil {
				return nil, err
			}
			// A candidate's check is deferred until it is popped or becomes
			// the best: most queued graphs are never popped.
			cands, err := p.candidates(g, res, limit, true)
			if err != nil {
				return nil, err
			}
			for _, c := range cands {
				if c.Graph != nil || c.Hash != (graph.Hash{}) {
					h := c.GraphHash()
					if generated[h] {
						continue
					}
					generated[h] = true
				}
				l, err := p.candidateLatency(x, c, res)
				if err != nil {
					return nil, fmt.Errorf("taso: candidate of rule %s: %w", c.Rule, err)
				}
				path := &step{rule: c.Rule, prev: item.path}
				// Compared with the best before this candidate, so that a new
				// best graph is always queued, even with Alpha = 1.
				if float64(l) < o.Alpha*float64(res.BestLatency) {
					if l < res.BestLatency && !use(&c, res) {
						continue
					}
					heap.Push(q, &queued{cand: c, lat: l, path: path, seq: seq})
					seq++
				}
				if l < res.BestLatency {
					res.BestLatency, bestPath = l, path
					best = &c
				}
			}
			if o.Progress != nil {
				o.Progress(res.Steps, res.BestLatency)
			}
		}
		if best != nil {
			res.Best = best.Materialize()
		}
		return bestPath.rules(), nil
	})
}

// RandomWalk applies uniformly random candidates for Budget steps (or until
// none is left) and returns the fastest graph visited.
func RandomWalk(p *Problem, o Options) (*Result, error) {
	return p.search("random", &o, 100, func(res *Result, t0 time.Time, limit int) ([]string, error) {
		rng := rand.New(rand.NewPCG(o.Seed, 0x2545f4914f6cdd1d))
		var path, bestPath []string
		// Checked candidates: a random pick must not depend on checks.
		err := p.walk(p.Model.Graph, res, o, t0, limit, false, func(_ *graph.Graph, cands []rewrite.Candidate) (*graph.Graph, error) {
			c := cands[rng.IntN(len(cands))]
			path = append(path, c.Rule)
			res.Steps++
			g := c.Materialize()
			l, err := p.latency(g, c.Hash, res)
			if err != nil {
				return nil, fmt.Errorf("random: %w", err)
			}
			if l < res.BestLatency {
				res.Best, res.BestLatency = g, l
				bestPath = append([]string(nil), path...)
			}
			return g, nil
		})
		return bestPath, err
	})
}

// Algorithms maps the --search names to their functions.
var Algorithms = map[string]func(*Problem, Options) (*Result, error){
	"greedy": Greedy,
	"taso":   BestFirst,
	"random": RandomWalk,
	"brkga":  BRKGA,
}
