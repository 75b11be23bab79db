package nn

import "math/rand/v2"

// Linear is the affine map y = x Wᵀ + b applied to each row x of a
// table, with W of shape [Out, In] and b of length Out.
type Linear[F Float] struct {
	In, Out int
	W, B    *Param[F]
	// wt holds Wᵀ during Backward, so the input gradient is one NT product.
	wt []F
}

// NewLinear returns a linear map whose parameters are named name+".w"
// and name+".b", with W orthogonal times gain and b zero.
func NewLinear[F Float](name string, in, out int, gain float64, rng *rand.Rand) *Linear[F] {
	l := &Linear[F]{In: in, Out: out, W: NewParam[F](name+".w", out, in), B: NewParam[F](name+".b", out)}
	Orthogonal(l.W, gain, rng)
	return l
}

// Params returns W and b.
func (l *Linear[F]) Params() []*Param[F] { return []*Param[F]{l.W, l.B} }

// Forward writes y (rows×Out) = x (rows×In) Wᵀ + b.
func (l *Linear[F]) Forward(x []F, rows int, y []F) {
	y = y[:rows*l.Out]
	for r := 0; r < rows; r++ {
		copy(y[r*l.Out:(r+1)*l.Out], l.B.Value)
	}
	MatMulNT(rows, l.Out, l.In, x, l.W.Value, 1, y)
}

// Backward adds dyᵀ x to W.Grad and the column sums of dy to B.Grad, and
// writes dx = dy W unless dx is nil.
func (l *Linear[F]) Backward(x, dy []F, rows int, dx []F) {
	MatMulTN(l.Out, l.In, rows, dy, x, 1, l.W.Grad)
	ColSumAdd(dy, rows, l.Out, l.B.Grad)
	if dx == nil {
		return
	}
	l.wt = grow(l.wt, l.In*l.Out)
	Transpose(l.W.Value, l.Out, l.In, l.wt)
	MatMulNT(rows, l.In, l.Out, dy, l.wt, 0, dx)
}

// ColSumAdd adds the column sums of x (rows×cols) to dst (cols).
func ColSumAdd[F Float](x []F, rows, cols int, dst []F) {
	dst = dst[:cols]
	for r := 0; r < rows; r++ {
		for c, v := range x[r*cols : (r+1)*cols] {
			dst[c] += v
		}
	}
}

// Transpose writes the transpose of x (rows×cols) into dst (cols×rows).
func Transpose[F Float](x []F, rows, cols int, dst []F) {
	for r := 0; r < rows; r++ {
		for c, v := range x[r*cols : (r+1)*cols] {
			dst[c*rows+r] = v
		}
	}
}
