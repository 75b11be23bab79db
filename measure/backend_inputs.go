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
// integers read as indices by a Gather (token ids) are uniform below the
// size of the axis they index (the smallest such size when several Gathers
// read them), other integers are 0 or 1 (safe as indices and as
// boolean-like flags); bools are fair coin flips.
func RandomInputs(g *graph.Graph, seed uint64) (map[string]*graph.Tensor, error) {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	scale := 1.0
	if seed%3 == 0 {
		scale = 100
	}
	out := make(map[string]*graph.Tensor, len(g.Inputs))
	bounds := indexBounds(g)
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
			n := bounds[in]
			for i := range d {
				d[i] = int64(r.IntN(n))
			}
		case []int32:
			n := bounds[in]
			for i := range d {
				d[i] = int32(r.IntN(n))
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

// indexBounds returns, for each graph input, the exclusive upper bound of
// random integer data: the smallest size of an axis a Gather indexes with
// it, or 2 when no Gather reads it as indices.
func indexBounds(g *graph.Graph) map[*graph.Value]int {
	bounds := make(map[*graph.Value]int, len(g.Inputs))
	for _, in := range g.Inputs {
		bounds[in] = 2
	}
	seen := make(map[*graph.Value]bool, len(g.Inputs))
	for _, n := range g.Nodes {
		if n.Op != "Gather" || n.IsOpaque() || len(n.Inputs) < 2 || n.Inputs[0] == nil || n.Inputs[1] == nil {
			continue
		}
		idx, data := n.Inputs[1], n.Inputs[0]
		if _, ok := bounds[idx]; !ok || !data.ShapeKnown || len(data.Shape) == 0 {
			continue
		}
		axis := int(n.AttrInt("axis"))
		if axis < 0 {
			axis += len(data.Shape)
		}
		if axis < 0 || axis >= len(data.Shape) || !data.Shape[axis].Known() || data.Shape[axis].Value < 1 {
			continue
		}
		size := int(min(data.Shape[axis].Value, 1<<30))
		if !seen[idx] || size < bounds[idx] {
			bounds[idx] = size
		}
		seen[idx] = true
	}
	return bounds
}
