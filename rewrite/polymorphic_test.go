package rewrite

import (
	"fmt"
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rules"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// loadSymbolic reads a corpus export, keeps a copy as declared and binds
// the model at the tuning shapes with its symbols kept, then folds it.
func loadSymbolic(t *testing.T, path string, tuning map[string][]int) (declared *graph.Model, g *graph.Graph) {
	t.Helper()
	m, err := onnx.ReadFile(path)
	if err != nil {
		t.Skipf("corpus export not available: %v", err)
	}
	declared = m.Clone()
	if err := m.Graph.BindShapesWith(tuning, graph.BindOptions{KeepSymbols: true}); err != nil {
		t.Fatal(err)
	}
	g, _, err = Fold(m.Graph, executor.Evaluate)
	if err != nil {
		t.Fatal(err)
	}
	return declared, g
}

// sameAtShapes writes out as a model with declared's interface, reads it
// back and checks, at each binding of the inputs, that it computes what
// declared does on the Go executor (relative error at most 1e-9).
func sameAtShapes(t *testing.T, declared *graph.Model, out *graph.Graph, shapes []map[string][]int) {
	t.Helper()
	sameAtShapesTol(t, declared, out, shapes, 1e-9)
}

// sameAtShapesTol is sameAtShapes with the relative error allowed.
func sameAtShapesTol(t *testing.T, declared *graph.Model, out *graph.Graph, shapes []map[string][]int, tol float64) {
	t.Helper()
	w := *declared
	w.Graph = out.Clone()
	redeclare := func(vs, decl []*graph.Value) {
		for _, v := range vs {
			for _, d := range decl {
				if d.Name == v.Name && v.Const == nil {
					v.Shape = d.Shape.Clone()
				}
			}
		}
	}
	redeclare(w.Graph.Inputs, declared.Graph.Inputs)
	redeclare(w.Graph.Outputs, declared.Graph.Outputs)
	data, err := onnx.Encode(&w)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shapes {
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			orig := declared.Clone()
			if err := orig.Graph.BindShapes(s); err != nil {
				t.Fatal(err)
			}
			opt, err := onnx.Decode(data, onnx.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := opt.Graph.BindShapes(s); err != nil {
				t.Fatalf("the rewritten model does not take this shape: %v", err)
			}
			if _, err := ruleverify.SameFunction(orig.Graph, opt.Graph, 1, 1, tol); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// passNamed returns the shipped pass called name.
func passNamed(t *testing.T, name string) Pass {
	t.Helper()
	for _, p := range Passes {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no pass %q", name)
	return Pass{}
}

// afterRule returns a preparation that applies the first candidate of rule
// on which FusionForms then changes something: the rules' results are
// what ort-fusion-forms repairs.
func afterRule(rule string) func(t *testing.T, g *graph.Graph) *graph.Graph {
	return func(t *testing.T, g *graph.Graph) *graph.Graph {
		t.Helper()
		set, err := rules.Load()
		if err != nil {
			t.Fatal(err)
		}
		e := NewEngine(set, Options{Rules: []string{rule}, Eval: executor.Evaluate})
		cands, err := e.Candidates(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			if _, changed, err := FusionForms(c.Graph); err == nil && changed {
				return c.Graph
			}
		}
		t.Fatalf("no candidate of %s that FusionForms repairs (%d candidates)", rule, len(cands))
		return nil
	}
}

// afterPass returns a preparation that applies the shipped pass name and
// folds its result.
func afterPass(name string) func(t *testing.T, g *graph.Graph) *graph.Graph {
	return func(t *testing.T, g *graph.Graph) *graph.Graph {
		t.Helper()
		out, changed, err := passNamed(t, name).Apply(g)
		if err != nil || !changed {
			t.Fatalf("%s: changed %v, %v", name, changed, err)
		}
		if out, _, err = Fold(out, executor.Evaluate); err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// TestPassesShapePolymorphic binds corpus exports with their symbols kept
// at a tuning shape, applies each whole-graph pass and checks that the
// result, written with the export's interface and read back, computes
// what the export does at other batch sizes and sequence lengths.
func TestPassesShapePolymorphic(t *testing.T) {
	const (
		encoder = "../testdata/corpus/encoder_classifier.onnx" // ids [batch, seq], seq <= 128
		decoder = "../testdata/corpus/gpt_decoder.onnx"        // ids [1, seq], seq <= 64
	)
	ids := func(b, s int) map[string][]int { return map[string][]int{"ids": {b, s}} }
	encoderShapes := []map[string][]int{ids(3, 7), ids(1, 64), ids(2, 1)}
	decoderShapes := []map[string][]int{ids(1, 7), ids(1, 64), ids(1, 1)}
	tests := []struct {
		name   string
		model  string
		tuning map[string][]int
		// prepare, when not nil, rewrites the bound graph first.
		prepare func(t *testing.T, g *graph.Graph) *graph.Graph
		pass    string
		changed bool
		// ops are node counts the result must have.
		ops map[string]int
		// cuts: the result computes fewer FLOPs at the tuning shape.
		cuts bool
		at   []map[string][]int
	}{
		{name: "prune the encoder to token 0, tuned at batch 1", model: encoder, tuning: ids(1, 32),
			pass: "prune-dead-rows", changed: true, cuts: true, at: encoderShapes},
		{name: "prune the encoder to token 0, tuned at batch 4", model: encoder, tuning: ids(4, 16),
			pass: "prune-dead-rows", changed: true, cuts: true, at: encoderShapes},
		{name: "the decoder reads every row", model: decoder, tuning: ids(1, 32), pass: "prune-dead-rows"},
		{name: "fuse the encoder's attention, tuned at batch 1", model: encoder, tuning: ids(1, 32),
			pass: "fuse-attention", changed: true, ops: map[string]int{"Attention": 4, "Softmax": 0}, at: encoderShapes},
		{name: "fuse the encoder's attention, tuned at batch 2", model: encoder, tuning: ids(2, 16),
			pass: "fuse-attention", changed: true, ops: map[string]int{"Attention": 4, "Softmax": 0}, at: encoderShapes},
		{name: "fuse attention after pruning (the last layer keeps one query row)", model: encoder, tuning: ids(1, 32),
			prepare: afterPass("prune-dead-rows"), pass: "fuse-attention", changed: true,
			ops: map[string]int{"Attention": 3, "Softmax": 1}, at: encoderShapes},
		{name: "fuse the encoder's attention and merge rows", model: encoder, tuning: ids(1, 32),
			pass: "fuse-attention-2d", changed: true, ops: map[string]int{"Attention": 4, "ReduceMean": 16}, at: encoderShapes},
		{name: "merge the encoder's rows, tuned at batch 1", model: encoder, tuning: ids(1, 32),
			pass: "rows-2d", changed: true, at: encoderShapes},
		{name: "merge the encoder's rows, tuned at batch 3", model: encoder, tuning: ids(3, 16),
			pass: "rows-2d", changed: true, at: encoderShapes},
		{name: "merge the decoder's rows", model: decoder, tuning: ids(1, 32),
			pass: "rows-2d", changed: true, at: decoderShapes},
		{name: "merge rows after pruning", model: encoder, tuning: ids(1, 32),
			prepare: afterPass("prune-dead-rows"), pass: "rows-2d", changed: true, at: encoderShapes},
		{name: "repair the encoder's GELU after matmul-scale-left-out", model: encoder, tuning: ids(1, 32),
			prepare: afterRule("matmul-scale-left-out"), pass: "ort-fusion-forms", changed: true, at: encoderShapes},
		{name: "repair the decoder's GELU after matmul-scale-left-out", model: decoder, tuning: ids(1, 32),
			prepare: afterRule("matmul-scale-left-out"), pass: "ort-fusion-forms", changed: true, at: decoderShapes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			declared, g := loadSymbolic(t, tt.model, tt.tuning)
			if tt.prepare != nil {
				g = tt.prepare(t, g)
			}
			p := passNamed(t, tt.pass)
			before, out, changed := applyPass(t, p.Name, p.Apply, g)
			if changed != tt.changed {
				t.Fatalf("changed = %v, want %v", changed, tt.changed)
			}
			if !changed {
				return
			}
			if err := out.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := SameOutputShapes(before, out); err != nil {
				t.Fatal(err)
			}
			folded, _, err := Fold(out, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			for op, want := range tt.ops {
				if got := countOps(folded, op); got != want {
					t.Errorf("%d %s nodes, want %d", got, op, want)
				}
			}
			if f0, f1 := graph.FLOPs(before), graph.FLOPs(folded); tt.cuts && f1 >= f0 {
				t.Errorf("FLOPs %d -> %d, want fewer", f0, f1)
			}
			sameAtShapes(t, declared, folded, tt.at)
		})
	}
}
