package nn

import "math"

// Param is one trainable tensor: its values and the gradient buffer that
// backward passes accumulate into. Value and Grad have the same length,
// the product of Shape.
type Param[F Float] struct {
	// Name identifies the tensor in checkpoints ("gat2.w").
	Name string
	// Shape is the tensor's shape; weights of a linear map are [out, in].
	Shape []int
	// Value holds the parameters, row-major.
	Value []F
	// Grad accumulates dLoss/dValue.
	Grad []F
}

// NewParam returns a zero-valued parameter of the given shape.
func NewParam[F Float](name string, shape ...int) *Param[F] {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return &Param[F]{Name: name, Shape: append([]int(nil), shape...), Value: make([]F, n), Grad: make([]F, n)}
}

// ZeroGrad clears the gradient buffers of ps.
func ZeroGrad[F Float](ps []*Param[F]) {
	for _, p := range ps {
		clear(p.Grad)
	}
}

// GradNorm returns the Euclidean norm of all gradients of ps together.
func GradNorm[F Float](ps []*Param[F]) float64 {
	var s float64
	for _, p := range ps {
		for _, g := range p.Grad {
			s += float64(g) * float64(g)
		}
	}
	return math.Sqrt(s)
}

// ClipGradNorm scales all gradients of ps so that their global norm is at
// most maxNorm, and returns the norm before clipping.
func ClipGradNorm[F Float](ps []*Param[F], maxNorm float64) float64 {
	n := GradNorm(ps)
	if n > maxNorm && n > 0 {
		s := F(maxNorm / n)
		for _, p := range ps {
			for i := range p.Grad {
				p.Grad[i] *= s
			}
		}
	}
	return n
}

// Count returns the number of scalar parameters in ps.
func Count[F Float](ps []*Param[F]) int {
	n := 0
	for _, p := range ps {
		n += len(p.Value)
	}
	return n
}
