package runtime

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// GEMM through gonum's BLAS. The product is cut into tiles of at most
// gemmTileM rows and gemmTileN columns (small enough that gonum computes
// each serially) and tiles are spread over the executor's workers, so
// parallelism follows ExecOptions.Threads rather than GOMAXPROCS. The
// shared dimension is blocked by gemmTileK to keep the panel of B in cache.

const (
	gemmTileM = 64
	gemmTileN = 192
	gemmTileK = 256
)

var blasImpl gonum.Implementation

// gemm computes C = alpha*op(A)*op(B) + beta*C for row-major matrices,
// where op(A) is m×k and op(B) is k×n. threads bounds the workers.
func gemm[T floatT](threads int, tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			for j := range row {
				row[j] *= beta
			}
			if beta == 0 {
				clear(row)
			}
		}
		return
	}
	tilesM := (m + gemmTileM - 1) / gemmTileM
	tileN := gemmTileN
	// With few row tiles, narrower column tiles give every worker a share.
	if tilesM < 2*threads && n > 64 {
		want := (2*threads + tilesM - 1) / tilesM
		tileN = max(64, min(gemmTileN, roundUp((n+want-1)/want, 16)))
	}
	tilesN := (n + tileN - 1) / tileN
	jobs := tilesM * tilesN
	work := func(lo, hi int) {
		for job := lo; job < hi; job++ {
			i0 := (job / tilesN) * gemmTileM
			j0 := (job % tilesN) * tileN
			mm := min(gemmTileM, m-i0)
			nn := min(tileN, n-j0)
			gemmTile(tA, tB, mm, nn, k, alpha, a, lda, b, ldb, beta, c[i0*ldc+j0:], ldc, i0, j0)
		}
	}
	if chunks(threads, m*n, k) <= 1 || jobs == 1 {
		work(0, jobs)
		return
	}
	parallelFor(threads, jobs, m*n*k/jobs, work)
}

// gemmTile computes one tile whose top-left corner in C is (i0, j0),
// blocking the shared dimension.
func gemmTile[T floatT](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc, i0, j0 int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	if tA {
		ta = blas.Trans
	}
	if tB {
		tb = blas.Trans
	}
	for l0 := 0; l0 < k; l0 += gemmTileK {
		kk := min(gemmTileK, k-l0)
		var ao, bo int
		if tA {
			ao = l0*lda + i0
		} else {
			ao = i0*lda + l0
		}
		if tB {
			bo = j0*ldb + l0
		} else {
			bo = l0*ldb + j0
		}
		bt := beta
		if l0 > 0 {
			bt = 1
		}
		switch aa := any(a).(type) {
		case []float32:
			blasImpl.Sgemm(ta, tb, m, n, kk, float32(alpha), aa[ao:], lda, any(b).([]float32)[bo:], ldb, float32(bt), any(c).([]float32), ldc)
		case []float64:
			blasImpl.Dgemm(ta, tb, m, n, kk, float64(alpha), aa[ao:], lda, any(b).([]float64)[bo:], ldb, float64(bt), any(c).([]float64), ldc)
		}
	}
}

func roundUp(v, m int) int { return (v + m - 1) / m * m }
