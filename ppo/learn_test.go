package ppo

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/executor"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules"
)

// rooflineLatency is a deterministic stand-in for measured latency: a
// fixed launch cost per operator plus compute at 20 GFLOP/s plus writing
// every output at 10 GB/s. Like a small model on a CPU it rewards fewer
// operators (fusions, merged projections) and less work, and it charges
// rewrites that add operators or traffic.
type rooflineLatency struct{}

func (rooflineLatency) Name() string { return "roofline" }

func (rooflineLatency) Latency(m *graph.Model) (measure.Stats, error) {
	var bytes float64
	for _, n := range m.Graph.Nodes {
		for _, o := range n.Outputs {
			if o != nil && o.ShapeKnown && o.Shape.Static() {
				bytes += float64(o.DType.Size() * graph.NumElements(o.Shape.Ints()))
			}
		}
	}
	ns := float64(len(m.Graph.Nodes))*5000 + float64(models.FLOPs(m.Graph))/20 + bytes/10
	d := time.Duration(ns)
	return measure.Stats{N: 1, Median: d, P10: d, P90: d, Min: d, Stable: true}, nil
}

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
	return env.Config{Model: m, Rewriter: eng, Latency: rooflineLatency{}}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// TestPPOLearns trains a small policy on BERT for a fixed budget and
// checks that it learned: the mean return of the last episodes exceeds
// that of the first ones and the random agent's.
func TestPPOLearns(t *testing.T) {
	const window = 25
	cfg := smallConfig()
	cfg.Episodes, cfg.Horizon, cfg.FeedbackEvery = 150, 20, 5
	cfg.UpdateEvery, cfg.Epochs, cfg.MinibatchSize = 5, 4, 16
	if s := os.Getenv("XRL_LEARN_SEED"); s != "" { // to check other seeds by hand
		cfg.Seed, _ = strconv.ParseUint(s, 10, 64)
	}
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
	first, last, rmean := mean(returns[:window]), mean(returns[len(returns)-window:]), mean(rnd)
	_, initial, best := tr.Best()
	t.Logf("mean return: first %d episodes %.2f, last %d %.2f, random agent %.2f; best speedup %.3fx",
		window, first, window, last, rmean, float64(initial)/float64(best))
	if !(last > first) || !(last > rmean) {
		t.Errorf("no learning: last episodes' mean return %.2f, first %.2f, random %.2f", last, first, rmean)
	}
}
