package ppo

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/internal/xrltest"
)

// multiTasks returns a small chain and a large one whose latency is about
// 40 times the small one's (more nodes, each 25 times dearer).
func multiTasks(t *testing.T, names ...string) []Task {
	t.Helper()
	small := chainEnv(t)
	var ops []string
	for range 4 {
		ops = append(ops, "Identity", "Relu", "Relu", "Identity")
	}
	large := env.Config{Model: xrltest.ChainModel(t, ops...), Rewriter: xrltest.DropRewriter{},
		Latency: &xrltest.NodeLatency{PerNode: 25 * time.Microsecond}}
	cfgs := []env.Config{small, large}
	out := make([]Task, len(names))
	for i, n := range names {
		out[i] = Task{Name: n, Env: cfgs[i%len(cfgs)]}
	}
	return out
}

func runTasks(t *testing.T, dir string, cfg Config, tasks []Task, resume bool) error {
	t.Helper()
	var tr *Trainer
	var err error
	if resume {
		tr, err = ResumeTasks(dir, cfg.Episodes, tasks, Options{Clock: fakeClock()})
	} else {
		tr, err = NewTasks(dir, cfg, tasks, Options{Clock: fakeClock()})
	}
	if err != nil {
		return err
	}
	defer tr.Close()
	return tr.Run(context.Background())
}

func TestMultiModelTraining(t *testing.T) {
	for _, random := range []bool{false, true} {
		t.Run(map[bool]string{false: "round-robin", true: "random"}[random], func(t *testing.T) {
			dir := t.TempDir()
			cfg := smallConfig()
			cfg.Episodes, cfg.RandomModels = 8, random
			if err := runTasks(t, dir, cfg, multiTasks(t, "small", "large"), false); err != nil {
				t.Fatal(err)
			}
			recs, err := ReadMetrics(filepath.Join(dir, MetricsFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(recs.Episodes) != cfg.Episodes {
				t.Fatalf("%d episode records, want %d", len(recs.Episodes), cfg.Episodes)
			}
			count := map[string]int{}
			initial := map[string]float64{}
			for i, r := range recs.Episodes {
				count[r.Model]++
				if !random {
					if want := []string{"small", "large"}[i%2]; r.Model != want {
						t.Fatalf("episode %d drew %q, want %q (round robin)", r.Episode, r.Model, want)
					}
				}
				initial[r.Model] = float64(r.InitialLatencyUS)
				// Eq. 2 telescopes: the measured rewards sum to the
				// improvement in percent of this model's start latency,
				// whatever the model's size.
				unmeasured := float64(r.Length - r.Measurements)
				want := 100*(1-float64(r.FinalLatencyUS)/float64(r.InitialLatencyUS)) + env.UnmeasuredReward*unmeasured
				if math.Abs(float64(r.Return)-want) > 1e-6 {
					t.Errorf("episode %d (%s): return %g, want %g (relative to the model's start latency)", r.Episode, r.Model, float64(r.Return), want)
				}
				if float64(r.Return) > 100+env.UnmeasuredReward*float64(cfg.Horizon) {
					t.Errorf("episode %d (%s): return %g is not scaled to the model", r.Episode, r.Model, float64(r.Return))
				}
			}
			if count["small"] == 0 || count["large"] == 0 || count[""] != 0 {
				t.Fatalf("episodes per model %v: want both models named", count)
			}
			if initial["large"] < 30*initial["small"] {
				t.Fatalf("start latencies %v: the test wants models of very different sizes", initial)
			}
			ck, err := ReadCheckpoint(filepath.Join(dir, CheckpointFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(ck.State.Models) != 2 || ck.State.Models[0].Episodes+ck.State.Models[1].Episodes != cfg.Episodes {
				t.Fatalf("checkpoint's per-model progress %+v", ck.State.Models)
			}
		})
	}
}

func TestMultiModelResume(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig()
	cfg.Episodes = 4
	if err := runTasks(t, dir, cfg, multiTasks(t, "a", "b"), false); err != nil {
		t.Fatal(err)
	}
	cfg.Episodes = 6
	for _, tc := range []struct {
		name  string
		tasks []Task
		want  string
	}{
		{"other names", multiTasks(t, "a", "c"), "trained on the models a, b; it cannot continue on a, c"},
		{"other order", multiTasks(t, "b", "a"), "trained on the models a, b; it cannot continue on b, a"},
		{"one more", multiTasks(t, "a", "b", "c"), "it cannot continue on a, b, c"},
		{"one model", []Task{{Env: chainEnv(t)}}, "trained on the models a, b; it cannot continue on "},
		{"duplicate", multiTasks(t, "a", "a"), `two models are named "a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := runTasks(t, dir, cfg, tc.tasks, true)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("resume: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if err := runTasks(t, dir, cfg, multiTasks(t, "a", "b"), true); err != nil {
		t.Fatalf("resume on the same models: %v", err)
	}
	recs, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs.Episodes) != 6 {
		t.Fatalf("%d episodes after resuming, want 6", len(recs.Episodes))
	}

	single := t.TempDir()
	cfg.Episodes = 2
	if err := runTasks(t, single, cfg, []Task{{Env: chainEnv(t)}}, false); err != nil {
		t.Fatal(err)
	}
	cfg.Episodes = 4
	err = runTasks(t, single, cfg, multiTasks(t, "a", "b"), true)
	if err == nil || !strings.Contains(err.Error(), "trained on one model") {
		t.Fatalf("resuming a one-model run on two: %v", err)
	}
}
