package ruleverify

import (
	"fmt"
	"math"
	"slices"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
)

// SameFunction executes graphs a and b (same inputs and outputs, static
// shapes) in float64 with the Go executor on seeds random inputs starting
// at firstSeed, drawn as verification draws them (inputs.Random:
// integers over their meaningful ranges, Loop trip counts above 1, floats
// as float64), and returns an error naming the output when some output differs by more than tol (relative to the
// largest magnitude of a's output; see graph.MaxRelDiff). It is how a
// rewrite that no rule states (rewrite.Pass) is verified each time it is
// applied.
func SameFunction(a, b *graph.Graph, seeds int, firstSeed uint64, tol float64) (float64, error) {
	if len(a.Inputs) != len(b.Inputs) || len(a.Outputs) != len(b.Outputs) {
		return 0, fmt.Errorf("the graphs have different signatures")
	}
	eo := executor.ExecOptions{Precision: graph.Float64, Threads: 1}
	ea, eb, err := newPair(a, b, eo, "before", "after")
	if err != nil {
		return 0, err
	}
	worst := 0.0
	gen := inputs.New(a, inputs.Options{Float64: true})
	for s := range seeds {
		in, err := gen.Draw(firstSeed + uint64(s))
		if err != nil {
			return 0, err
		}
		oa, ob, err := runPair(ea, eb, in, "before", "after")
		if err != nil {
			return 0, err
		}
		for i := range a.Outputs {
			x, y := oa[a.Outputs[i].Name], ob[b.Outputs[i].Name]
			if x == nil || y == nil {
				return 0, fmt.Errorf("output %d missing", i)
			}
			if !slices.Equal(x.Shape, y.Shape) {
				return 0, fmt.Errorf("output %q: shape %s after, %s before", a.Outputs[i].Name, graph.ShapeString(y.Shape), graph.ShapeString(x.Shape))
			}
			rel, err := graph.MaxRelDiff(x, y)
			if err != nil {
				return 0, fmt.Errorf("output %q: %w", a.Outputs[i].Name, err)
			}
			if math.IsNaN(rel) || rel > tol {
				return rel, fmt.Errorf("output %q differs: relative error %.3g > %.3g (seed %d)", a.Outputs[i].Name, rel, tol, firstSeed+uint64(s))
			}
			worst = max(worst, rel)
		}
	}
	return worst, nil
}
