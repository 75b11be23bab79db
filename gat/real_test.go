package gat

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/models"
)

// TestRealGraphs encodes benchmark models through env.EncodeGraph and runs
// the network on them, batched and concurrently.
func TestRealGraphs(t *testing.T) {
	var obs []*env.Observation
	for _, name := range []string{"squeezenet", "bert"} {
		m, err := models.Build(name, models.PresetCPU, models.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		g := env.EncodeGraph(m.Graph)
		if err := g.Check(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		o := &env.Observation{Current: g, Candidates: []*env.GraphTensor{g, g}, Mask: []bool{true, true, false, true}}
		obs = append(obs, o)
	}
	n := testNet(t, DefaultConfig())
	want, err := n.Forward(obs)
	if err != nil {
		t.Fatal(err)
	}
	for o := range obs {
		// Identical candidates get identical logits; every output is finite.
		if want.Logits[o][0] != want.Logits[o][1] {
			t.Errorf("observation %d: equal candidates scored %v and %v", o, want.Logits[o][0], want.Logits[o][1])
		}
		for _, v := range append(append([]float32{want.Values[o], want.Entropies[o]}, want.Logits[o]...), want.LogProbs[o]...) {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("observation %d: non-finite output %v", o, v)
			}
		}
	}
	// Forward and Act may run concurrently.
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			b, err := n.Forward(obs)
			if err != nil {
				t.Error(err)
				return
			}
			if b.Values[1] != want.Values[1] {
				t.Errorf("concurrent forward: value %v, want %v", b.Values[1], want.Values[1])
			}
			if _, _, _, err := n.Act(obs[w%2], rand.New(rand.NewPCG(uint64(w), 0)), false); err != nil {
				t.Error(err)
			}
		}(w)
	}
	wg.Wait()
}
