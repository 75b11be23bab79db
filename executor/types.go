package executor

import (
	"fmt"
	"unsafe"

	"github.com/xrl-dev/xrl/graph"
)

// Element-type constraints of the kernels.
type (
	floatT interface{ ~float32 | ~float64 }
	intT   interface {
		~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
	}
	numT interface{ floatT | intT }
)

// supportedDTypes are the element types the executor stores and computes.
var supportedDTypes = map[graph.DType]bool{
	graph.Float32: true, graph.Float64: true,
	graph.Int64: true, graph.Int32: true, graph.Int16: true, graph.Int8: true,
	graph.Uint64: true, graph.Uint32: true, graph.Uint16: true, graph.Uint8: true,
	graph.Bool: true,
}

// SupportsDType reports whether the Go executor can hold tensors of dt.
func SupportsDType(dt graph.DType) bool { return supportedDTypes[dt] }

// elemSize returns the in-memory size of one element of dt (bool: 1).
func elemSize(dt graph.DType) int {
	if dt == graph.Bool {
		return 1
	}
	return dt.Size()
}

// rawPtr returns the address of the first element of a typed slice, its
// length and its element size.
func rawPtr(d any) (unsafe.Pointer, int, int) {
	switch s := d.(type) {
	case []float32:
		return unsafe.Pointer(unsafe.SliceData(s)), len(s), 4
	case []float64:
		return unsafe.Pointer(unsafe.SliceData(s)), len(s), 8
	case []int64:
		return unsafe.Pointer(unsafe.SliceData(s)), len(s), 8
	case []int32:
		return unsafe.Pointer(unsafe.SliceData(s)), len(s), 4
	case []int16:
		return unsafe.Pointer(unsafe.SliceData(s)), len(s), 2
	case []int8:
		return unsafe.Pointer(unsafe.SliceData(s)), len(s), 1
	case []uint64:
		return unsafe.Pointer(unsafe.SliceData(s)), len(s), 8
	case []uint32:
		return unsafe.Pointer(unsafe.SliceData(s)), len(s), 4
	case []uint16:
		return unsafe.Pointer(unsafe.SliceData(s)), len(s), 2
	case []uint8:
		return unsafe.Pointer(unsafe.SliceData(s)), len(s), 1
	case []bool:
		return unsafe.Pointer(unsafe.SliceData(s)), len(s), 1
	}
	panic(fmt.Sprintf("runtime: unsupported slice type %T", d))
}

// words reinterprets a typed slice as a slice of same-sized unsigned words
// so that data-movement kernels need one instantiation per element size.
// The caller must check that sizeof(W) equals the element size.
func words[W uint8 | uint16 | uint32 | uint64](d any) []W {
	p, n, _ := rawPtr(d)
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*W)(p), n)
}

// sizeOfData returns the element size of a typed slice.
func sizeOfData(d any) int {
	_, _, sz := rawPtr(d)
	return sz
}

// makeData returns a zeroed slice of n elements of dt's Go type.
func makeData(dt graph.DType, n int) any {
	switch dt {
	case graph.Float32:
		return make([]float32, n)
	case graph.Float64:
		return make([]float64, n)
	case graph.Int64:
		return make([]int64, n)
	case graph.Int32:
		return make([]int32, n)
	case graph.Int16:
		return make([]int16, n)
	case graph.Int8:
		return make([]int8, n)
	case graph.Uint64:
		return make([]uint64, n)
	case graph.Uint32:
		return make([]uint32, n)
	case graph.Uint16:
		return make([]uint16, n)
	case graph.Uint8:
		return make([]uint8, n)
	case graph.Bool:
		return make([]bool, n)
	}
	panic(fmt.Sprintf("runtime: makeData of unsupported dtype %v", dt))
}

// sliceData returns d[:n] for a typed slice d.
func sliceData(d any, n int) any {
	switch s := d.(type) {
	case []float32:
		return s[:n]
	case []float64:
		return s[:n]
	case []int64:
		return s[:n]
	case []int32:
		return s[:n]
	case []int16:
		return s[:n]
	case []int8:
		return s[:n]
	case []uint64:
		return s[:n]
	case []uint32:
		return s[:n]
	case []uint16:
		return s[:n]
	case []uint8:
		return s[:n]
	case []bool:
		return s[:n]
	}
	panic(fmt.Sprintf("runtime: unsupported slice type %T", d))
}

// copyData copies src into dst (same element type); it returns the count.
func copyData(dst, src any) int {
	pd, nd, sz := rawPtr(dst)
	ps, ns, _ := rawPtr(src)
	n := min(nd, ns)
	if n == 0 {
		return 0
	}
	copy(unsafe.Slice((*byte)(pd), n*sz), unsafe.Slice((*byte)(ps), n*sz))
	return n
}

// cloneData returns a copy of a typed slice.
func cloneData(dt graph.DType, src any) any {
	d := makeData(dt, graph.DataLen(src))
	copyData(d, src)
	return d
}

// zeroData sets every element of d to its zero value.
func zeroData(d any) {
	p, n, sz := rawPtr(d)
	if n == 0 {
		return
	}
	clear(unsafe.Slice((*byte)(p), n*sz))
}

// viewAs returns n elements of type dt laid over the raw memory mem, which
// must hold at least n*elemSize(dt) bytes.
func viewAs(dt graph.DType, mem []uint64, n int) any {
	if n == 0 {
		return makeData(dt, 0)
	}
	p := unsafe.Pointer(unsafe.SliceData(mem))
	switch dt {
	case graph.Float32:
		return unsafe.Slice((*float32)(p), n)
	case graph.Float64:
		return unsafe.Slice((*float64)(p), n)
	case graph.Int64:
		return unsafe.Slice((*int64)(p), n)
	case graph.Int32:
		return unsafe.Slice((*int32)(p), n)
	case graph.Int16:
		return unsafe.Slice((*int16)(p), n)
	case graph.Int8:
		return unsafe.Slice((*int8)(p), n)
	case graph.Uint64:
		return unsafe.Slice((*uint64)(p), n)
	case graph.Uint32:
		return unsafe.Slice((*uint32)(p), n)
	case graph.Uint16:
		return unsafe.Slice((*uint16)(p), n)
	case graph.Uint8:
		return unsafe.Slice((*uint8)(p), n)
	case graph.Bool:
		return unsafe.Slice((*bool)(p), n)
	}
	panic(fmt.Sprintf("runtime: viewAs of unsupported dtype %v", dt))
}

// scratchView returns n elements of type T from the shared scratch area,
// starting at byte offset off (a multiple of 8).
func scratchView[T any](rc *runCtx, off, n int) []T {
	if n == 0 {
		return nil
	}
	var z T
	need := off + n*int(unsafe.Sizeof(z))
	if need > 8*len(rc.scratch) {
		panic(fmt.Sprintf("runtime: scratch overflow (%d > %d bytes)", need, 8*len(rc.scratch)))
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&rc.scratch[off/8])), n)
}

// words8 rounds a byte count up to whole 8-byte words.
func words8(bytes int) int { return (bytes + 7) / 8 }
