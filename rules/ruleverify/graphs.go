package ruleverify

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules"
)

// SameFunction executes graphs a and b (same inputs and outputs, static
// shapes) in float64 with the Go executor on seeds random inputs starting
// at firstSeed (floats uniform in [-1, 1), integers 0 or 1 so that they
// are valid indices, bools fair coins) and returns an error naming the
// output when some output differs by more than tol (relative to the
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
	for s := range seeds {
		rng := rand.New(rand.NewPCG(firstSeed+uint64(s), 0x243f6a8885a308d3))
		in := map[string]*graph.Tensor{}
		for _, v := range a.Inputs {
			if v.IsConst() {
				continue
			}
			shape, err := v.StaticShape()
			if err != nil {
				return 0, err
			}
			dt := v.DType
			if dt == graph.Float32 || dt == graph.Float16 {
				dt = graph.Float64
			}
			t := graph.NewTensor(dt, shape...)
			switch d := t.Data.(type) {
			case []int64:
				for i := range d {
					d[i] = int64(rng.IntN(2))
				}
			case []int32:
				for i := range d {
					d[i] = int32(rng.IntN(2))
				}
			case []bool:
				for i := range d {
					d[i] = rng.IntN(2) == 1
				}
			default:
				rules.FillRandom(t, rng, false)
			}
			in[v.Name] = t
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
