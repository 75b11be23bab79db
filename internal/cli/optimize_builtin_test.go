package cli

import (
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/onnx"
)

func TestOptimizeBuiltinAgent(t *testing.T) {
	dir := t.TempDir()
	model := zooFile(t, dir, "bert_small", "bert", models.Overrides{Batch: 2, Layers: 2, Hidden: 64, Seq: 8, Heads: 2})
	out := filepath.Join(dir, "opt.onnx")
	expectRun(t, []string{"optimize", model, "--agent", "builtin", "--runtime", "roofline", "-o", out, "--runs", "3", "--max-time", "1s"}, exitOK, []string{"with the policy builtin", "built-in agent: trained by", "greedy rollout", "verified on go", "roofline latency", "wrote"}, nil)
	if _, err := onnx.ReadFile(out); err != nil {
		t.Errorf("optimised model: %v", err)
	}
}
