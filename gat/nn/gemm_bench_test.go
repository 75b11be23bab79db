package nn

import "testing"

func benchMatMul(b *testing.B, f func(m, n, k int, a, w []float32, beta float32, c []float32)) {
	const m, n, k = 10000, 64, 64
	a, w, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	for i := range a {
		a[i] = float32(i%13) - 6.5
	}
	for i := range w {
		w[i] = float32(i%7) - 3.5
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f(m, n, k, a, w, 0, c)
	}
	b.ReportMetric(2*m*n*k*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkMatMulNT(b *testing.B) { benchMatMul(b, MatMulNT[float32]) }
func BenchmarkMatMulNN(b *testing.B) { benchMatMul(b, MatMulNN[float32]) }
func BenchmarkMatMulTN(b *testing.B) {
	benchMatMul(b, func(m, n, k int, a, w []float32, beta float32, c []float32) {
		MatMulTN(k, n, m, a, c, beta, w) // weight-gradient shape: 64×64 over 10000 rows
	})
}
