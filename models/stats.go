package models

import "github.com/xrl-dev/xrl/graph"

// Params returns the number of parameters of g: the elements of every
// floating-point constant of rank >= 1, initializer or Constant node (weights, biases, normalisation
// parameters and statistics, embeddings, masks). Rank-0 constants are
// operator literals (GELU's 0.5, ReLU6's bounds, attention's sqrt(d)) and
// are not counted; integer constants (shapes, indices) neither.
func Params(g *graph.Graph) int64 {
	var total int64
	count := func(t *graph.Tensor) {
		if t != nil && t.DType.IsFloat() && len(t.Shape) > 0 {
			total += int64(t.Len())
		}
	}
	for _, v := range g.Constants() {
		count(v.Const)
	}
	for _, n := range g.Nodes {
		if n.Op == "Constant" && !n.IsOpaque() {
			// Weights stored in Constant nodes (PaddlePaddle exports).
			if t, err := graph.ConstantValue(n); err == nil {
				count(t)
			}
		}
	}
	return total
}
