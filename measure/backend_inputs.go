package measure

import (
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
)

// RandomInputs returns seeded random tensors for every non-constant input
// of g, which must have static shapes: inputs.Random, the same input sets
// verification runs on (integers over their meaningful ranges, Loop trip
// counts above 1), so that a model is timed doing the work it verifies.
func RandomInputs(g *graph.Graph, seed uint64) (map[string]*graph.Tensor, error) {
	return inputs.Random(g, seed)
}
