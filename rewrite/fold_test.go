package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/models"
)

func TestFold(t *testing.T) {
	ints := func(vs ...int64) *graph.Tensor { return graph.FromInt64(vs, len(vs)) }
	tests := []struct {
		name  string
		graph func(b *graph.Builder)
		want  FoldStats
		// nodes and inits are the node and initializer counts after.
		nodes, inits int
	}{
		{
			name: "concatenated weights",
			graph: func(b *graph.Builder) {
				x := b.Input("x", graph.Float32, 4, 8)
				w := b.Op("Concat", []*graph.Value{b.Const("a", randConst(1, 8, 3)), b.Const("d", randConst(2, 8, 5))}, graph.Attrs{"axis": graph.IntAttr(1)})
				b.Output(b.Op("MatMul", []*graph.Value{x, w}, nil))
			},
			want:  FoldStats{Folded: 1, DeadConsts: 2},
			nodes: 1, inits: 1,
		},
		{
			name: "chain of folds",
			graph: func(b *graph.Builder) {
				x := b.Input("x", graph.Float32, 6, 4)
				t := b.Op("Transpose", []*graph.Value{b.Const("c", randConst(3, 4, 6))}, nil)
				r := b.Op("Reshape", []*graph.Value{t, b.Const("shape", ints(6, 4))}, nil)
				b.Output(b.Op("Add", []*graph.Value{x, r}, nil))
			},
			want:  FoldStats{Folded: 2, DeadConsts: 2},
			nodes: 1, inits: 1,
		},
		{
			name: "shape of a static input",
			graph: func(b *graph.Builder) {
				x := b.Input("x", graph.Float32, 2, 3, 4)
				s := b.Op("Shape", []*graph.Value{x}, graph.Attrs{"start": graph.IntAttr(1)})
				shape := b.Op("Concat", []*graph.Value{b.Const("two", ints(2)), s}, graph.Attrs{"axis": graph.IntAttr(0)})
				b.Output(b.Op("Reshape", []*graph.Value{b.Op("Relu", []*graph.Value{x}, nil), shape}, nil))
			},
			want:  FoldStats{Folded: 2, DeadConsts: 1},
			nodes: 2, inits: 1,
		},
		{
			name: "expansion over the growth cap",
			graph: func(b *graph.Builder) {
				x := b.Input("x", graph.Float32, 1024, 512)
				e := b.Op("Expand", []*graph.Value{b.Const("one", graph.FromFloat32([]float32{1})), b.Const("shape", ints(1024, 512))}, nil)
				b.Output(b.Op("Add", []*graph.Value{x, e}, nil))
			},
			want:  FoldStats{TooLarge: 1},
			nodes: 2, inits: 2,
		},
		{
			name: "dead nodes and unused constants",
			graph: func(b *graph.Builder) {
				x := b.Input("x", graph.Float32, 2, 3)
				b.Op("Relu", []*graph.Value{b.Op("Sigmoid", []*graph.Value{x}, nil)}, nil)
				b.Const("unused", randConst(4, 3))
				b.Output(b.Op("Tanh", []*graph.Value{x}, nil))
			},
			want:  FoldStats{DeadNodes: 2, DeadConsts: 1},
			nodes: 1, inits: 0,
		},
		{
			name: "graph outputs stay",
			graph: func(b *graph.Builder) {
				x := b.Input("x", graph.Float32, 2, 3)
				c := b.Op("Add", []*graph.Value{b.Const("a", randConst(5, 2, 3)), b.Const("b", randConst(6, 2, 3))}, nil)
				b.Output(c, b.Op("Mul", []*graph.Value{x, c}, nil))
			},
			want:  FoldStats{},
			nodes: 2, inits: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := graphtest.Build(t, tc.graph)
			before := g.CanonicalHash()
			f, st, err := Fold(g, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			if g.CanonicalHash() != before {
				t.Error("Fold modified its input")
			}
			if st.Folded != tc.want.Folded || st.DeadNodes != tc.want.DeadNodes || st.DeadConsts != tc.want.DeadConsts ||
				st.TooLarge != tc.want.TooLarge || len(st.Failed) != 0 {
				t.Errorf("stats %+v, want %+v", st, tc.want)
			}
			if len(f.Nodes) != tc.nodes || len(f.Initializers) != tc.inits {
				t.Errorf("%d nodes and %d initializers, want %d and %d", len(f.Nodes), len(f.Initializers), tc.nodes, tc.inits)
			}
			if err := f.Validate(); err != nil {
				t.Fatalf("folded graph is invalid: %v", err)
			}
			for i, o := range f.Outputs {
				if o.Name != g.Outputs[i].Name {
					t.Errorf("output %d renamed from %q to %q", i, g.Outputs[i].Name, o.Name)
				}
			}
			verifySame(t, g, f, tc.name)
			// Folding is idempotent.
			f2, st2, err := Fold(f, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			if st2.Folded+st2.DeadNodes+st2.DeadConsts != 0 || f2.CanonicalHash() != f.CanonicalHash() {
				t.Errorf("second Fold changed the graph: %v", st2)
			}
		})
	}
}

// TestFoldZoo folds zoo models and candidates whose folds were left for
// Fold by the candidate cap, and checks the function is unchanged.
func TestFoldZoo(t *testing.T) {
	set := shippedRules(t)
	for _, name := range []string{"bert", "squeezenet", "nasrnn"} {
		t.Run(name, func(t *testing.T) {
			g := zooGraph(t, name)
			f, st, err := Fold(g, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Validate(); err != nil {
				t.Fatal(err)
			}
			if len(st.Failed) > 0 {
				t.Errorf("failed folds: %v", st.Failed)
			}
			verifySame(t, g, f, name+" folded")
			// A candidate with folds left over (limit 1 byte): Fold
			// removes every node computing on constants only.
			e := NewEngine(set, Options{FoldBytes: 1, Rules: []string{"linear-merge3", "relu-merge-cols"}, Eval: executor.Evaluate})
			cands, err := e.Candidates(g)
			if err != nil {
				t.Fatal(err)
			}
			if len(cands) == 0 {
				return
			}
			c := cands[len(cands)/2]
			cf, cst, err := Fold(c.Graph, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			if err := cf.Validate(); err != nil {
				t.Fatal(err)
			}
			for _, n := range cf.Nodes {
				allConst := len(n.Inputs) > 0
				for _, in := range n.Inputs {
					if in != nil && in.Const == nil {
						allConst = false
					}
				}
				if allConst {
					t.Errorf("%v still computes on constants only", n)
				}
			}
			t.Logf("%s candidate (%s): %v", name, c.Rule, cst)
			verifySame(t, g, cf, name+" "+c.Rule+" folded")
		})
	}
}

// TestFoldModels folds every zoo model and checks the result computes the
// same function when Fold changed anything.
func TestFoldModels(t *testing.T) {
	for _, name := range models.Names() {
		g := zooGraph(t, name)
		f, st, err := Fold(g, executor.Evaluate)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Failed) > 0 {
			t.Errorf("%s: failed folds: %v", name, st.Failed)
		}
		if st.Folded+st.DeadNodes+st.DeadConsts == 0 {
			if f.CanonicalHash() != g.CanonicalHash() {
				t.Errorf("%s: Fold changed nothing but the hash differs", name)
			}
			continue
		}
		if err := f.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %v", name, st)
		verifySame(t, g, f, name+" folded")
	}
}
