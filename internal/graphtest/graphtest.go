// Package graphtest provides the helpers that tests of several packages use
// to finish a graph.Builder: the graph or model, or a stop of the test.
package graphtest

import (
	"compress/gzip"
	"io"
	"os"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// Graph returns b's graph, stopping tb when b cannot build it.
func Graph(tb testing.TB, b *graph.Builder) *graph.Graph {
	tb.Helper()
	g, err := b.Graph()
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// Model returns a model of b's graph, stopping tb when b cannot build it.
func Model(tb testing.TB, b *graph.Builder) *graph.Model {
	tb.Helper()
	return &graph.Model{Graph: Graph(tb, b)}
}

// Build returns the graph that f adds to a fresh builder, stopping tb when it
// cannot be built.
func Build(tb testing.TB, f func(b *graph.Builder)) *graph.Graph {
	tb.Helper()
	b := graph.NewBuilder("test")
	f(b)
	return Graph(tb, b)
}

// Gunzip returns the decompressed contents of the gzip file at path,
// failing tb on any error.
func Gunzip(tb testing.TB, path string) []byte {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return b
}
