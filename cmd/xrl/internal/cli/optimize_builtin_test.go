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

// TestOptimizeDefaultMethod checks which method optimize runs when the
// flags do not name one: the built-in agent for latency, TASO search once
// a search flag or another objective asks for a search.
func TestOptimizeDefaultMethod(t *testing.T) {
	cases := []struct {
		name          string
		args          []string
		agent, search string
	}{
		{"no method flags", nil, DefaultAgent, ""},
		{"--budget", []string{"--budget", "5"}, "", "taso"},
		{"--alpha", []string{"--alpha", "1.1"}, "", "taso"},
		{"--search greedy", []string{"--search", "greedy"}, "", "greedy"},
		{"--objective memory", []string{"--objective", "memory"}, "", "taso"},
		{"--objective memory with an agent", []string{"--objective", "memory", "--agent", "builtin"}, "builtin", ""},
		{"--samples with the default agent", []string{"--samples", "2"}, DefaultAgent, ""},
		{"--agent with brkga as its prior", []string{"--search", "brkga", "--agent", "builtin"}, "builtin", "brkga"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got *optimizeOptions
			c := NewCmdOptimize(IO{}, func(o *optimizeOptions) error { got = o; return nil })
			c.SetArgs(append([]string{"m.onnx", "-o", "out.onnx"}, tc.args...))
			if err := c.Execute(); err != nil {
				t.Fatal(err)
			}
			if got.Agent != tc.agent || got.Search != tc.search {
				t.Errorf("agent %q, search %q; want %q, %q", got.Agent, got.Search, tc.agent, tc.search)
			}
		})
	}
}
