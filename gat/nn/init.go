package nn

import (
	"math"
	"math/rand/v2"
)

// Orthogonal fills p (shape [rows, cols]) with a random matrix whose rows
// (if rows <= cols) or columns (otherwise) are orthonormal, times gain.
// It orthonormalises a Gaussian matrix by Gram-Schmidt, which gives the
// Q factor of its QR decomposition with a positive-diagonal R.
func Orthogonal[F Float](p *Param[F], gain float64, rng *rand.Rand) {
	rows, cols := p.Shape[0], len(p.Value)/p.Shape[0]
	// Work on vectors of length long, count short of them.
	short, long := rows, cols
	if rows > cols {
		short, long = cols, rows
	}
	v := make([][]float64, short)
	for i := range v {
		v[i] = make([]float64, long)
		for j := range v[i] {
			v[i][j] = rng.NormFloat64()
		}
		for k := 0; k < i; k++ { // modified Gram-Schmidt
			var d float64
			for j := range v[i] {
				d += v[i][j] * v[k][j]
			}
			for j := range v[i] {
				v[i][j] -= d * v[k][j]
			}
		}
		var n float64
		for _, x := range v[i] {
			n += x * x
		}
		n = math.Sqrt(n)
		for j := range v[i] {
			v[i][j] /= n
		}
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			var x float64
			if rows > cols {
				x = v[c][r]
			} else {
				x = v[r][c]
			}
			p.Value[r*cols+c] = F(gain * x)
		}
	}
}

// Normal fills p with Gaussian values of the given standard deviation.
func Normal[F Float](p *Param[F], std float64, rng *rand.Rand) {
	for i := range p.Value {
		p.Value[i] = F(std * rng.NormFloat64())
	}
}
