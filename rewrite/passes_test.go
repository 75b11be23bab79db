package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules/ruleverify"
)

// swapFirstRelu is a wrong pass: it replaces the first Relu by a Sigmoid.
func swapFirstRelu(g *graph.Graph) (*graph.Graph, bool, error) {
	out := *g
	out.Nodes = append([]*graph.Node(nil), g.Nodes...)
	for i, n := range out.Nodes {
		if n.Op == "Relu" {
			c := *n
			c.Op = "Sigmoid"
			out.Nodes[i] = &c
			return &out, true, nil
		}
	}
	return g, false, nil
}

// pooledRows is MatMul -> Relu -> Gather of row 0: prune-dead-rows applies.
func pooledRows(t *testing.T) *graph.Graph { return pooledRowsSeeded(t, 1) }

// pooledRowsSeeded is pooledRows with weights drawn from seed.
func pooledRowsSeeded(t *testing.T, seed uint64) *graph.Graph {
	b := graph.NewBuilder("pooled")
	x := b.Input("x", graph.Float32, 6, 8)
	y := b.Op("Relu", []*graph.Value{b.Op("MatMul", []*graph.Value{x, b.Const("w", randConst(seed, 8, 8))}, nil)}, nil)
	b.Output(b.Op("Gather", []*graph.Value{y, b.Const("i", graph.FromInt64([]int64{0}))}, graph.Attrs{"axis": graph.IntAttr(0)}))
	g := builtInferred(t, b)
	return g
}

func TestWithPasses(t *testing.T) {
	g := pooledRows(t)
	check := func(before, after *graph.Graph, _ float64) error {
		_, err := ruleverify.SameFunction(before, after, 2, 1, 1e-9)
		return err
	}
	tests := []struct {
		name     string
		passes   []Pass
		check    Checker
		want     []string
		rejected map[string]int
	}{
		{name: "verified pass", passes: Passes, check: check, want: []string{"prune-dead-rows"}},
		{name: "wrong pass refused", passes: []Pass{{Name: "wrong", Apply: swapFirstRelu}}, check: check, rejected: map[string]int{"wrong": 1}},
		{name: "no checker, nothing offered", passes: Passes, rejected: map[string]int{"prune-dead-rows": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &WithPasses{Passes: tt.passes, Check: tt.check, Eval: executor.Evaluate}
			cands, err := w.Candidates(g)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range cands {
				got = append(got, c.Rule)
				if c.Hash != c.Graph.CanonicalHash() {
					t.Errorf("%s: wrong hash", c.Rule)
				}
			}
			if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
				t.Errorf("candidates %v, want %v", got, tt.want)
			}
			for k, v := range tt.rejected {
				if w.Rejected[k] != v {
					t.Errorf("rejected %v, want %v (last error %v)", w.Rejected, tt.rejected, w.LastErr)
				}
			}
		})
	}
}

// TestWithPassesMemo checks that a pass applied again to the same graph is
// not checked again, and that each caller gets a graph of its own.
func TestWithPassesMemo(t *testing.T) {
	g := pooledRows(t)
	checks := 0
	w := &WithPasses{Passes: Passes, Eval: executor.Evaluate, Check: func(before, after *graph.Graph, _ float64) error {
		checks++
		_, err := ruleverify.SameFunction(before, after, 2, 1, 1e-9)
		return err
	}}
	var first []Candidate
	for round := 0; round < 3; round++ {
		cands, err := w.Candidates(g.Clone())
		if err != nil {
			t.Fatal(err)
		}
		if len(cands) != 1 {
			t.Fatalf("round %d: %d candidates, want 1", round, len(cands))
		}
		if c := cands[0]; c.Hash != c.Graph.CanonicalHash() {
			t.Fatalf("round %d: candidate hash does not match its graph", round)
		}
		if round == 0 {
			first = cands
			continue
		}
		if cands[0].Graph == first[0].Graph {
			t.Fatalf("round %d: the same graph was handed out twice", round)
		}
	}
	if checks != 1 {
		t.Errorf("checked %d times, want 1", checks)
	}
}
