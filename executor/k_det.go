package executor

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// Det: the determinant of each square matrix in the last two axes, by LU
// factorisation with partial pivoting in float64.

func init() {
	registerKernel(newDetKernel, "Det")
}

// detKernel is Det of count matrices of m x m elements.
type detKernel struct{ count, m int }

func newDetKernel(ni *nodeInfo) (kernel, error) {
	x := ni.in(0)
	if !isFloatDT(x.dt) {
		return nil, errDType("Det", x.dt)
	}
	m := x.shape[len(x.shape)-1]
	return detKernel{count: ni.out(0).n, m: m}, nil
}

func (k detKernel) scratchBytes() int { return 8 * k.m * k.m }

func (k detKernel) run(rc *runCtx, ins, outs []any) error {
	floatYX(rc, k, outs[0], ins[0], detRun[float32], detRun[float64])
	return nil
}

func detRun[T floatT](rc *runCtx, k detKernel, y, x []T) {
	m := k.m
	a := scratchAny(rc, graph.Float64, m*m).([]float64)
	for i := range k.count {
		for j, v := range x[i*m*m : (i+1)*m*m] {
			a[j] = float64(v)
		}
		y[i] = T(luDet(a, m))
	}
}

// luDet returns the determinant of the m x m row-major matrix a,
// overwriting a with its LU factors.
func luDet(a []float64, m int) float64 {
	det := 1.0
	for c := range m {
		p := c
		for r := c + 1; r < m; r++ {
			if math.Abs(a[r*m+c]) > math.Abs(a[p*m+c]) {
				p = r
			}
		}
		if a[p*m+c] == 0 {
			return 0
		}
		if p != c {
			for j := range m {
				a[c*m+j], a[p*m+j] = a[p*m+j], a[c*m+j]
			}
			det = -det
		}
		piv := a[c*m+c]
		det *= piv
		for r := c + 1; r < m; r++ {
			f := a[r*m+c] / piv
			for j := c + 1; j < m; j++ {
				a[r*m+j] -= f * a[c*m+j]
			}
		}
	}
	return det
}
