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

// hostBytes returns the bytes of d, a slice of fixed-size numbers, in host
// order; they alias d.
func hostBytes(d any) []byte {
	v := reflect.ValueOf(d)
	if v.Len() == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(v.UnsafePointer()), v.Len()*int(v.Type().Elem().Size()))
}
