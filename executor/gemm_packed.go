package executor

import (
	"sync"
	"unsafe"
)

// Packed GEMM on the assembly kernels (AVX2 with FMA): C is cut into
// tiles of at most packMC rows and packNC columns, spread over the
// workers; for each block of packKC of the shared dimension a tile's
// part of op(B) is copied into panels of kernel-width columns and each
// panel of 6 rows of op(A) into a row-interleaved strip, and the kernel
// computes each 6-row by kernel-width block of the product in registers.
// Transposed operands cost nothing more: packing reads them either way.
// gonum's Sgemm ran 8-9 GFLOP/s a core on this project's machines
// (AxpyUnitary over rows of C); see docs/perf.md "The executor's GEMM".

const (
	kernelRows = 6
	packMC     = 216
	packNC     = 192
	packKC     = 256
)

// kernelCols returns the columns of T's kernel: 16 for float32, 8 for
// float64.
func kernelCols[T floatT]() int {
	var z T
	if _, ok := any(z).(float32); ok {
		return 16
	}
	return 8
}

// usePacked reports whether an m×n×k product goes through the packed
// kernels: when the CPU has them and the product fills at least half a
// kernel block (a vector times a matrix stays with gonum's loops).
func usePacked(m, n, k int) bool {
	return haveGemmKernels && m >= kernelRows/2 && n >= 8 && k >= 4
}

// packBuf is one worker's packing space: a strip of op(A), the panels of
// op(B) and the kernel's block of C.
type packBuf[T floatT] struct {
	a, b, c []T
}

// packFree holds the packing spaces not in use, per element type: a
// plain free list rather than a sync.Pool, which drops items at random
// under the race detector (a steady-state Run must not allocate, see
// TestSteadyStateAllocations).
var packFree struct {
	mu       sync.Mutex
	f32, f64 []any
}

// maxFreePackBufs bounds each free list: one space per worker in use at
// once, for a few executors running together.
const maxFreePackBufs = 16

// getPackBuf returns a packing space for T from its free list, or a new one.
func getPackBuf[T floatT]() *packBuf[T] {
	packFree.mu.Lock()
	list := &packFree.f64
	if kernelCols[T]() == 16 {
		list = &packFree.f32
	}
	if n := len(*list); n > 0 {
		p := (*list)[n-1].(*packBuf[T])
		*list = (*list)[:n-1]
		packFree.mu.Unlock()
		return p
	}
	packFree.mu.Unlock()
	nr := kernelCols[T]()
	return &packBuf[T]{
		a: make([]T, kernelRows*packKC),
		b: make([]T, packKC*roundUp(packNC, nr)),
		c: make([]T, kernelRows*nr),
	}
}

// putPackBuf returns p to its free list (dropped when the list is full).
func putPackBuf[T floatT](p *packBuf[T]) {
	packFree.mu.Lock()
	defer packFree.mu.Unlock()
	list := &packFree.f64
	if kernelCols[T]() == 16 {
		list = &packFree.f32
	}
	if len(*list) < maxFreePackBufs {
		*list = append(*list, p)
	}
}

// runPacked computes tiles [lo, hi) on the kernels, with a packing
// space from the pool.
func (g *gemmJob[T]) runPacked(lo, hi int) {
	buf := getPackBuf[T]()
	for job := lo; job < hi; job++ {
		i0, j0 := (job/g.tilesN)*g.tileM, (job%g.tilesN)*g.tileN
		packedTile(buf, g.tA, g.tB, i0, min(g.tileM, g.m-i0), j0, min(g.tileN, g.n-j0), g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, g.c, g.ldc)
	}
	putPackBuf(buf)
}

// packedTile computes the mm×nn tile of C at (i0, j0) over the whole
// shared dimension, a packKC block at a time.
func packedTile[T floatT](buf *packBuf[T], tA, tB bool, i0, mm, j0, nn, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	nr := kernelCols[T]()
	panels := (nn + nr - 1) / nr
	for l0 := 0; l0 < k; l0 += packKC {
		kc := min(packKC, k-l0)
		bt := beta
		if l0 > 0 {
			bt = 1
		}
		packB(buf.b[:panels*kc*nr], tB, b, ldb, l0, kc, j0, nn, nr)
		for ip := 0; ip < mm; ip += kernelRows {
			mr := min(kernelRows, mm-ip)
			packA(buf.a[:kc*kernelRows], tA, a, lda, i0+ip, mr, l0, kc)
			for jp := 0; jp < panels; jp++ {
				runKernel6(kc, buf.a, buf.b[jp*kc*nr:], buf.c)
				cols := min(nr, nn-jp*nr)
				for i := range mr {
					row := c[(i0+ip+i)*ldc+j0+jp*nr:][:cols]
					blk := buf.c[i*nr:][:cols]
					if bt == 0 {
						for j, v := range blk {
							row[j] = alpha * v
						}
					} else {
						for j, v := range blk {
							row[j] = alpha*v + bt*row[j]
						}
					}
				}
			}
		}
	}
}

// runKernel6 runs T's kernel over kc packed steps of a and b into c.
func runKernel6[T floatT](kc int, a, b, c []T) {
	switch aa := any(a).(type) {
	case []float32:
		sgemmKernel6x16(kc, unsafe.SliceData(aa), unsafe.SliceData(any(b).([]float32)), unsafe.SliceData(any(c).([]float32)))
	case []float64:
		dgemmKernel6x8(kc, unsafe.SliceData(aa), unsafe.SliceData(any(b).([]float64)), unsafe.SliceData(any(c).([]float64)))
	}
}

// packA copies rows i0..i0+mr of op(A), columns l0..l0+kc, into dst as
// kc steps of kernelRows values (rows past mr zero).
func packA[T floatT](dst []T, tA bool, a []T, lda, i0, mr, l0, kc int) {
	if mr < kernelRows {
		clear(dst)
	}
	if tA {
		// op(A)[i][p] = a[p*lda+i]: each step reads mr adjacent values.
		for p := range kc {
			copy(dst[p*kernelRows:][:mr], a[(l0+p)*lda+i0:][:mr])
		}
		return
	}
	for i := range mr {
		src := a[(i0+i)*lda+l0:][:kc]
		for p, v := range src {
			dst[p*kernelRows+i] = v
		}
	}
}

// packB copies rows l0..l0+kc of op(B), columns j0..j0+nn, into dst as
// panels of nr columns, each kc steps of nr values (columns past nn
// zero).
func packB[T floatT](dst []T, tB bool, b []T, ldb, l0, kc, j0, nn, nr int) {
	panels := (nn + nr - 1) / nr
	for jp := range panels {
		cols := min(nr, nn-jp*nr)
		pd := dst[jp*kc*nr:][:kc*nr]
		if cols < nr {
			clear(pd)
		}
		if tB {
			// op(B)[p][j] = b[j*ldb+p]: each column is a run of b.
			for j := range cols {
				src := b[(j0+jp*nr+j)*ldb+l0:][:kc]
				for p, v := range src {
					pd[p*nr+j] = v
				}
			}
			continue
		}
		for p := range kc {
			copy(pd[p*nr:][:cols], b[(l0+p)*ldb+j0+jp*nr:][:cols])
		}
	}
}
