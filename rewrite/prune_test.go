package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// loadBoundFolded reads a test model, binds its inputs and folds it.
func loadBoundFolded(t *testing.T, path string, bind map[string][]int) *graph.Graph {
	t.Helper()
	m, err := onnx.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bindFolded(t, m, bind)
}

// bindFolded binds m's inputs and folds its graph.
func bindFolded(t *testing.T, m *graph.Model, bind map[string][]int) *graph.Graph {
	t.Helper()
	if err := m.Graph.BindShapes(bind); err != nil {
		t.Fatal(err)
	}
	g, _, err := Fold(m.Graph, executor.Evaluate)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestPruneDead(t *testing.T) {
	ints := func(vs ...int64) *graph.Tensor { return graph.FromInt64(vs, len(vs)) }
	// row1 is the graph named name that outputs row 1 of f(x) for an input
	// x [4, 6].
	row1 := func(name string, f func(b *graph.Builder, x *graph.Value) *graph.Value) func(t *testing.T) *graph.Graph {
		return func(t *testing.T) *graph.Graph {
			b := graph.NewBuilder(name)
			y := f(b, b.Input("x", graph.Float32, 4, 6))
			b.Output(b.Op("Gather", []*graph.Value{y, b.Const("i", graph.FromInt64([]int64{1}))}, graph.Attrs{"axis": graph.IntAttr(0)}))
			return builtInferred(t, b)
		}
	}
	tests := []struct {
		name  string
		graph func(t *testing.T) *graph.Graph
		// changed: the pass must cut something; minCut: the least
		// fraction of FLOPs removed.
		changed bool
		minCut  float64
	}{
		{
			name: "exported encoder classifier reading token 0",
			graph: func(t *testing.T) *graph.Graph {
				return loadBoundFolded(t, "testdata/encoder_classifier_small.onnx", map[string][]int{"input_ids": {1, 8}})
			},
			changed: true, minCut: 0.15,
		},
		{
			name: "exported encoder classifier, batch 2",
			graph: func(t *testing.T) *graph.Graph {
				return loadBoundFolded(t, "testdata/encoder_classifier_small.onnx", map[string][]int{"input_ids": {2, 8}})
			},
			changed: true, minCut: 0.15,
		},
		{
			name: "attention with a pooled first row",
			graph: func(t *testing.T) *graph.Graph {
				b := graph.NewBuilder("attn")
				x := b.Input("x", graph.Float32, 2, 6, 8)
				q := b.Op("MatMul", []*graph.Value{x, b.Const("wq", randConst(1, 8, 8))}, nil)
				k := b.Op("MatMul", []*graph.Value{x, b.Const("wk", randConst(2, 8, 8))}, nil)
				v := b.Op("MatMul", []*graph.Value{x, b.Const("wv", randConst(3, 8, 8))}, nil)
				qh := b.Op("Transpose", []*graph.Value{b.Op("Reshape", []*graph.Value{q, b.Const("s1", ints(2, 6, 2, 4))}, nil)}, graph.Attrs{"perm": graph.IntsAttr(0, 2, 1, 3)})
				kh := b.Op("Transpose", []*graph.Value{b.Op("Reshape", []*graph.Value{k, b.Const("s2", ints(2, 6, 2, 4))}, nil)}, graph.Attrs{"perm": graph.IntsAttr(0, 2, 3, 1)})
				vh := b.Op("Transpose", []*graph.Value{b.Op("Reshape", []*graph.Value{v, b.Const("s3", ints(2, 6, 2, 4))}, nil)}, graph.Attrs{"perm": graph.IntsAttr(0, 2, 1, 3)})
				p := b.Op("Softmax", []*graph.Value{b.Op("MatMul", []*graph.Value{qh, kh}, nil)}, graph.Attrs{"axis": graph.IntAttr(-1)})
				o := b.Op("Transpose", []*graph.Value{b.Op("MatMul", []*graph.Value{p, vh}, nil)}, graph.Attrs{"perm": graph.IntsAttr(0, 2, 1, 3)})
				o = b.Op("Reshape", []*graph.Value{o, b.Const("s4", ints(2, 6, 8))}, nil)
				h := b.Op("Add", []*graph.Value{x, o}, nil)
				mean := b.Op("ReduceMean", []*graph.Value{h, b.Const("ax", ints(-1))}, nil)
				h = b.Op("Sub", []*graph.Value{h, mean}, nil)
				first := b.Op("Gather", []*graph.Value{h, b.Const("zero", graph.FromInt64([]int64{0}))}, graph.Attrs{"axis": graph.IntAttr(1)})
				b.Output(b.Op("Tanh", []*graph.Value{first}, nil))
				return builtInferred(t, b)
			},
			changed: true, minCut: 0.2,
		},
		{
			name: "slice of rows through a Gemm and a LayerNormalization",
			graph: func(t *testing.T) *graph.Graph {
				b := graph.NewBuilder("rows")
				x := b.Input("x", graph.Float32, 10, 6)
				y := b.Op("Gemm", []*graph.Value{x, b.Const("w", randConst(4, 5, 6)), b.Const("c", randConst(5, 5))}, graph.Attrs{"transB": graph.IntAttr(1)})
				y = b.Op("LayerNormalization", []*graph.Value{y, b.Const("sc", randConst(6, 5)), b.Const("bi", randConst(7, 5))}, nil)
				b.Output(b.Op("Slice", []*graph.Value{y, b.Const("st", ints(2)), b.Const("en", ints(5)), b.Const("axs", ints(0))}, nil))
				return builtInferred(t, b)
			},
			changed: true, minCut: 0.5,
		},
		{
			name: "a reshape that mixes the cut axis stops the pruning",
			graph: row1("mix", func(b *graph.Builder, x *graph.Value) *graph.Value {
				return b.Op("Relu", []*graph.Value{b.Op("Reshape", []*graph.Value{b.Op("Relu", []*graph.Value{x}, nil), b.Const("s", ints(6, 4))}, nil)}, nil)
			}),
			changed: true,
		},
		{
			name: "a row of a Softmax over rows",
			graph: row1("colsoftmax", func(b *graph.Builder, x *graph.Value) *graph.Value {
				y := b.Op("Softmax", []*graph.Value{b.Op("Exp", []*graph.Value{x}, nil)}, graph.Attrs{"axis": graph.IntAttr(0)})
				return b.Op("Softmax", []*graph.Value{y}, graph.Attrs{"axis": graph.IntAttr(1)})
			}),
			changed: true,
		},
		{
			name: "every row read",
			graph: func(t *testing.T) *graph.Graph {
				b := graph.NewBuilder("all")
				x := b.Input("x", graph.Float32, 4, 6)
				y := b.Op("MatMul", []*graph.Value{x, b.Const("w", randConst(8, 6, 3))}, nil)
				b.Output(b.Op("Softmax", []*graph.Value{y}, nil))
				return builtInferred(t, b)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.graph(t)
			out, changed, err := PruneDead(g)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tt.changed {
				t.Fatalf("changed = %v, want %v", changed, tt.changed)
			}
			if !changed {
				if out != g {
					t.Fatal("an unchanged result must be the input graph")
				}
				return
			}
			if err := out.Validate(); err != nil {
				t.Fatal(err)
			}
			folded, _, err := Fold(out, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []*graph.Graph{out, folded} {
				if rel, err := ruleverify.SameFunction(g, r, 3, 1, 1e-9); err != nil {
					t.Fatalf("not the same function (rel %g): %v", rel, err)
				}
			}
			before, after := graph.FLOPs(g), graph.FLOPs(folded)
			if cut := 1 - float64(after)/float64(before); cut < tt.minCut || after > before {
				t.Errorf("FLOPs %d -> %d: cut %.3f, want at least %.2f", before, after, cut, tt.minCut)
			}
			again, changed, err := PruneDead(folded)
			if err != nil || changed || again != folded {
				t.Errorf("a second application changed the graph (changed %v, err %v)", changed, err)
			}
		})
	}
}

// builtInferred returns b's graph with inferred shapes.
func builtInferred(t *testing.T, b *graph.Builder) *graph.Graph {
	t.Helper()
	g := graphtest.Graph(t, b)
	if err := g.InferShapes(); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPruneDeadNeedsSliceOrGather runs the whole pruning on every zoo model
// and a chain without a Slice or a Gather: none of them changes, as
// PruneDead assumes when it skips such graphs.
func TestPruneDeadNeedsSliceOrGather(t *testing.T) {
	graphs := map[string]*graph.Graph{"chain": reluChain(t, 40)}
	for _, name := range models.Names() {
		graphs[name] = zooGraph(t, name)
	}
	checked := 0
	for name, g := range graphs {
		if hasDefaultOp(g, "Slice", "Gather") {
			continue
		}
		checked++
		if _, changed, err := pruneDead(g); err != nil || changed {
			t.Errorf("%s: pruning without a Slice or a Gather changed the graph (%v)", name, err)
		}
	}
	if checked == 0 {
		t.Fatal("no graph without a Slice or a Gather")
	}
}
