package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/models"
)

// constNodeConvBN builds Conv -> BatchNormalization whose weights and
// statistics are all Constant nodes, as PaddlePaddle exports them.
func constNodeConvBN(t *testing.T) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder("paddle-style")
	cn := func(seed uint64, shape ...int) *graph.Value {
		c := randConst(seed, shape...)
		if seed == 6 { // variance must be positive
			for i, v := range c.Float32s() {
				c.Float32s()[i] = v*v + 0.5
			}
		}
		return b.Op("Constant", nil, graph.Attrs{"value": graph.TensorAttr(c)})
	}
	x := b.Input("x", graph.Float32, 1, 3, 8, 8)
	y := b.Op("Conv", []*graph.Value{x, cn(1, 4, 3, 3, 3)}, graph.Attrs{"pads": graph.IntsAttr(1, 1, 1, 1)})
	y = b.Op("BatchNormalization", []*graph.Value{y, cn(3, 4), cn(4, 4), cn(5, 4), cn(6, 4)}, nil)
	b.Output(y)
	return graphtest.Graph(t, b)
}

func TestConstantNodesAreConstants(t *testing.T) {
	g := constNodeConvBN(t)
	if got, want := models.Params(g), int64(4*3*3*3+4*4); got != want {
		t.Errorf("Params counts Constant-node weights as %d, want %d", got, want)
	}
	folded, _, err := Fold(g, executor.Evaluate)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range folded.Nodes {
		if n.Op == "Constant" {
			t.Errorf("Constant node %v survived folding", n)
		}
	}
	if got := models.Params(folded); got != models.Params(g) {
		t.Errorf("Params after folding = %d, before %d", got, models.Params(g))
	}
	cands := shippedCandidates(t, folded, "conv-bn-fold")
	if len(cands) != 1 {
		t.Errorf("conv-bn-fold (needs constant weights) gave %d candidates on Constant-node weights, want 1", len(cands))
	}
}
