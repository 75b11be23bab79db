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

// elemKind holds the operations on untyped data of one element type.
type elemKind struct {
	size  int
	make  func(n int) any
	view  func(p unsafe.Pointer, n int) any
	ptr   func(d any) (unsafe.Pointer, int)
	slice func(d any, n int) any
	fill  func(one any, n int) any
}

func kindOf[T any]() *elemKind {
	var z T
	return &elemKind{
		size: int(unsafe.Sizeof(z)),
		make: func(n int) any { return make([]T, n) },
		view: func(p unsafe.Pointer, n int) any { return unsafe.Slice((*T)(p), n) },
		ptr: func(d any) (unsafe.Pointer, int) {
			s := d.([]T)
			return unsafe.Pointer(unsafe.SliceData(s)), len(s)
		},
		slice: func(d any, n int) any { return d.([]T)[:n] },
		fill:  func(one any, n int) any { return repeat(one.([]T)[0], n) },
	}
}

// elemKinds is indexed by dtype: the element types the executor stores
// and computes; nil for the others.
var elemKinds = [...]*elemKind{
	graph.Float32: kindOf[float32](), graph.Float64: kindOf[float64](),
	graph.Int64: kindOf[int64](), graph.Int32: kindOf[int32](), graph.Int16: kindOf[int16](), graph.Int8: kindOf[int8](),
	graph.Uint64: kindOf[uint64](), graph.Uint32: kindOf[uint32](), graph.Uint16: kindOf[uint16](), graph.Uint8: kindOf[uint8](),
	graph.Bool: kindOf[bool](),
}

// kindOfDT returns dt's element kind, or nil when the executor cannot
// hold dt.
func kindOfDT(dt graph.DType) *elemKind {
	if dt < 0 || int(dt) >= len(elemKinds) {
		return nil
	}
	return elemKinds[dt]
}

// mustKind returns dt's element kind; what names the caller in the panic
// for an unsupported dtype (a programmer error: compile checks dtypes).
func mustKind(what string, dt graph.DType) *elemKind {
	k := kindOfDT(dt)
	if k == nil {
		panic(fmt.Sprintf("executor: %s of unsupported dtype %v", what, dt))
	}
	return k
}

// SupportsDType reports whether the Go executor can hold tensors of dt.
func SupportsDType(dt graph.DType) bool { return kindOfDT(dt) != nil }

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
	k := mustKind("rawPtr", dtOfData(d))
	p, n := k.ptr(d)
	return p, n, k.size
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

// moveWords calls the instance of f for the element size of dst (1, 2, 4 or 8
// bytes) with dst and src viewed as words of that size; a and b are passed through.
func moveWords[A, B any](a A, b B, dst, src any,
	f1 func(A, B, []uint8, []uint8), f2 func(A, B, []uint16, []uint16),
	f4 func(A, B, []uint32, []uint32), f8 func(A, B, []uint64, []uint64)) {
	switch sizeOfData(dst) {
	case 1:
		f1(a, b, words[uint8](dst), words[uint8](src))
	case 2:
		f2(a, b, words[uint16](dst), words[uint16](src))
	case 4:
		f4(a, b, words[uint32](dst), words[uint32](src))
	default:
		f8(a, b, words[uint64](dst), words[uint64](src))
	}
}

// sizeOfData returns the element size of a typed slice.
func sizeOfData(d any) int {
	_, _, sz := rawPtr(d)
	return sz
}

// makeData returns a zeroed slice of n elements of dt's Go type.
func makeData(dt graph.DType, n int) any { return mustKind("makeData", dt).make(n) }

// sliceData returns d[:n] for a typed slice d.
func sliceData(d any, n int) any { return mustKind("sliceData", dtOfData(d)).slice(d, n) }

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
	return mustKind("viewAs", dt).view(unsafe.Pointer(unsafe.SliceData(mem)), n)
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
