package measure

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
)

// TestRandomInputsTokenIDsBelowTableSize checks on every kind of seed
// (seed 3 draws floats 100 times larger) that an integer input a Gather
// reads as indices is drawn over the indexed axis and stays below its
// size, and that other integers are 0 or 1.
func TestRandomInputsTokenIDsBelowTableSize(t *testing.T) {
	b := graph.NewBuilder("embed")
	table := b.Const("table", graph.NewTensor(graph.Float32, 300, 8))
	b.Output(b.Op("Gather", []*graph.Value{table, b.Input("ids", graph.Int64, 4, 64)}, nil))
	flag := b.Input("flag", graph.Int64, 8)
	b.Output(b.Op("Add", []*graph.Value{flag, flag}, nil))
	g := graphtest.Graph(t, b)
	for _, seed := range []uint64{1, 2, 3} {
		in, err := RandomInputs(g, seed)
		if err != nil {
			t.Fatal(err)
		}
		hi := int64(0)
		for _, v := range in["ids"].Data.([]int64) {
			if v < 0 || v >= 300 {
				t.Fatalf("seed %d: token id %d outside [0, 300)", seed, v)
			}
			hi = max(hi, v)
		}
		if hi < 100 {
			t.Errorf("seed %d: token ids only reach %d: not drawn over the table", seed, hi)
		}
		for _, v := range in["flag"].Data.([]int64) {
			if v != 0 && v != 1 {
				t.Errorf("seed %d: integer input not read by a Gather got %d, want 0 or 1", seed, v)
			}
		}
	}
}
