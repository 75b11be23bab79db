package rewrite

import (
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

// sym returns the symbolic dimension named by expression e, of size v at
// the tuning binding.
func sym(t *testing.T, v int64, e string) graph.Dim {
	t.Helper()
	s, err := graph.ParseSym(e)
	if err != nil {
		t.Fatal(err)
	}
	return graph.SymDim(v, s)
}

func TestReshapeAndExpandSpecs(t *testing.T) {
	b, s := sym(t, 2, "batch"), sym(t, 5, "seq")
	bs := sym(t, 10, "batch*seq")
	n := func(v int64) graph.Dim { return fixedDim(v) }
	for _, c := range []struct {
		name     string
		op       string
		in, want graph.Shape
		spec     []int64 // nil: no constant says it
	}{
		{"head split", "Reshape", graph.Shape{b, s, n(256)}, graph.Shape{b, s, n(8), n(32)}, []int64{0, 0, 8, 32}},
		{"head merge", "Reshape", graph.Shape{b, s, n(8), n(32)}, graph.Shape{b, s, n(256)}, []int64{0, 0, 256}},
		{"grouped heads", "Reshape", graph.Shape{b, n(2), n(4), s, n(32)}, graph.Shape{b, n(8), s, n(32)}, []int64{0, 8, -1, 32}},
		{"rows", "Reshape", graph.Shape{b, s, n(64)}, graph.Shape{bs, n(64)}, []int64{-1, 64}},
		{"column", "Reshape", graph.Shape{s}, graph.Shape{s, n(1)}, []int64{0, 1}},
		{"two open", "Reshape", graph.Shape{bs, n(64)}, graph.Shape{b, s, n(64)}, nil},
		{"not the same size", "Reshape", graph.Shape{b, s, n(64)}, graph.Shape{b, n(64)}, nil},
		{"fixed", "Reshape", graph.Shape{n(2), n(6)}, graph.Shape{n(12)}, nil},
		{"a zero", "Reshape", graph.Shape{b, n(0)}, graph.Shape{b, n(0), n(1)}, nil},
		{"repeat kv", "Expand", graph.Shape{b, n(2), n(1), s, n(32)}, graph.Shape{b, n(2), n(4), s, n(32)}, []int64{1, 1, 4, 1, 1}},
		{"broadcast rank", "Expand", graph.Shape{s, n(1)}, graph.Shape{b, s, n(3)}, nil},
		{"new fixed axes", "Expand", graph.Shape{s, n(1)}, graph.Shape{n(3), s, n(4)}, []int64{3, 1, 4}},
		{"symbolic from 1", "Expand", graph.Shape{n(1), n(32)}, graph.Shape{s, n(32)}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []int64
			if c.op == "Reshape" {
				got = reshapeSpec(c.in, c.want)
			} else {
				got = expandSpec(c.in, c.want)
			}
			if !slices.Equal(got, c.spec) {
				t.Errorf("%s %s to %s: spec %v, want %v", c.op, c.in.SymString(), c.want.SymString(), got, c.spec)
			}
		})
	}
}

// TestFoldConstantShapesOnExports folds dynamic-axes exports of several
// exporters' styles with their symbols kept and checks that the shapes
// they compute at run time for head splits and merges, GQA's repeat and
// the like become constants (fewer Shape nodes left), and that the folded
// model still takes every shape and computes what the export does.
func TestFoldConstantShapesOnExports(t *testing.T) {
	ids := func(b, s int) map[string][]int { return map[string][]int{"input_ids": {b, s}} }
	for _, c := range []struct {
		model  string
		tuning map[string][]int
		others []map[string][]int
		// minArgs is the fewest shapes made constant, maxShapes the
		// most Shape nodes left.
		minArgs, maxShapes int
	}{
		{"llama_decoder", ids(1, 16), []map[string][]int{ids(2, 7), ids(1, 1)}, 17, 4},
		{"gpt2_hf", ids(1, 16), []map[string][]int{ids(3, 5), ids(1, 1)}, 12, 4},
		{"bert_hf", map[string][]int{"input_ids": {1, 16}, "attention_mask": {1, 16}},
			[]map[string][]int{{"input_ids": {2, 9}, "attention_mask": {2, 9}}}, 16, 2},
	} {
		t.Run(c.model, func(t *testing.T) {
			path := "../testdata/corpus/" + c.model + ".onnx"
			m, err := onnx.ReadFile(path)
			if err != nil {
				t.Skipf("corpus export not available: %v", err)
			}
			declared := m.Clone()
			if err := m.Graph.BindShapesWith(c.tuning, graph.BindOptions{KeepSymbols: true}); err != nil {
				t.Fatal(err)
			}
			g, st, err := Fold(m.Graph, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			shapes := 0
			for _, n := range g.Nodes {
				if n.Op == "Shape" {
					shapes++
				}
			}
			t.Logf("%s: %d nodes -> %d, %s; %d Shape nodes left", c.model, len(m.Graph.Nodes), len(g.Nodes), st, shapes)
			if st.ShapeArgs < c.minArgs {
				t.Errorf("%d computed shapes made constant, want at least %d", st.ShapeArgs, c.minArgs)
			}
			if shapes > c.maxShapes {
				t.Errorf("%d Shape nodes left, want at most %d", shapes, c.maxShapes)
			}
			// Folding computes constants in float32: relative errors of
			// 1e-9 in float64 execution are that rounding.
			sameAtShapesTol(t, declared, g, append([]map[string][]int{c.tuning}, c.others...), 1e-7)
		})
	}
}
