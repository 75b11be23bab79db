package executor

import "github.com/xrl-dev/xrl/graph"

// Memory is the memory a model needs for inference as the executor plans
// it: the constants it holds (initializers and Constant-node data, and
// the values of nodes it folds when it compiles the graph, such as a
// Transpose of a weight, in its execution dtypes) and the intermediate
// buffers of the liveness plan, scratch included.
type Memory struct {
	Weights       int64
	Intermediates int64
}

// Total returns Weights + Intermediates, the planned peak.
func (m Memory) Total() int64 { return m.Weights + m.Intermediates }

// PlannedMemory compiles g (static shapes) and returns its planned memory.
// Nothing is run. Counting the compile-time folded values makes a graph
// and its constant-folded form (rewrite.Fold) comparable: both hold the
// same data once compiled.
func PlannedMemory(g *graph.Graph) (Memory, error) {
	ex, err := NewExecutor(g, ExecOptions{Threads: 1})
	if err != nil {
		return Memory{}, err
	}
	return Memory{Weights: ex.ConstBytes(), Intermediates: ex.PeakBytes()}, nil
}
