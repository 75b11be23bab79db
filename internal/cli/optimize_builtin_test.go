package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/onnx"
)

func TestOptimizeBuiltinAgent(t *testing.T) {
	dir := t.TempDir()
	model := zooFile(t, dir, "bert_small", "bert", models.Overrides{Batch: 2, Layers: 2, Hidden: 64, Seq: 8, Heads: 2})
	out := filepath.Join(dir, "opt.onnx")
	code, stdout, stderr := run("optimize", model, "--agent", "builtin", "--runtime", "roofline", "-o", out, "--runs", "3", "--max-time", "1s")
	if code != exitOK {
		t.Fatalf("optimize --agent builtin: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, w := range []string{"with the policy builtin", "built-in agent: trained by", "greedy rollout", "verified on go", "roofline latency", "wrote"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	if _, err := onnx.ReadFile(out); err != nil {
		t.Errorf("optimised model: %v", err)
	}
}
