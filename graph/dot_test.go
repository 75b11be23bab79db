package graph

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./graph -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (rerun with -update if the change is intended):\n%s", path, got)
	}
}

func TestWriteDOT(t *testing.T) {
	b := NewBuilder(`conv "block"`)
	x := b.Input("x", Float32, 1, 3, 8, 8)
	w := b.Const("w", NewTensor(Float32, 4, 3, 3, 3))
	conv := b.Op("Conv", []*Value{x, w}, Attrs{"pads": IntsAttr(1, 1, 1, 1), "strides": IntsAttr(1, 1)})
	relu := b.Op("Relu", []*Value{conv}, nil)
	parts := b.OpN("Split", []*Value{relu, b.Const("split", FromInt64([]int64{1, 3}, 2))}, Attrs{"axis": IntAttr(1)}, 2)
	b.Output(parts...)
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	// An opaque node with a recorded output shape.
	opq := &Value{Name: "custom_out"}
	opq.SetStatic(Float32, []int{1, 3, 8, 8})
	g.Nodes = append(g.Nodes, &Node{Name: "custom", Op: "Custom", Domain: "com.example", Opaque: []byte{0},
		Inputs: []*Value{parts[1]}, Outputs: []*Value{opq}})
	g.Outputs = append(g.Outputs, opq)
	var buf bytes.Buffer
	if err := g.WriteDOT(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "conv_block.dot.golden", buf.Bytes())
}
