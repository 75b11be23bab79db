package env

import (
	"fmt"
	"math"
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
// (RT_cur - RT_cand) / RT_cur.
func (e *Env) gainsOf(cands []Candidate) ([]float64, error) {
	cur, err := e.latencyOf(e.cur, e.curHash)
	if err != nil {
		return nil, fmt.Errorf("env: measuring the current graph: %w", err)
	}
	gains := make([]float64, len(cands))
	for i, c := range cands {
		lat, err := e.latencyOf(c.Graph, c.GraphHash())
		if err != nil {
			return nil, fmt.Errorf("env: measuring candidate %d (rule %s): %w", i, c.Rule, err)
		}
		if cur > 0 {
			gains[i] = float64(cur-lat) / float64(cur)
		}
	}
	return gains, nil
}
