package onnx

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// controlFlowModels are models with If, Loop and Scan bodies: torch
// exports (testdata/controlflow) and ONNX's conformance cases.
var controlFlowModels = []struct {
	path   string
	op     string
	bodies int
}{
	{"../testdata/controlflow/vad_if.onnx", "If", 2},
	{"../testdata/controlflow/loop_mlp.onnx", "Loop", 1},
	{"../testdata/controlflow/loop_if.onnx", "Loop", 1}, // an If inside the Loop body
	{filepath.Join(conformanceDir, "node/test_if/model.onnx"), "If", 2},
	{filepath.Join(conformanceDir, "node/test_loop11/model.onnx"), "Loop", 1},
	{filepath.Join(conformanceDir, "node/test_scan9_sum/model.onnx"), "Scan", 1},
}

// TestControlFlowBodiesRoundTrip checks that If, Loop and Scan bodies are
// decoded into graphs with their outer-scope reads as inputs, that an
// unedited model is written back byte for byte, and that a body marked
// edited is encoded again into a model that decodes to the same bodies.
func TestControlFlowBodiesRoundTrip(t *testing.T) {
	for _, tc := range controlFlowModels {
		t.Run(filepath.Base(filepath.Dir(tc.path))+"/"+filepath.Base(tc.path), func(t *testing.T) {
			m, err := ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			n := findOp(m.Graph, tc.op)
			if n == nil {
				t.Fatalf("no %s node", tc.op)
			}
			if len(n.Bodies) != tc.bodies {
				t.Fatalf("%v has %d decoded bodies, want %d", n, len(n.Bodies), tc.bodies)
			}
			for _, b := range n.Bodies {
				if len(b.Graph.Nodes) == 0 || len(b.Graph.Outputs) == 0 {
					t.Errorf("body %s is empty", b.Attr)
				}
				for k, v := range b.OuterInputs() {
					if got := n.Implicit[b.Outer[k]].Name; got != v.Name {
						t.Errorf("body %s: outer input %q maps to %q", b.Attr, v.Name, got)
					}
				}
				if err := b.Graph.Validate(); err != nil {
					t.Errorf("body %s: %v", b.Attr, err)
				}
			}
			enc, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			enc2, err := Encode(m.Clone())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, enc2) {
				t.Errorf("a clone encodes differently")
			}
			for _, b := range n.Bodies {
				b.Edited = true
			}
			edited, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			m2, err := Decode(edited, DecodeOptions{Source: "re-encoded"})
			if err != nil {
				t.Fatal(err)
			}
			n2 := findOp(m2.Graph, tc.op)
			for i, b := range n.Bodies {
				if got, want := len(n2.Bodies[i].Graph.Nodes), len(b.Graph.Nodes); got < want {
					t.Errorf("body %s: %d nodes after re-encoding, want at least %d", b.Attr, got, want)
				}
				if got, want := len(n2.Bodies[i].OuterInputs()), len(b.OuterInputs()); got != want {
					t.Errorf("body %s: %d outer inputs after re-encoding, want %d", b.Attr, got, want)
				}
			}
			runPythonCheck(t, edited)
		})
	}
}

// findOp returns the first node of g running op.
func findOp(g *graph.Graph, op string) *graph.Node {
	for _, n := range g.Nodes {
		if n.Op == op {
			return n
		}
	}
	return nil
}

// runPythonCheck runs onnx.checker (with full type checking) on a model.
func runPythonCheck(t *testing.T, model []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.onnx")
	if err := os.WriteFile(path, model, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := runPython(t, pyFullCheck, path); out != "" {
		t.Errorf("onnx.checker rejects the re-encoded model: %s", out)
	}
}

// pyFullCheck checks the model named on stdin, printing the error if any.
const pyFullCheck = `
import sys, onnx
try:
    onnx.checker.check_model(onnx.load(sys.stdin.read()), full_check=True)
except Exception as e:
    print(str(e).replace('\n', ' '))
`

// TestControlFlowShapes checks shape inference through bodies: If outputs
// where the branches agree, Loop carried values, Scan states and stacked
// outputs, and a Loop's scan output left to observation.
func TestControlFlowShapes(t *testing.T) {
	tests := []struct {
		path    string
		bind    map[string][]int
		op      string
		want    [][]int // the node's output shapes; nil: inference must leave it undecided
		unknown bool    // the recorded output types are cleared first
	}{
		{"../testdata/controlflow/vad_if.onnx", map[string][]int{"x": {1, 512}}, "If", [][]int{{1, 1}}, false},
		{"../testdata/controlflow/vad_if.onnx", map[string][]int{"x": {3, 800}}, "If", [][]int{{3, 1}}, false},
		{"../testdata/controlflow/loop_mlp.onnx", map[string][]int{"x": {4, 32}}, "Loop", [][]int{{4, 32}}, false},
		{"../testdata/controlflow/loop_if.onnx", map[string][]int{"x": {3, 16}}, "Loop", [][]int{{3, 16}}, false},
		{filepath.Join(conformanceDir, "node/test_scan9_sum/model.onnx"), nil, "Scan", [][]int{{2}, {3, 2}}, false},
		{filepath.Join(conformanceDir, "node/test_loop11/model.onnx"), nil, "Loop", nil, true},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			m, err := ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if tc.unknown {
				for _, o := range findOp(m.Graph, tc.op).Outputs {
					o.ShapeKnown, o.Shape = false, nil
				}
			}
			err = m.Graph.BindShapes(tc.bind)
			if tc.unknown {
				if !graph.ShapeUnknown(err) {
					t.Fatalf("BindShapes: %v, want a ShapeUnknown error (observation path)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := findOp(m.Graph, tc.op)
			for i, want := range tc.want {
				got, err := n.Outputs[i].StaticShape()
				if err != nil || !slices.Equal(got, want) {
					t.Errorf("output %d: shape %v (%v), want %v", i, got, err, want)
				}
			}
			m.Graph.WalkBodies(func(n *graph.Node, b *graph.Body) {
				if !b.ShapesOK {
					t.Errorf("body %s: ShapesOK is false", b.Attr)
				}
				for _, bn := range b.Graph.Nodes {
					for _, o := range bn.Outputs {
						if o != nil && (!o.ShapeKnown || !o.Shape.Static()) {
							t.Errorf("body %s: %q has no static shape", b.Attr, o.Name)
						}
					}
				}
			})
		})
	}
}
