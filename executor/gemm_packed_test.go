package executor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// naiveGemm returns alpha*op(A)*op(B) + beta*C in float64 (C not read
// when beta is 0).
func naiveGemm[T floatT](tA, tB bool, m, n, k int, alpha float64, a []T, lda int, b []T, ldb int, beta float64, c []T, ldc int) []float64 {
	out := make([]float64, m*n)
	for i := range m {
		for j := range n {
			s := 0.0
			for p := range k {
				ai, bi := i*lda+p, p*ldb+j
				if tA {
					ai = p*lda + i
				}
				if tB {
					bi = j*ldb + p
				}
				av, bv := a[ai], b[bi]
				s += float64(av) * float64(bv)
			}
			out[i*n+j] = alpha * s
			if beta != 0 {
				out[i*n+j] += beta * float64(c[i*ldc+j])
			}
		}
	}
	return out
}

func randSlice[T floatT](r *rand.Rand, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(2*r.Float64() - 1)
	}
	return s
}

// testPackedGemm checks gemm on T against naiveGemm over shapes around
// the kernel's and the packing's block edges, every transpose, beta 0
// (C holding NaN, which must not be read) and 1.5, and leading dimensions
// wider than the matrices.
func testPackedGemm[T floatT](t *testing.T, tol float64) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, sz := range [][3]int{{3, 8, 4}, {6, 16, 1}, {7, 17, 5}, {12, 9, 33}, {72, 192, 256}, {73, 193, 257}, {130, 70, 300}, {197, 64, 197}, {216, 24, 16}, {217, 193, 257}, {433, 17, 9}, {5, 600, 40}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, beta := range []float64{0, 1.5} {
					name := fmt.Sprintf("%T %dx%dx%d tA=%v tB=%v beta=%v", T(0), m, n, k, tA, tB, beta)
					lda, ldb, ldc := k+3, n+1, n+2
					if tA {
						lda = m + 1
					}
					if tB {
						ldb = k + 2
					}
					rowsA, rowsB := m, k
					if tA {
						rowsA = k
					}
					if tB {
						rowsB = n
					}
					a, b := randSlice[T](r, rowsA*lda), randSlice[T](r, rowsB*ldb)
					c := randSlice[T](r, m*ldc)
					if beta == 0 {
						for i := range c {
							c[i] = T(math.NaN())
						}
					}
					want := naiveGemm(tA, tB, m, n, k, 0.75, a, lda, b, ldb, beta, c, ldc)
					gemm(2, tA, tB, m, n, k, T(0.75), a, lda, b, ldb, T(beta), c, ldc)
					for i := range m {
						for j := range n {
							got, w := float64(c[i*ldc+j]), want[i*n+j]
							if !(math.Abs(got-w) <= tol*math.Sqrt(float64(k))) {
								t.Fatalf("%s: C[%d][%d] = %v, want %v", name, i, j, got, w)
							}
						}
						for j := n; j < ldc; j++ {
							if beta != 0 && c[i*ldc+j] != c[i*ldc+j] {
								t.Fatalf("%s: C[%d][%d] beyond n written", name, i, j)
							}
						}
					}
				}
			}
		}
	}
}

func TestPackedGemm(t *testing.T) {
	if !haveGemmKernels {
		t.Skip("no GEMM kernels on this CPU: gemm uses gonum, which TestGemmAgainstNaive covers")
	}
	t.Run("float32", func(t *testing.T) { testPackedGemm[float32](t, 1e-5) })
	t.Run("float64", func(t *testing.T) { testPackedGemm[float64](t, 1e-12) })
}

// BenchmarkGemmGonum128x768x768 is BenchmarkGemm128x768x768 through gonum's
// Sgemm, the path before the packed kernels (and the one CPUs without
// AVX2 and FMA take).
func BenchmarkGemmGonum128x768x768(b *testing.B) {
	was := haveGemmKernels
	haveGemmKernels = false
	defer func() { haveGemmKernels = was }()
	BenchmarkGemm128x768x768(b)
}

// BenchmarkDgemm128x768x768 measures the float64 GEMM (the float64
// checks of rules and passes run on it).
func BenchmarkDgemm128x768x768(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	const m, k, n = 128, 768, 768
	a, w, c := randSlice[float64](r, m*k), randSlice[float64](r, k*n), make([]float64, m*n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gemm(NumCPU(), false, false, m, n, k, 1, a, k, w, n, 0, c, n)
	}
	b.ReportMetric(2*m*n*k/(b.Elapsed().Seconds()/float64(b.N))/1e9, "GFLOP/s")
}
