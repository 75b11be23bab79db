package ruleverify

import "github.com/xrl-dev/xrl/graph"

// SameFunction executes graphs a and b (same inputs and outputs, static
// shapes) in float64 with the Go executor on seeds random inputs starting
// at firstSeed, drawn as verification draws them (inputs.Random:
// integers over their meaningful ranges, Loop trip counts above 1, floats
// as float64), and returns an error naming the output when some output differs by more than tol (relative to the
// largest magnitude of a's output; see graph.MaxRelDiff). It is how a
// rewrite that no rule states (rewrite.Pass) is verified each time it is
// applied.
func SameFunction(a, b *graph.Graph, seeds int, firstSeed uint64, tol float64) (float64, error) {
	r := Reference{Seeds: seeds, FirstSeed: firstSeed, Threads: 1}
	return r.Same(a, b, tol)
}
