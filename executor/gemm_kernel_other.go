//go:build !amd64

package executor

// haveGemmKernels is false off amd64: GEMM goes through gonum.
var haveGemmKernels = false

// sgemmKernel6x16 is the assembly kernel's contract in Go (never called
// when haveGemmKernels is false).
func sgemmKernel6x16(k int, a, b, c *float32) { panic("executor: no GEMM kernel on this architecture") }

// dgemmKernel6x8 is the float64 kernel's contract in Go (never called
// when haveGemmKernels is false).
func dgemmKernel6x8(k int, a, b, c *float64) { panic("executor: no GEMM kernel on this architecture") }
