package onnx

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
)

// bigModel builds a chain of 25 MatMuls with 1024x1024 float32 weights
// (100 MiB of initializers).
func bigModel(tb testing.TB) *graph.Model {
	tb.Helper()
	const layers, width = 25, 1024
	b := graph.NewBuilder("big")
	x := b.Input("x", graph.Float32, 1, width)
	for i := 0; i < layers; i++ {
		w := graph.NewTensor(graph.Float32, width, width)
		data := w.Float32s()
		for j := range data {
			data[j] = float32(j%97) * 0.01
		}
		x = b.Op("MatMul", []*graph.Value{x, b.Const("w", w)}, nil)
	}
	b.Output(x)
	return graphtest.Model(tb, b)
}

func BenchmarkEncode(b *testing.B) {
	m := bigModel(b)
	enc, err := Encode(m)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(enc)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Encode(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	enc, err := Encode(bigModel(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(enc)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(enc, DecodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
