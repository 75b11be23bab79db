package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/ppo"
)

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

// TestTrainThenOptimize trains and resumes through the command line,
// then optimises with the policy the run wrote.
func TestTrainThenOptimize(t *testing.T) {
	model := fixture(t, "mlp.onnx")
	dir := filepath.Join(t.TempDir(), "run")
	args := append([]string{"train", model, "--out", dir, "--episodes", "3"}, smallNet...)
	expectRun(t, args, exitOK, []string{"training", "update 1:", "verified on go", "latency of the best graph", "trained 3 episodes", "best.onnx", "rules.png"}, nil)
	expectRun(t, []string{"train", model, "--out", dir, "--resume", "--episodes", "4", "--runs", "3", "--max-time", "1s"}, exitOK,
		[]string{"resuming at episode 3 of", "trained 4 episodes"}, nil)
	out := filepath.Join(t.TempDir(), "opt.onnx")
	expectRun(t, []string{"optimize", model, "--agent", filepath.Join(dir, ppo.CheckpointFile), "-o", out, "--samples", "2", "--runs", "3", "--max-time", "1s"}, exitOK, []string{"greedy rollout", "sample 2 rollout", "verified on go", "cost latency", "wrote"}, nil)
	if _, err := onnx.ReadFile(out); err != nil {
		t.Errorf("optimised model: %v", err)
	}
}
