package runtime

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/graph"
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
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	m := &graph.Model{Graph: g}
	cache := filepath.Join(t.TempDir(), "cost.json")
	cm, err := NewCostModel(CostOptions{Base: "go", CacheFile: cache})
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
	cm2, err := NewCostModel(CostOptions{Base: "go", CacheFile: cache})
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
