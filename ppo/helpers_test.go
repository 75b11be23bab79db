package ppo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/internal/xrltest"
)

// chainEnv is a small deterministic environment: a chain of removable
// Identity and Relu nodes under the per-node latency model.
func chainEnv(t testing.TB) env.Config {
	t.Helper()
	m := xrltest.ChainModel(t, "Identity", "Relu", "Relu", "Identity", "Relu", "Relu", "Tanh", "Identity", "Relu", "Relu")
	return env.Config{Model: m, Rewriter: xrltest.DropRewriter{}, Latency: &xrltest.NodeLatency{}}
}

// smallConfig is a fast configuration for tests.
func smallConfig() Config {
	c := DefaultConfig()
	c.GATLayers, c.Hidden, c.Heads, c.HeadHidden = 2, 16, 2, []int{32}
	c.Horizon, c.FeedbackEvery = 12, 2
	c.UpdateEvery, c.Epochs, c.MinibatchSize = 2, 2, 4
	return c
}

// readRunFile returns the contents of the file name in the run directory
// dir, failing t if it cannot be read.
func readRunFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// trainedRun trains the small configuration for episodes episodes in a
// fresh run directory and returns the configuration and the directory.
func trainedRun(t *testing.T, episodes int) (Config, string) {
	t.Helper()
	cfg := smallConfig()
	cfg.Episodes = episodes
	dir := t.TempDir()
	train(t, dir, cfg, false, 0)
	return cfg, dir
}
