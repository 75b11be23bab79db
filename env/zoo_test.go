package env_test

import (
	"testing"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/measure"
	_ "github.com/xrl-dev/xrl/measure/ort"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/pipeline"
)

// zooEnv builds the environment for a zoo model (cpu preset) with the real
// rule set and rewrite engine, starting from the folded graph.
func zooEnv(t testing.TB, name string, lm measure.LatencyModel, maxCands int) *env.Env {
	t.Helper()
	m, err := models.Build(name, models.PresetCPU, models.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := pipeline.PrepareModel(name, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := env.New(env.Config{
		Model:         sp.Model,
		Rewriter:      sp.Engine,
		Latency:       lm,
		MaxCandidates: maxCands,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCheckZoo runs the environment conformance check on every zoo model
// with the real rules and the cost latency model (shared, so that a replay
// sees the same cached op times).
func TestCheckZoo(t *testing.T) {
	lm, err := measure.NewLatencyModel("cost", measure.BackendOptions{}, measure.MeasureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := models.Names()
	if len(names) != 12 {
		t.Errorf("zoo has %d models, want 12", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			e := zooEnv(t, name, lm, 48)
			if err := env.Check(e, env.CheckOptions{Episodes: 1, MaxSteps: 6, Seed: 7}); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: checked in %v", name, time.Since(start).Round(time.Millisecond))
		})
	}
}
