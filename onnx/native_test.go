package onnx

import (
	"bytes"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// TestToRawPortable checks that the portable encoding (used on big-endian
// hosts) writes the same little-endian bytes as the host-order view used
// on little-endian ones, for every fixed-size element type, and that both
// decodings read them back.
func TestToRawPortable(t *testing.T) {
	if !nativeLittle {
		t.Skip("the reference is the host-order view of a little-endian host")
	}
	tests := []struct {
		dt   graph.DType
		data any
		want []byte // the little-endian bytes; nil: compare with the host view
	}{
		{graph.Float32, []float32{1.5, -2, 3e-9}, nil},
		{graph.Float64, []float64{1.5, -2, 3e300}, nil},
		{graph.Int64, []int64{-1, 1 << 40, 7}, nil},
		{graph.Uint64, []uint64{1<<64 - 1, 3}, nil},
		{graph.Int32, []int32{-5, 1 << 30}, nil},
		{graph.Uint32, []uint32{1<<32 - 1, 9}, nil},
		{graph.Int16, []int16{-300, 12}, nil},
		{graph.Uint16, []uint16{65535, 1}, nil},
		{graph.Complex64, []complex64{complex(1, -2)}, nil},
		{graph.Complex128, []complex128{complex(-0.5, 4)}, nil},
		{graph.Int8, []int8{-1, 2, -128}, []byte{0xff, 2, 0x80}},
		{graph.Bool, []bool{true, false, true}, []byte{1, 0, 1}},
		{graph.Uint8, []uint8{0, 255}, []byte{0, 255}},
	}
	for _, tc := range tests {
		t.Run(tc.dt.String(), func(t *testing.T) {
			n := graph.DataLen(tc.data)
			tn := &graph.Tensor{DType: tc.dt, Shape: []int{n}, Data: tc.data}
			native, err := toRaw(tn, n)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = append([]byte(nil), native...)
			} else if !bytes.Equal(native, want) {
				t.Errorf("host order: % x, want % x", native, want)
			}
			nativeLittle = false
			portable, err := toRaw(tn, n)
			nativeLittle = true
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(portable, want) {
				t.Errorf("portable: % x, want % x", portable, want)
			}
			if tc.dt == graph.Uint8 {
				return // raw bytes are the data
			}
			for _, native := range []bool{true, false} {
				nativeLittle = native
				back, err := fromRaw(tc.dt, n, want)
				nativeLittle = true
				if err != nil {
					t.Fatal(err)
				}
				if got := (&graph.Tensor{DType: tc.dt, Shape: []int{n}, Data: back}); !got.Equal(tn) {
					t.Errorf("decoded (host order %v): %v, want %v", native, back, tc.data)
				}
			}
		})
	}
}
