package measure

import (
	"fmt"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/sysmem"
)

// RandomInputs returns seeded random tensors for every non-constant input
// of g, which must have static shapes. Floats are uniform in [-1, 1),
// and in [-100, 100) for every seed divisible by 3 (a rewrite that holds
// only for small magnitudes must not pass a check over three seeds);
// integers are 0 or 1 (safe as indices and as boolean-like flags); bools
// are fair coin flips.
func RandomInputs(g *graph.Graph, seed uint64) (map[string]*graph.Tensor, error) {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	scale := 1.0
	if seed%3 == 0 {
		scale = 100
	}
	out := make(map[string]*graph.Tensor, len(g.Inputs))
	for _, in := range g.Inputs {
		if in.Const != nil {
			continue
		}
		shape, err := in.StaticShape()
		if err != nil {
			return nil, fmt.Errorf("input %q: %w (bind it with --shape)", in.Name, err)
		}
		size, err := graph.ByteSize(in.DType, in.Shape)
		if err == nil {
			err = sysmem.CheckBytes(size, fmt.Sprintf("random data for input %q (%v %v)", in.Name, in.DType, in.Shape))
		}
		if err != nil {
			return nil, fmt.Errorf("input %q: %w", in.Name, err)
		}
		t := graph.NewTensor(in.DType, shape...)
		switch d := t.Data.(type) {
		case []float32:
			for i := range d {
				d[i] = float32(scale * (r.Float64()*2 - 1))
			}
		case []float64:
			for i := range d {
				d[i] = scale * (r.Float64()*2 - 1)
			}
		case []int64:
			for i := range d {
				d[i] = int64(r.IntN(2))
			}
		case []int32:
			for i := range d {
				d[i] = int32(r.IntN(2))
			}
		case []bool:
			for i := range d {
				d[i] = r.IntN(2) == 1
			}
		default:
			return nil, fmt.Errorf("input %q: cannot generate random %v data", in.Name, in.DType)
		}
		out[in.Name] = t
	}
	return out, nil
}
