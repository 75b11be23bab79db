package onnx

import (
	"encoding/binary"
	"reflect"
	"unsafe"
)

// nativeLittle reports whether the host stores numbers little-endian, as
// ONNX raw_data does; then typed slices convert to bytes by plain copies.
var nativeLittle = func() bool {
	x := uint16(1)
	b := (*[2]byte)(unsafe.Pointer(&x))
	return b[0] == 1 && binary.LittleEndian.Uint16(b[:]) == 1
}()

// fixed is the set of element types copied byte for byte.
type fixed interface {
	~float32 | ~float64 | ~int64 | ~int32 | ~uint32 | ~uint64 | ~int16 | ~uint16 | ~complex64 | ~complex128
}

// asBytes views s as bytes (valid only while s is alive and unmodified).
func asBytes[T fixed](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// hostBytes returns the bytes of d, a slice of fixed-size numbers, in host
// order; they alias d.
func hostBytes(d any) []byte {
	v := reflect.ValueOf(d)
	if v.Len() == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(v.UnsafePointer()), v.Len()*int(v.Type().Elem().Size()))
}

// copyNative copies little-endian raw bytes into dst when the host is
// little-endian and reports whether it did.
func copyNative[T fixed](dst []T, raw []byte) bool {
	if !nativeLittle {
		return false
	}
	copy(asBytes(dst), raw)
	return true
}
