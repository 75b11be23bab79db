package nn

import (
	"math"
	"testing"
)

func naiveMatMul(ta, tb bool, m, n, k int, a, b []float64) []float64 {
	c := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for l := 0; l < k; l++ {
				av := a[i*k+l]
				if ta {
					av = a[l*m+i]
				}
				bv := b[l*n+j]
				if tb {
					bv = b[j*k+l]
				}
				s += av * bv
			}
			c[i*n+j] = s
		}
	}
	return c
}

func to32(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

func TestMatMul(t *testing.T) {
	for _, sz := range []struct{ m, n, k int }{{1, 1, 1}, {3, 5, 7}, {700, 9, 13}, {6, 5, 2000}, {0, 3, 4}} {
		rng := newRNG(8)
		a, b := randVec(rng, sz.m*sz.k), randVec(rng, sz.k*sz.n)
		c0 := randVec(rng, sz.m*sz.n)
		for _, tc := range []struct {
			name   string
			ta, tb bool
			f64    func(m, n, k int, a, b []float64, beta float64, c []float64)
			f32    func(m, n, k int, a, b []float32, beta float32, c []float32)
		}{
			{"NT", false, true, MatMulNT[float64], MatMulNT[float32]},
			{"NN", false, false, MatMulNN[float64], MatMulNN[float32]},
			{"TN", true, false, MatMulTN[float64], MatMulTN[float32]},
		} {
			want := naiveMatMul(tc.ta, tc.tb, sz.m, sz.n, sz.k, a, b)
			for i := range want {
				want[i] += 0.5 * c0[i]
			}
			c := append([]float64(nil), c0...)
			tc.f64(sz.m, sz.n, sz.k, a, b, 0.5, c)
			c32 := to32(c0)
			tc.f32(sz.m, sz.n, sz.k, to32(a), to32(b), 0.5, c32)
			for i := range want {
				if math.Abs(c[i]-want[i]) > 1e-9*(1+math.Abs(want[i])) {
					t.Fatalf("%s %v: c[%d] = %v, want %v", tc.name, sz, i, c[i], want[i])
				}
				if math.Abs(float64(c32[i])-want[i]) > 1e-3*(1+math.Abs(want[i])) {
					t.Fatalf("%s float32 %v: c[%d] = %v, want %v", tc.name, sz, i, c32[i], want[i])
				}
			}
		}
	}
}

func TestOrthogonal(t *testing.T) {
	for _, sh := range [][2]int{{4, 4}, {3, 7}, {9, 2}} {
		p := NewParam[float64]("w", sh[0], sh[1])
		Orthogonal(p, 2, newRNG(9))
		rows, cols := sh[0], sh[1]
		// The shorter side is orthonormal (times gain 2).
		n, m := rows, cols
		at := func(i, j int) float64 { return p.Value[i*cols+j] }
		if rows > cols {
			n, m = cols, rows
			at = func(i, j int) float64 { return p.Value[j*cols+i] }
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for k := 0; k < m; k++ {
					s += at(i, k) * at(j, k)
				}
				want := 0.0
				if i == j {
					want = 4
				}
				if math.Abs(s-want) > 1e-9 {
					t.Errorf("%v: <%d,%d> = %v, want %v", sh, i, j, s, want)
				}
			}
		}
	}
}

func TestAdamStep(t *testing.T) {
	p := NewParam[float64]("p", 2)
	p.Value[0], p.Value[1] = 1, -1
	p.Grad[0], p.Grad[1] = 0.5, -2
	a := NewAdam[float64](0.1)
	a.Step([]*Param[float64]{p})
	// First step: m̂ = g, v̂ = g², update = lr * g / (|g| + eps).
	for i, g := range []float64{0.5, -2} {
		want := []float64{1, -1}[i] - 0.1*g/(math.Abs(g)+1e-5)
		if math.Abs(p.Value[i]-want) > 1e-12 {
			t.Errorf("value[%d] = %v, want %v", i, p.Value[i], want)
		}
	}
}

func TestClipGradNorm(t *testing.T) {
	p := NewParam[float32]("p", 2)
	p.Grad[0], p.Grad[1] = 3, 4
	if n := ClipGradNorm([]*Param[float32]{p}, 1); n != 5 {
		t.Errorf("norm %v, want 5", n)
	}
	if g := GradNorm([]*Param[float32]{p}); math.Abs(g-1) > 1e-6 {
		t.Errorf("clipped norm %v, want 1", g)
	}
}
