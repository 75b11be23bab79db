package train

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/regal"
)

// TestRegal trains a network on a small model, then compares it with
// uniform keys.
func TestRegal(t *testing.T) {
	tmp := t.TempDir()
	model := writeZoo(t, tmp, zooSpec{"bert_tiny", "bert", models.Overrides{Batch: 1, Layers: 1, Hidden: 32, Seq: 4, Heads: 2}})[0]
	net := filepath.Join(tmp, "n.regal")
	cfg := RegalConfig{Models: []string{model}, Runtime: "roofline", Budget: 4, Population: 2, Horizon: 3, MaxCandidates: 64,
		Seeds: 1, Seed: 1, Iterations: 2}
	iterations := 0
	if _, err := TrainRegal(cfg, net, func(regal.IterStats) { iterations++ }); err != nil {
		t.Fatalf("train: %v", err)
	}
	if iterations != 2 {
		t.Errorf("%d iterations reported, want 2", iterations)
	}
	n, err := regal.LoadFile(net)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := CompareRegal(cfg, n)
	if err != nil {
		t.Fatalf("compare: %v", err)
	}
	var out strings.Builder
	cmp.Write(&out)
	wantLines(t, out.String(), "| "+model+" |", "budget 4 decoded chromosomes", "latency model roofline")
	cfg.Models = []string{model + ".x"}
	if _, err := TrainRegal(cfg, net, nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing model: %v", err)
	}
}
