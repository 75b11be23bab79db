package executor

import "golang.org/x/sys/cpu"

// haveGemmKernels reports whether the packed GEMM's assembly kernels
// (AVX2 with FMA) run on this CPU.
var haveGemmKernels = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// sgemmKernel6x16 sets c[i*16+j] (i < 6, j < 16) to the sum over p < k of
// a[p*6+i]*b[p*16+j]: a holds k columns of 6 packed rows of A, b k rows
// of 16 packed columns of B, c 96 elements. Implemented in assembly.
//
//go:noescape
func sgemmKernel6x16(k int, a, b, c *float32)

// dgemmKernel6x8 is sgemmKernel6x16 in float64 with 8 packed columns of B
// (c holds 48 elements). Implemented in assembly.
//
//go:noescape
func dgemmKernel6x8(k int, a, b, c *float64)
