package search

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/xrltest"
	"github.com/xrl-dev/xrl/rewrite"
)

// checkedDrops offers DropRewriter's candidates behind a counted check
// that refuses the rule named refuse. Candidates checks every candidate;
// CandidatesDeferred (when deferred) leaves the checks to Verify.
type checkedDrops struct {
	refuse   string
	deferred bool
	checks   int
}

func (r *checkedDrops) check(c rewrite.Candidate) error {
	r.checks++
	if c.Rule == r.refuse {
		return errors.New("refused")
	}
	return nil
}

func (r *checkedDrops) Candidates(g *graph.Graph) ([]rewrite.Candidate, error) {
	cands, err := xrltest.DropRewriter{}.Candidates(g)
	if err != nil {
		return nil, err
	}
	var out []rewrite.Candidate
	for _, c := range cands {
		if r.check(c) == nil {
			out = append(out, c)
		}
	}
	return out, nil
}

// deferredDrops is checkedDrops as a DeferredRewriter.
type deferredDrops struct{ *checkedDrops }

func (r deferredDrops) CandidatesDeferred(g *graph.Graph) ([]rewrite.Candidate, error) {
	cands, err := xrltest.DropRewriter{}.Candidates(g)
	if err != nil {
		return nil, err
	}
	for i := range cands {
		c := cands[i]
		cands[i].Verify = func() error { return r.check(c) }
	}
	return cands, nil
}

// TestDeferredChecksKeepResults runs TASO and greedy search with checks
// done up front and with checks deferred to the candidates used: the
// results must be the same (best graph, latency, path, steps, rule
// counts), with fewer checks deferred, also when one rule's candidates
// all fail their checks.
func TestDeferredChecksKeepResults(t *testing.T) {
	for _, alg := range []string{"taso", "greedy"} {
		for _, refuse := range []string{"", "drop-identity", "relu-idempotent"} {
			for _, budget := range []int{1000, 2} {
				t.Run(fmt.Sprintf("%s/refuse %s/budget %d", alg, refuse, budget), func(t *testing.T) {
					run := func(deferred bool) (*Result, int) {
						p, _ := problem(t)
						cr := &checkedDrops{refuse: refuse}
						p.Rewriter = cr
						if deferred {
							p.Rewriter = deferredDrops{cr}
						}
						res, err := Algorithms[alg](p, Options{Budget: budget})
						if err != nil {
							t.Fatal(err)
						}
						return res, cr.checks
					}
					eager, eagerChecks := run(false)
					lazy, lazyChecks := run(true)
					if lazy.Best.CanonicalHash() != eager.Best.CanonicalHash() || lazy.BestLatency != eager.BestLatency ||
						!slices.Equal(lazy.Path, eager.Path) || lazy.Steps != eager.Steps || lazy.StopReason != eager.StopReason {
						t.Fatalf("deferred: %v in %d steps via %v (%s); up front: %v in %d steps via %v (%s)",
							lazy.BestLatency, lazy.Steps, lazy.Path, lazy.StopReason, eager.BestLatency, eager.Steps, eager.Path, eager.StopReason)
					}
					// Counts agree once every queued graph was popped; a graph
					// left in the queue keeps its unchecked candidate counted.
					for name, u := range eager.Rules {
						if l := lazy.Rules[name]; l == nil || (budget == 1000 && *l != *u) {
							t.Errorf("rule %s: deferred %+v, up front %+v", name, l, u)
						}
					}
					if lazyChecks >= eagerChecks {
						t.Errorf("deferred ran %d checks, up front %d", lazyChecks, eagerChecks)
					}
				})
			}
		}
	}
}
