package executor

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// GEMM on the packed assembly kernels where the CPU has them (see
// gemm_packed.go), else through gonum's BLAS. In the gonum path the product is cut into tiles of at most
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
	packed := usePacked(m, n, k)
	tileM, maxN := gemmTileM, gemmTileN
	if packed {
		tileM, maxN = packMC, packNC
	}
	tilesM := (m + tileM - 1) / tileM
	tileN := maxN
	// With few row tiles, narrower column tiles give every worker a share.
	if tilesM < 2*threads && n > 64 {
		want := (2*threads + tilesM - 1) / tilesM
		tileN = max(64, min(maxN, roundUp((n+want-1)/want, 16)))
	}
	tilesN := (n + tileN - 1) / tileN
	jobs := tilesM * tilesN
	g := gemmJob[T]{tA: tA, tB: tB, m: m, n: n, k: k, alpha: alpha, beta: beta, a: a, b: b, c: c,
		lda: lda, ldb: ldb, ldc: ldc, tileM: tileM, tileN: tileN, tilesN: tilesN, packed: packed}
	if chunks(threads, m*n, k) <= 1 || jobs == 1 {
		g.run(0, jobs)
		return
	}
	gp := new(gemmJob[T])
	*gp = g
	parallelFor(threads, jobs, m*n*k/jobs, func(lo, hi int) { gp.run(lo, hi) })
}

// gemmJob holds one product cut into tiles.
type gemmJob[T floatT] struct {
	tA, tB        bool
	m, n, k       int
	alpha, beta   T
	a, b, c       []T
	lda, ldb, ldc int
	tileM         int
	tileN, tilesN int
	// packed: the tiles run on the packed kernels (gemm_packed.go).
	packed bool
}

// run computes tiles [lo, hi): row tile job/tilesN, column tile
// job%tilesN, blocking the shared dimension.
func (g *gemmJob[T]) run(lo, hi int) {
	if g.packed {
		g.runPacked(lo, hi)
		return
	}
	for job := lo; job < hi; job++ {
		i0 := (job / g.tilesN) * g.tileM
		j0 := (job % g.tilesN) * g.tileN
		mm := min(g.tileM, g.m-i0)
		nn := min(g.tileN, g.n-j0)
		for l0 := 0; l0 < g.k; l0 += gemmTileK {
			bt := g.beta
			if l0 > 0 {
				bt = 1
			}
			gemmTile(g.tA, g.tB, mm, nn, min(gemmTileK, g.k-l0), g.alpha, g.a, g.lda, g.b, g.ldb, bt, g.c[i0*g.ldc+j0:], g.ldc, i0, j0, l0)
		}
	}
}

// gemmTile computes one tile of at most gemmTileM × gemmTileN (which
// gonum computes serially) whose top-left corner in C is (i0, j0), over
// the shared-dimension block starting at l0.
func gemmTile[T floatT](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc, i0, j0, l0 int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	var ao, bo int
	if tA {
		ta, ao = blas.Trans, l0*lda+i0
	} else {
		ao = i0*lda + l0
	}
	if tB {
		tb, bo = blas.Trans, j0*ldb+l0
	} else {
		bo = l0*ldb + j0
	}
	switch aa := any(a).(type) {
	case []float32:
		blasImpl.Sgemm(ta, tb, m, n, k, float32(alpha), aa[ao:], lda, any(b).([]float32)[bo:], ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		blasImpl.Dgemm(ta, tb, m, n, k, float64(alpha), aa[ao:], lda, any(b).([]float64)[bo:], ldb, float64(beta), any(c).([]float64), ldc)
	}
}

func roundUp(v, m int) int { return (v + m - 1) / m * m }
