package regal

import (
	"hash/fnv"
	"math"

	"github.com/xrl-dev/xrl/env"
)

// RuleBuckets is the number of hash buckets rule names are one-hot
// encoded into.
const RuleBuckets = 32

// FeatureDim returns the width of an action's feature vector: rule
// buckets, per-class node-count change, per-class share of the current
// graph, the relative changes in node count and edge volume, and a No-Op
// flag.
func FeatureDim() int { return RuleBuckets + 2*env.NumOpClasses() + 3 }

// graphStats summarises a graph tensor.
type graphStats struct {
	counts []float64 // nodes per op class
	nodes  float64
	volume float64 // sum over edges of the tensor's element count
}

func statsOf(g *env.GraphTensor) graphStats {
	s := graphStats{counts: make([]float64, env.NumOpClasses()), nodes: float64(g.NumNodes())}
	for _, c := range g.NodeClass {
		s.counts[c]++
	}
	for e := 0; e < g.NumEdges(); e++ {
		n := 1.0
		for _, f := range g.EdgeFeat[e*env.EdgeDim : (e+1)*env.EdgeDim] {
			if f > 0 {
				n *= float64(f) * env.ShapeScale
			}
		}
		s.volume += n
	}
	return s
}

// features writes one row of FeatureDim values per action of obs into x
// (len(obs.Mask) rows; masked actions get zero rows).
func features(obs *env.Observation, cands []env.Candidate, x []float32) {
	d := FeatureDim()
	clear(x)
	cur := statsOf(obs.Current)
	nc := env.NumOpClasses()
	share := make([]float32, nc)
	for c, n := range cur.counts {
		share[c] = float32(n / max(cur.nodes, 1))
	}
	for a, ok := range obs.Mask {
		if !ok {
			continue
		}
		row := x[a*d : (a+1)*d]
		copy(row[RuleBuckets+nc:], share)
		if a == obs.NoOp() {
			row[d-1] = 1
			continue
		}
		if a < len(cands) {
			h := fnv.New32a()
			h.Write([]byte(cands[a].Rule))
			row[h.Sum32()%RuleBuckets] = 1
		}
		s := statsOf(obs.Candidates[a])
		for c := range nc {
			diff := s.counts[c] - cur.counts[c]
			row[RuleBuckets+c] = float32(math.Copysign(math.Log1p(math.Abs(diff)), diff))
		}
		row[d-3] = clip((s.nodes - cur.nodes) / max(cur.nodes, 1))
		row[d-2] = clip((s.volume - cur.volume) / max(cur.volume, 1))
	}
}

// clip limits a relative change to [-1, 1].
func clip(v float64) float32 { return float32(max(-1, min(1, v))) }
