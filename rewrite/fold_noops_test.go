package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// TestFoldDropsNoOps builds each candidate no-op between two Relus and
// checks that folding removes exactly the ones that return their input
// unchanged, and that the folded graph computes what the original did.
func TestFoldDropsNoOps(t *testing.T) {
	i64 := func(v ...int64) *graph.Tensor { return graph.FromInt64(v, len(v)) }
	f32 := func(v float32) *graph.Tensor { return graph.FromFloat32([]float32{v}) }
	flag := func(v bool) *graph.Tensor { return &graph.Tensor{DType: graph.Bool, Data: []bool{v}} }
	for _, c := range []struct {
		name    string
		op      string
		consts  []*graph.Tensor // the inputs after x (nil: omitted)
		attrs   graph.Attrs
		dropped bool
	}{
		{"identity", "Identity", nil, nil, true},
		{"zero pads", "Pad", []*graph.Tensor{i64(0, 0, 0, 0)}, nil, true},
		{"zero pads, reflect", "Pad", []*graph.Tensor{i64(0, 0, 0, 0)}, graph.Attrs{"mode": graph.StringAttr("reflect")}, true},
		{"pads", "Pad", []*graph.Tensor{i64(0, 1, 0, 0)}, nil, false},
		{"whole slice", "Slice", []*graph.Tensor{i64(0, 0), i64(3, 1<<40)}, nil, true},
		{"whole slice, negative start", "Slice", []*graph.Tensor{i64(-3), i64(3), i64(0)}, nil, true},
		{"slice of a part", "Slice", []*graph.Tensor{i64(1), i64(3), i64(1)}, nil, false},
		{"reversing slice", "Slice", []*graph.Tensor{i64(-1), i64(-1 << 40), i64(1), i64(-1)}, nil, false},
		{"dropout in inference", "Dropout", []*graph.Tensor{f32(0.1), flag(false)}, nil, true},
		{"dropout of ratio 0 in training", "Dropout", []*graph.Tensor{f32(0), flag(true)}, nil, true},
		{"dropout in training", "Dropout", []*graph.Tensor{f32(0.5), flag(true)}, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := graph.NewBuilder("noop")
			x := b.Input("x", graph.Float32, 3, 4)
			y := b.Op("Relu", []*graph.Value{x}, nil)
			ins := []*graph.Value{y}
			for k, ct := range c.consts {
				ins = append(ins, b.Const(c.name+string(rune('a'+k)), ct))
			}
			z := b.Op(c.op, ins, c.attrs)
			b.Output(b.Op("Relu", []*graph.Value{z}, nil))
			g := graphtest.Graph(t, b)
			if err := g.InferShapes(); err != nil {
				t.Fatal(err)
			}
			folded, st, err := Fold(g, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			left := countOps(folded, c.op)
			if c.dropped && (left != 0 || st.NoOps != 1) || !c.dropped && left != 1 {
				t.Errorf("%d %s nodes left, %d no-ops removed; want it removed: %v", left, c.op, st.NoOps, c.dropped)
			}
			if c.op == "Dropout" && !c.dropped {
				return // random: nothing to compare
			}
			if _, err := ruleverify.SameFunction(g, folded, 2, 1, 0); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestFoldDropsSwinNoOps folds torchvision's Swin export, whose window
// stages pad by zero and crop back whole at its size and whose Dropouts
// are exported in training mode with a ratio of 0.
func TestFoldDropsSwinNoOps(t *testing.T) {
	m, err := onnx.ReadFile("../testdata/corpus/swin_tiny.onnx")
	if err != nil {
		t.Fatalf("%v (run scripts/gen-corpus)", err)
	}
	declared := m.Clone()
	tuning := map[string][]int{"image": {1, 3, 32, 32}}
	if err := m.Graph.BindShapesWith(tuning, graph.BindOptions{KeepSymbols: true}); err != nil {
		t.Fatal(err)
	}
	g, st, err := Fold(m.Graph, executor.Evaluate)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(st)
	for _, op := range []string{"Pad", "Dropout"} {
		if n := countOps(g, op); n != 0 {
			t.Errorf("%d %s nodes left", n, op)
		}
	}
	if st.NoOps < 21 {
		t.Errorf("%d no-ops removed, want at least 21 (5 Pads, 8 whole Slices, 8 Dropouts)", st.NoOps)
	}
	sameAtShapesTol(t, declared, g, []map[string][]int{tuning}, 1e-7)
}
