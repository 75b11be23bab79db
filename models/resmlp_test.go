package models

import (
	"math"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// TestResMLPSizes builds the residual MLP at the sizes of the scale
// measurements and checks its node count (4 a block), its one shared
// weight and bias, and that it is a scale graph, not a zoo model.
func TestResMLPSizes(t *testing.T) {
	for _, tc := range []struct {
		preset string
		blocks int
		nodes  int
	}{
		{PresetCPU, 0, 1_000},
		{PresetPaper, 1_250, 5_000},
		{PresetPaper, 0, 50_000},
	} {
		m, err := Build("resmlp", tc.preset, Overrides{Layers: tc.blocks})
		if err != nil {
			t.Fatal(err)
		}
		g := m.Graph
		if len(g.Nodes) != tc.nodes {
			t.Errorf("%s layers=%d: %d nodes, want %d", tc.preset, tc.blocks, len(g.Nodes), tc.nodes)
		}
		if len(g.Initializers) != 2 || Params(g) != 64*64+64 {
			t.Errorf("%s layers=%d: %d initializers, %d params; want the shared W and b (4160)", tc.preset, tc.blocks, len(g.Initializers), Params(g))
		}
	}
	for _, s := range List() {
		if s.Name == "resmlp" {
			t.Error("List holds the scale graph resmlp")
		}
	}
	if sg := ScaleGraphs(); len(sg) != 1 || sg[0].Name != "resmlp" || !sg[0].Scale {
		t.Errorf("ScaleGraphs = %+v, want resmlp", sg)
	}
}

// TestResMLPStaysFinite evaluates a deep chain on a unit input in float64
// (the reference semantics of the ops) and checks the output stays within
// a small factor of the input, as the weight scale promises.
func TestResMLPStaysFinite(t *testing.T) {
	m, err := Build("resmlp", PresetPaper, Overrides{Layers: 2000})
	if err != nil {
		t.Fatal(err)
	}
	var w, b []float32
	for _, v := range m.Graph.Initializers {
		switch len(v.Const.Shape) {
		case 2:
			w = v.Const.Data.([]float32)
		case 1:
			b = v.Const.Data.([]float32)
		}
	}
	const h = 64
	x := make([]float64, h)
	for i := range x {
		x[i] = 1
	}
	blocks := 0
	for _, n := range m.Graph.Nodes {
		if n.Op == "Relu" {
			blocks++
		}
	}
	for range blocks {
		y := make([]float64, h)
		for j := range h {
			s := float64(b[j])
			for i := range h {
				s += x[i] * float64(w[i*h+j])
			}
			y[j] = x[j] + math.Max(s, 0)
		}
		x = y
	}
	for j, v := range x {
		if math.IsNaN(v) || v < 0.5 || v > 8 {
			t.Fatalf("output %d after %d blocks is %g, want within [0.5, 8]", j, blocks, v)
		}
	}
	if blocks != 2000 || graph.NumElements(m.Graph.Outputs[0].Shape.Ints()) != h {
		t.Errorf("%d blocks, output %v", blocks, m.Graph.Outputs[0].Shape)
	}
}
