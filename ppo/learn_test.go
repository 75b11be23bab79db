package ppo

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/xrl-dev/xrl/executor"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules"
)

// learnEnv is a two-layer BERT encoder at toy sizes under the real rule
// set and rewrite engine.
func learnEnv(t testing.TB) env.Config {
	t.Helper()
	set, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.Build("bert", models.PresetCPU, models.Overrides{Batch: 2, Layers: 2, Hidden: 64, Seq: 8, Heads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Graph.BindShapes(nil); err != nil {
		t.Fatal(err)
	}
	g, _, err := rewrite.Fold(m.Graph, executor.Evaluate)
	if err != nil {
		t.Fatal(err)
	}
	m.Graph = g
	eng := rewrite.NewEngine(set, rewrite.Options{MaxNodes: 2 * len(g.Nodes), Eval: executor.Evaluate})
	return env.Config{Model: m, Rewriter: eng, Latency: measure.Roofline{}}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// learnMargin is how much the mean return of the last episodes must
// exceed both that of the first episodes and the random agent's, per seed.
// Measured at seeds 1-3: learning, last - first was 1.47 to 2.38 and
// last - random 2.33 to 3.03; with learning switched off
// (XRL_LEARN_LR=1e-12), last - first was -0.79 to 0.42.
const learnMargin = 1.0

// learnSeeds are the seeds TestPPOLearns trains with; every one must learn.
var learnSeeds = []uint64{1, 2, 3}

// TestPPOLearns trains a small policy on BERT for a fixed budget at each
// of learnSeeds and checks that it learned: the mean return of the last
// episodes exceeds that of the first ones and the random agent's by
// learnMargin. XRL_LEARN_SEED replaces the seeds and XRL_LEARN_LR the
// learning rate, to check by hand that the test fails without learning.
func TestPPOLearns(t *testing.T) {
	seeds := learnSeeds
	if s := os.Getenv("XRL_LEARN_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("XRL_LEARN_SEED: %v", err)
		}
		seeds = []uint64{v}
	}
	lr := DefaultConfig().LearningRate
	if s := os.Getenv("XRL_LEARN_LR"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("XRL_LEARN_LR: %v", err)
		}
		lr = v
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			t.Parallel()
			first, last, rmean := learnRun(t, seed, lr)
			if last < first+learnMargin || last < rmean+learnMargin {
				t.Errorf("no learning at seed %d: last episodes' mean return %.2f, first %.2f, random %.2f (margin %.1f)", seed, last, first, rmean, learnMargin)
			}
		})
	}
}

// learnRun trains at one seed and learning rate and returns the mean
// returns of the first and last episodes and of the random agent.
func learnRun(t *testing.T, seed uint64, lr float64) (first, last, rmean float64) {
	const window = 25
	cfg := smallConfig()
	cfg.Episodes, cfg.Horizon, cfg.FeedbackEvery = 150, 20, 5
	cfg.UpdateEvery, cfg.Epochs, cfg.MinibatchSize = 5, 4, 16
	cfg.Seed, cfg.LearningRate = seed, lr
	ec := learnEnv(t)

	e, err := env.New(env.Config{Model: ec.Model, Rewriter: ec.Rewriter, Latency: ec.Latency, Horizon: cfg.Horizon, FeedbackEvery: cfg.FeedbackEvery})
	if err != nil {
		t.Fatal(err)
	}
	random := env.NewRandomAgent(cfg.Seed)
	var rnd []float64
	for i := 0; i < 2*window; i++ {
		ep, err := env.Rollout(e, random, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		rnd = append(rnd, ep.Return)
	}

	var returns []float64
	tr, err := New(t.TempDir(), cfg, ec, Options{OnEpisode: func(r EpisodeRecord) { returns = append(returns, float64(r.Return)) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	first, last, rmean = mean(returns[:window]), mean(returns[len(returns)-window:]), mean(rnd)
	_, initial, best := tr.Best()
	t.Logf("seed %d, lr %g: mean return: first %d episodes %.2f, last %d %.2f, random agent %.2f; best speedup %.3fx",
		seed, lr, window, first, window, last, rmean, float64(initial)/float64(best))
	return first, last, rmean
}
