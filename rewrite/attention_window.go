package rewrite

import (
	"github.com/xrl-dev/xrl/graph"
)

// Shifted windows. torchvision's Swin adds to the scores of a shifted
// window block [W, N, L, L] (W windows of the one image, N heads, L
// positions a window) a mask per window, through a view of the windows
// per image: Reshape to [1, W, N, L, L], Add of a constant [1, W, 1, L,
// L], Reshape back. With the image batch fixed at 1 that is the scores
// plus the constant viewed as [W, 1, L, L]; together with the relative
// position bias added before it ([1, N, L, L]) it is one constant [W, N,
// L, L], which Attention takes as its attention_bias.

// windowMask matches the scores s of a shifted window block as above and
// records in m the sum of the window mask and of a constant bias added
// before it (if any) as a new constant of m's dtype dt, or fails. It
// returns the scores without either.
func (f *attnFuser) windowMask(m *attnMatch, s *graph.Value, dt graph.DType) (*graph.Value, bool) {
	xs := dims(s)
	if len(xs) != 4 || !xs.Fixed() || dt != graph.Float32 && dt != graph.Float64 {
		return nil, false
	}
	back, ok := f.from(s, "Reshape")
	if !ok {
		return nil, false
	}
	add, ok := f.from(back.Input(0), "Add")
	if !ok {
		return nil, false
	}
	for i := 0; i < 2; i++ {
		c, view := add.Input(1-i), add.Input(i)
		cs := shape(c)
		if !c.IsConst() || c.DType != dt || len(cs) != 5 || cs[0] != 1 {
			continue
		}
		split, ok := f.from(view, "Reshape")
		if !ok {
			continue
		}
		x := split.Input(0)
		vs := dims(view)
		if !dims(x).Equal(xs) || len(vs) != 5 || !isFixed(vs[0], 1) || !vs[1:].Equal(xs) {
			continue
		}
		mask := &graph.Tensor{DType: c.Const.DType, Shape: cs[1:], Data: c.Const.Data}
		nodes := []*graph.Node{back, add, split}
		scores := x
		if inner, ok := f.from(x, "Add"); ok {
			for j := 0; j < 2; j++ {
				b := inner.Input(1 - j)
				if bs := shape(b); b.IsConst() && b.DType == dt && len(bs) == 4 && bs[2] == cs[3] && bs[3] == cs[4] {
					if sum, ok := addBias4(b.Const, mask); ok {
						mask, scores = sum, inner.Input(j)
						nodes = append(nodes, inner)
					}
					break
				}
			}
		}
		ms := graph.Shape{fixedDim(int64(mask.Shape[0])), fixedDim(int64(mask.Shape[1])), fixedDim(int64(mask.Shape[2])), fixedDim(int64(mask.Shape[3]))}
		if !f.headBias(m, ms) {
			return nil, false
		}
		mk := &graph.Value{Name: f.unique(add.Name + "_window_bias"), Const: mask}
		mk.SetStatic(mask.DType, mask.Shape)
		m.mask = mk
		m.nodes = append(m.nodes, nodes...)
		return scores, true
	}
	return nil, false
}

// addBias4 returns a + b for 4-D float tensors of equal last two
// dimensions that broadcast on the first two, computed in their dtype
// (float32 sums rounded as ONNX Runtime's Add rounds them), or false.
func addBias4(a, b *graph.Tensor) (*graph.Tensor, bool) {
	if a.DType != b.DType || len(a.Shape) != 4 || len(b.Shape) != 4 || a.Shape[2] != b.Shape[2] || a.Shape[3] != b.Shape[3] {
		return nil, false
	}
	out := make([]int, 4)
	for k := range 2 {
		switch {
		case a.Shape[k] == b.Shape[k], b.Shape[k] == 1:
			out[k] = a.Shape[k]
		case a.Shape[k] == 1:
			out[k] = b.Shape[k]
		default:
			return nil, false
		}
	}
	out[2], out[3] = a.Shape[2], a.Shape[3]
	av, err1 := a.AsFloat64()
	bv, err2 := b.AsFloat64()
	if err1 != nil || err2 != nil {
		return nil, false
	}
	plane := out[2] * out[3]
	at := func(t []float64, sh []int, i, j, p int) float64 {
		return t[((i%sh[0])*sh[1]+j%sh[1])*plane+p]
	}
	sum := make([]float64, out[0]*out[1]*plane)
	for i := range out[0] {
		for j := range out[1] {
			for p := range plane {
				x, y := at(av, a.Shape, i, j, p), at(bv, b.Shape, i, j, p)
				v := x + y
				if a.DType == graph.Float32 {
					v = float64(float32(x) + float32(y))
				}
				sum[(i*out[1]+j)*plane+p] = v
			}
		}
	}
	if a.DType == graph.Float32 {
		f := make([]float32, len(sum))
		for i, v := range sum {
			f[i] = float32(v)
		}
		return graph.FromFloat32(f, out...), true
	}
	return graph.FromFloat64(sum, out...), true
}
