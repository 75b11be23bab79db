package graph

import (
	"encoding/binary"
	"unsafe"
)

// littleEndian reports whether the host stores numbers little-endian, the
// byte order Digest hashes in.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// rawBytes returns the memory of a []float32, []float64, []int64 or
// []int32 as bytes when the host is little-endian (the same bytes Digest
// would otherwise build element by element), so that large constants are
// hashed without a copy.
func rawBytes(data any) ([]byte, bool) {
	if !littleEndian {
		return nil, false
	}
	switch s := data.(type) {
	case []float32:
		return asBytes(s, 4), true
	case []float64:
		return asBytes(s, 8), true
	case []int64:
		return asBytes(s, 8), true
	case []int32:
		return asBytes(s, 4), true
	}
	return nil, false
}

func asBytes[T any](s []T, size int) []byte {
	if len(s) == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), size*len(s))
}
