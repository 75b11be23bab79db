package nn

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

var impl gonum.Implementation

// gemmChunk is the row-block size handed to gonum: small enough that
// gonum runs it serially, so the split across goroutines is ours.
const gemmChunk = 128

// gemm computes c = beta*c + op(a) op(b) through gonum's BLAS for the
// element type F; op transposes when the flag is set.
func gemm[F Float](ta, tb bool, m, n, k int, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	tA, tB := blas.NoTrans, blas.NoTrans
	if ta {
		tA = blas.Trans
	}
	if tb {
		tB = blas.Trans
	}
	switch a := any(a).(type) {
	case []float32:
		impl.Sgemm(tA, tB, m, n, k, 1, a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		impl.Dgemm(tA, tB, m, n, k, 1, a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
}

// MatMulNT computes c = beta*c + a bᵀ with a m×k, b n×k and c m×n,
// splitting the rows of a across goroutines.
func MatMulNT[F Float](m, n, k int, a, b []F, beta F, c []F) {
	matMulRows(true, m, n, k, a, b, k, beta, c)
}

// MatMulNN computes c = beta*c + a b with a m×k, b k×n and c m×n,
// splitting the rows of a across goroutines.
func MatMulNN[F Float](m, n, k int, a, b []F, beta F, c []F) {
	matMulRows(false, m, n, k, a, b, n, beta, c)
}

// matMulRows computes c = beta*c + a op(b), op transposing when tB, for
// MatMulNT and MatMulNN: b's leading dimension is ldb.
func matMulRows[F Float](tB bool, m, n, k int, a, b []F, ldb int, beta F, c []F) {
	if k == 0 {
		scale(c[:m*n], beta)
		return
	}
	Parallel((m+gemmChunk-1)/gemmChunk, 2, func(lo, hi int) {
		for r := lo * gemmChunk; r < hi*gemmChunk && r < m; r += gemmChunk {
			e := min(r+gemmChunk, m)
			gemm(false, tB, e-r, n, k, a[r*k:], k, b, ldb, beta, c[r*n:], n)
		}
	})
}

// tnPool recycles the per-goroutine partial sums of MatMulTN.
var tnPool sync.Pool

// MatMulTN computes c = beta*c + aᵀ b with a k×m, b k×n and c m×n. The
// long k dimension is split across goroutines, each summing into its own
// buffer; the partial sums are added in a fixed order.
func MatMulTN[F Float](m, n, k int, a, b []F, beta F, c []F) {
	p := runtime.GOMAXPROCS(0)
	if q := k / 512; q < p {
		p = q
	}
	if p <= 1 {
		gemm(true, false, m, n, k, a, m, b, n, beta, c, n)
		return
	}
	var parts [][]F
	if v, ok := tnPool.Get().(*[][]F); ok {
		parts = *v
	}
	for len(parts) < p {
		parts = append(parts, nil)
	}
	var wg sync.WaitGroup
	wg.Add(p - 1)
	for i := 1; i < p; i++ {
		parts[i] = grow(parts[i], m*n)
		go func(i int) {
			defer wg.Done()
			lo, hi := i*k/p, (i+1)*k/p
			gemm(true, false, m, n, hi-lo, a[lo*m:], m, b[lo*n:], n, 0, parts[i], n)
		}(i)
	}
	gemm(true, false, m, n, k/p, a, m, b, n, beta, c, n)
	wg.Wait()
	c = c[:m*n]
	for i := 1; i < p; i++ {
		for j, v := range parts[i][:m*n] {
			c[j] += v
		}
	}
	tnPool.Put(&parts)
}

func scale[F Float](x []F, s F) {
	if s == 0 {
		clear(x)
		return
	}
	for i := range x {
		x[i] *= s
	}
}
