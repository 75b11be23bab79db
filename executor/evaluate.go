package executor

import "github.com/xrl-dev/xrl/graph"

// Evaluate runs g, a graph without inputs whose nodes read constants only,
// on one thread in g's own dtypes, and returns its outputs keyed by value
// name. It is the evaluator constant folding uses (rewrite.Evaluator).
func Evaluate(g *graph.Graph) (map[string]*graph.Tensor, error) {
	ex, err := NewExecutor(g, ExecOptions{Threads: 1})
	if err != nil {
		return nil, err
	}
	return ex.Run(nil)
}
