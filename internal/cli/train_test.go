package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/ppo"
)

// tinyBERT writes a two-layer toy BERT (67 nodes, a dozen candidate
// rewrites per step) for training tests.
func tinyBERT(t *testing.T) string {
	t.Helper()
	m, err := models.Build("bert", models.PresetCPU, models.Overrides{Batch: 2, Layers: 2, Hidden: 64, Seq: 8, Heads: 2})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bert_tiny.onnx")
	if err := onnx.WriteFile(p, m); err != nil {
		t.Fatal(err)
	}
	return p
}

// smallNet are flags for a fast policy network.
var smallNet = []string{"--gat-layers", "2", "--hidden", "16", "--heads", "2", "--head-hidden", "32",
	"--horizon", "8", "--update-every", "2", "--runs", "3", "--max-time", "1s"}

func TestTrainFlagErrors(t *testing.T) {
	model := fixture(t, "mlp.onnx")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"resume without out", []string{"--resume"}, "--resume needs --out"},
		{"resume changes a hyper-parameter", []string{"--resume", "--out", t.TempDir(), "--learning-rate", "0.1"}, "--learning-rate cannot change"},
		{"heads do not divide", []string{"--heads", "3"}, "--heads"},
		{"zero episodes", []string{"--episodes", "0"}, "--episodes"},
		{"bad gamma", []string{"--gamma", "2"}, "--gamma"},
		{"slash in name", []string{"--exp-name", "a/b"}, "--exp-name"},
		{"bad runtime", []string{"--runtime", "tpu"}, "--runtime"},
		{"not a flag", []string{"--learning-rat", "1"}, "unknown flag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := run(append([]string{"train", model}, c.args...)...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want usage error containing %q", code, stderr, c.want)
			}
		})
	}
	code, _, stderr := run("optimize", model, "-o", filepath.Join(t.TempDir(), "o.onnx"), "--search", "taso", "--samples", "2")
	if code != exitUsage || !strings.Contains(stderr, "--samples needs --agent") {
		t.Errorf("--samples with a search: exit %d, %s", code, stderr)
	}
	code, _, stderr = run("optimize", model, "-o", filepath.Join(t.TempDir(), "o.onnx"), "--agent", "x.ckpt", "--search", "greedy")
	if code != exitUsage || !strings.Contains(stderr, "--search") {
		t.Errorf("--agent with --search: exit %d, %s", code, stderr)
	}
	code, _, stderr = run("optimize", model, "-o", filepath.Join(t.TempDir(), "o.onnx"), "--agent", model)
	if code != exitError || !strings.Contains(stderr, "--agent") {
		t.Errorf("--agent with a non-checkpoint: exit %d, %s", code, stderr)
	}
}

func TestTrainResumeAndOptimize(t *testing.T) {
	model := tinyBERT(t)
	dir := filepath.Join(t.TempDir(), "run")
	args := append([]string{"train", model, "--out", dir, "--episodes", "3"}, smallNet...)
	expectRun(t, args, exitOK, []string{"training", "update 1:", "verified on go", "latency of the best graph", "trained 3 episodes", "best.onnx", "rules.png"}, nil)
	for _, f := range []string{ppo.MetricsFile, ppo.CheckpointFile, ppo.ConfigFile, bestModelFile, costCacheFile, "return.png", "speedup.png", "rules.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run directory lacks %s", f)
		}
	}
	// A second run into the same directory needs --resume.
	if code, _, stderr := run(args...); code != exitError || !strings.Contains(stderr, "already holds a checkpoint") {
		t.Errorf("training over a run: exit %d, %s", code, stderr)
	}
	// Resume extends the run; the metric stream continues without gaps.
	code, stdout, stderr := run("train", model, "--out", dir, "--resume", "--episodes", "5", "--runs", "3", "--max-time", "1s")
	if code != exitOK {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "resuming at episode 3 of") || !strings.Contains(stdout, "trained 5 episodes") {
		t.Errorf("resume output:\n%s", stdout)
	}
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
	// The trained policy optimises the model.
	out := filepath.Join(t.TempDir(), "opt.onnx")
	expectRun(t, []string{"optimize", model, "--agent", filepath.Join(dir, ppo.CheckpointFile), "-o", out, "--samples", "2", "--runs", "3", "--max-time", "1s"}, exitOK, []string{"greedy rollout", "sample 2 rollout", "verified on go", "cost latency", "wrote"}, nil)
	if _, err := onnx.ReadFile(out); err != nil {
		t.Errorf("optimised model: %v", err)
	}
}

func TestTrainRunName(t *testing.T) {
	o := &trainOptions{Model: "models/bert.onnx", ExpName: "ppo", PPO: ppo.DefaultConfig()}
	now := time.Unix(1_700_000_123, 0)
	if got, want := o.runDir(now), filepath.Join("runs", "bert__ppo__43__1700000123"); got != want {
		t.Errorf("run directory %q, want %q", got, want)
	}
	o.Out = "elsewhere"
	if got := o.runDir(now); got != "elsewhere" {
		t.Errorf("--out ignored: %q", got)
	}
	cases := []struct {
		done, total int
		want        string
	}{{0, 10, "[    ]"}, {5, 10, "[==  ]"}, {10, 10, "[====]"}, {12, 10, "[====]"}}
	for _, c := range cases {
		if got := bar(c.done, c.total, 4); got != c.want {
			t.Errorf("bar(%d, %d) = %q, want %q", c.done, c.total, got, c.want)
		}
	}
}
