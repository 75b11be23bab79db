package egrl

import (
	"context"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/internal/xrltest"
	"github.com/xrl-dev/xrl/ppo"
)

// chainEnv is a small deterministic environment: a chain of removable
// Identity and Relu nodes under the per-node latency model, so a
// policy's fitness is a function of its weights.
func chainEnv(t testing.TB) env.Config {
	t.Helper()
	m := xrltest.ChainModel(t, "Identity", "Relu", "Relu", "Identity", "Relu", "Relu", "Tanh", "Identity", "Relu", "Relu", "Identity", "Relu")
	return env.Config{Model: m, Rewriter: xrltest.DropRewriter{}, Latency: &xrltest.NodeLatency{}}
}

// smallPPO is a fast learner configuration for tests.
func smallPPO(seed uint64) ppo.Config {
	c := ppo.DefaultConfig()
	c.Seed = seed
	c.GATLayers, c.Hidden, c.Heads, c.HeadHidden = 2, 16, 2, []int{32}
	c.Horizon, c.FeedbackEvery = 12, 2
	c.UpdateEvery, c.Epochs, c.MinibatchSize = 2, 2, 8
	return c
}

// runAll runs cfg to the end in a fresh directory and returns its
// records and the run (closed).
func runAll(t *testing.T, cfg Config, pcfg ppo.Config) ([]GenerationRecord, *Run) {
	t.Helper()
	dir := t.TempDir()
	r, err := New(dir, cfg, pcfg, chainEnv(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadMetrics(dir + "/" + MetricsFile)
	if err != nil {
		t.Fatal(err)
	}
	return recs, r
}
