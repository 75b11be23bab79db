package env

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/xrl-dev/xrl/nodecost"
)

// GainFeature maps a candidate's relative latency gain g = (RT_cur -
// RT_cand) / RT_cur to the value shown in its global attribute with
// Config.CandidateGains: sign(g) ln(1 + 100|g|), so that 0.1%, 1% and 30%
// read 0.095, 0.69 and 3.4 (and losses the same values, negated).
func GainFeature(g float64) float32 {
	return float32(math.Copysign(math.Log1p(100*math.Abs(g)), g))
}

// gainsOf measures the current graph and every candidate with the
// environment's latency model and returns each candidate's relative gain
// (RT_cur - RT_cand) / RT_cur. Candidates are scored on two goroutines
// (latency models are safe for concurrent use, and measuring ones
// serialise their timings), and given to the latency model's cache by
// Candidate.CacheKey: a large graph's candidates are not hashed.
func (e *Env) gainsOf(cands []Candidate) ([]float64, error) {
	cur, err := e.latencyOf(e.cur, e.curHash)
	if err != nil {
		return nil, fmt.Errorf("env: measuring the current graph: %w", err)
	}
	var base *nodecost.Base
	if e.cfg.NodeTimes != nil {
		if base, err = e.cfg.NodeTimes.Base(e.ModelOf(e.cur), cur); err != nil {
			return nil, fmt.Errorf("env: timing the current graph's nodes: %w", err)
		}
	}
	gains := make([]float64, len(cands))
	errs := make([]error, len(cands))
	inParallel(len(cands), func(i int) {
		c := cands[i]
		lat, err := e.candidateLatency(base, c)
		if err != nil {
			errs[i] = fmt.Errorf("env: measuring candidate %d (rule %s): %w", i, c.Rule, err)
		} else if cur > 0 {
			gains[i] = float64(cur-lat) / float64(cur)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return gains, nil
}

// candidateLatency returns c's latency: from its change when base (the
// current graph's node times) can tell, else from its graph (built here
// when c is lazy).
func (e *Env) candidateLatency(base *nodecost.Base, c Candidate) (time.Duration, error) {
	if base != nil {
		if lat, ok, err := base.Latency(c); err != nil || ok {
			return lat, err
		}
	}
	return e.latencyOf(c.Materialize(), c.CacheKey())
}

// inParallel calls f(i) for i in [0, n) on two goroutines, i by i.
func inParallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	const workers = 2
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				f(i)
			}
		}(w)
	}
	wg.Wait()
}
