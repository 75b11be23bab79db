package measure_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
	_ "github.com/xrl-dev/xrl/measure/goexec" // registers the "go" backend
)

func TestCostModelCachesBySignature(t *testing.T) {
	b := graph.NewBuilder("chain")
	x := b.Input("x", graph.Float32, 8, 64)
	h := b.Op("Relu", []*graph.Value{x}, nil)
	h = b.Op("Relu", []*graph.Value{h}, nil) // same configuration as the first
	h = b.Op("Sigmoid", []*graph.Value{h}, nil)
	w := graph.NewTensor(graph.Float32, 64, 32)
	h = b.Op("MatMul", []*graph.Value{h, b.Const("w", w)}, nil)
	b.Output(h)
	g := graphtest.Graph(t, b)
	m := &graph.Model{Graph: g}
	cache := filepath.Join(t.TempDir(), "cost.json")
	cm, err := measure.NewCostModel(measure.CostOptions{Base: "go", CacheFile: cache})
	if err != nil {
		t.Fatal(err)
	}
	st, err := cm.Latency(m)
	if err != nil {
		t.Fatal(err)
	}
	if cm.Entries() != 3 {
		t.Errorf("want 3 distinct op configurations (Relu, Sigmoid, MatMul), got %d", cm.Entries())
	}
	if st.Median <= 0 || st.N != 4 {
		t.Errorf("bad estimate %+v", st)
	}
	// The sum must equal the per-op times.
	var sum int64
	for _, n := range g.Nodes {
		d, err := cm.OpTime(m, n)
		if err != nil {
			t.Fatal(err)
		}
		sum += int64(d)
	}
	if sum != int64(st.Median) {
		t.Errorf("estimate %v is not the sum of op times %v", st.Median, sum)
	}
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("cache file not written: %v", err)
	}
	// A new cost model reading the file measures nothing and agrees.
	cm2, err := measure.NewCostModel(measure.CostOptions{Base: "go", CacheFile: cache})
	if err != nil {
		t.Fatal(err)
	}
	if cm2.Entries() != 3 {
		t.Fatalf("cache file holds %d entries, want 3", cm2.Entries())
	}
	st2, err := cm2.Latency(m)
	if err != nil {
		t.Fatal(err)
	}
	if st2.Median != st.Median {
		t.Errorf("persisted estimate %v differs from %v", st2.Median, st.Median)
	}
}

func TestCostModelChargesNothingForConstantNodes(t *testing.T) {
	b := graph.NewBuilder("consts")
	x := b.Input("x", graph.Float32, 2, 3)
	w1 := b.Const("w1", graph.NewTensor(graph.Float32, 2, 3))
	w2 := b.Const("w2", graph.NewTensor(graph.Float32, 2, 3))
	w := b.Op("Add", []*graph.Value{w1, w2}, nil) // constant-only: folded at export
	b.Output(b.Op("Mul", []*graph.Value{x, w}, nil))
	g := graphtest.Graph(t, b)
	cm := quickCostModel(t)
	m := &graph.Model{Graph: g}
	if d, err := cm.OpTime(m, g.Nodes[0]); err != nil || d != 0 {
		t.Errorf("constant-only Add costs %v (%v), want 0", d, err)
	}
	if d, err := cm.OpTime(m, g.Nodes[1]); err != nil || d <= 0 {
		t.Errorf("Mul costs %v (%v), want a positive time", d, err)
	}
}

func TestCostModelChargesNothingForConstantChains(t *testing.T) {
	b := graph.NewBuilder("chain-of-consts")
	x := b.Input("x", graph.Float32, 2, 3)
	w1 := b.Const("w1", graph.NewTensor(graph.Float32, 2, 3))
	w2 := b.Const("w2", graph.NewTensor(graph.Float32, 2, 3))
	w := b.Op("Add", []*graph.Value{w1, w2}, nil)
	w = b.Op("Relu", []*graph.Value{w}, nil) // reads only a folded value
	b.Output(b.Op("Mul", []*graph.Value{x, w}, nil))
	g := graphtest.Graph(t, b)
	cm := quickCostModel(t)
	m := &graph.Model{Graph: g}
	st, err := cm.Latency(m)
	if err != nil {
		t.Fatal(err)
	}
	mul, err := cm.OpTime(m, g.Nodes[2])
	if err != nil {
		t.Fatal(err)
	}
	if st.Median != mul {
		t.Errorf("estimate %v, want only the Mul's %v", st.Median, mul)
	}
}

// quickCostModel returns a cost model over the Go executor that times each
// op configuration twice.
func quickCostModel(t *testing.T) *measure.CostModel {
	t.Helper()
	cm, err := measure.NewCostModel(measure.CostOptions{Base: "go", Measure: measure.MeasureOptions{Runs: 2, MaxRuns: 2, Warmup: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}
