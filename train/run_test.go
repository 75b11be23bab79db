package train

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/ppo"
)

func TestRunResume(t *testing.T) {
	model := tinyBERT(t)
	dir := filepath.Join(t.TempDir(), "run")
	cfg := quick(model)
	cfg.Dir, cfg.PPO.Episodes = dir, 3
	out, err := run(t, cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantLines(t, out, "training", "update 1:", "verified on go", "latency of the best graph", "trained 3 episodes", "best.onnx", "rules.png")
	for _, f := range []string{ppo.MetricsFile, ppo.CheckpointFile, ppo.ConfigFile, BestModelFile, CostCacheFile, "return.png", "speedup.png", "rules.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run directory lacks %s", f)
		}
	}
	if _, err := onnx.ReadFile(filepath.Join(dir, BestModelFile)); err != nil {
		t.Errorf("best model: %v", err)
	}
	// A second run into the same directory needs Resume.
	if _, err := run(t, cfg); err == nil || !strings.Contains(err.Error(), "already holds a checkpoint") {
		t.Errorf("training over a run: %v", err)
	}
	// Resume extends the run; the metric stream continues without gaps.
	again := quick(model)
	again.Dir, again.Resume, again.Episodes = dir, true, 5
	out, err = run(t, again)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	wantLines(t, out, "resuming at episode 3 of", "trained 5 episodes")
	recs, err := ppo.ReadMetrics(filepath.Join(dir, ppo.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs.Episodes) != 5 {
		t.Fatalf("%d episode records after resuming to 5", len(recs.Episodes))
	}
	for i, e := range recs.Episodes {
		if e.Episode != i+1 {
			t.Fatalf("episode record %d is episode %d", i, e.Episode)
		}
	}
}

// TestStartAndResume checks that a run failing before its first episode
// leaves no run directory, and that resuming refuses another model or
// other input shapes, and another runtime or rule set, leaving the
// checkpoint as it was.
func TestStartAndResume(t *testing.T) {
	const (
		loop  = "../testdata/controlflow/loop_mlp.onnx" // x: batch x 32
		gelu  = "../testdata/fusion/gelu_mul_opset13.onnx"
		other = "../testdata/fusion/gelu_nn_opset13.onnx" // gelu's inputs
	)
	tmp := t.TempDir()
	failed := filepath.Join(tmp, "runs", "failed")
	for _, c := range []struct {
		name string
		set  func(cfg *Config)
		want string
	}{
		{"unknown runtime", func(cfg *Config) { cfg.Runtime = "tpu" }, "tpu"},
		{"bad PPO setting", func(cfg *Config) { cfg.PPO.Episodes = 0 }, "--episodes"},
	} {
		cfg := quick(loop)
		cfg.Dir = failed
		c.set(&cfg)
		if _, err := run(t, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(tmp, "runs")); err == nil {
			t.Errorf("%s: a failed start left %s", c.name, filepath.Join(tmp, "runs"))
		}
	}

	checkpoints := map[string][]byte{}
	for _, model := range []string{loop, gelu} {
		cfg := quick(model)
		cfg.Dir, cfg.PPO.Episodes, cfg.PPO.Horizon = filepath.Join(tmp, filepath.Base(model)), 1, 2
		if log, err := run(t, cfg); err != nil {
			t.Fatalf("train on %s: %v\n%s", model, err, log)
		}
		ck, err := os.ReadFile(filepath.Join(cfg.Dir, ppo.CheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		checkpoints[cfg.Dir] = ck
	}
	for _, c := range []struct {
		name, model, resume string
		shapes              map[string][]int
		set                 func(cfg *Config)
		want                string
		config              bool // a *ConfigError
	}{
		{"other model", other, gelu, nil, nil, "another model", false},
		{"other shape", loop, loop, map[string][]int{"x": {4, 32}}, nil, "x=1x32", false},
		{"other runtime", loop, loop, nil, func(cfg *Config) { cfg.Runtime = "roofline" }, "the run was trained with cost rewards", true},
		{"other rules", loop, loop, nil, func(cfg *Config) { cfg.Rules = []string{"identity-elim"} }, "--rules cannot change", true},
	} {
		cfg := quick(c.model)
		cfg.Dir, cfg.Resume, cfg.Episodes, cfg.Shapes = filepath.Join(tmp, filepath.Base(c.resume)), true, 2, c.shapes
		if c.set != nil {
			c.set(&cfg)
		}
		_, err := run(t, cfg)
		var ce *ConfigError
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.As(err, &ce) != c.config {
			t.Errorf("%s: error %v, want one containing %q (a configuration error: %v)", c.name, err, c.want, c.config)
			continue
		}
		if !c.config && !strings.Contains(err.Error(), "--resume") {
			t.Errorf("%s: error %v does not name --resume", c.name, err)
		}
	}
	for dir, before := range checkpoints {
		after, err := os.ReadFile(filepath.Join(dir, ppo.CheckpointFile))
		if err != nil || string(after) != string(before) {
			t.Errorf("a refused resume changed the checkpoint in %s (%v)", dir, err)
		}
	}
}
