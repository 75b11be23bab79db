package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/onnx"
)

// TestHugeShapes binds shapes whose tensors cannot fit in memory or whose
// element counts overflow, for every command that executes or rewrites a
// model, and expects a message naming the file and the input before
// anything is allocated or written.
func TestHugeShapes(t *testing.T) {
	model := fixture(t, "mlp.onnx")
	shapes := map[string][]string{
		"over memory": {"x=100000000000x16", "GiB", "memory available"},
		"overflow":    {"x=1152921504606846976x16", "2^48"},
	}
	for what, spec := range shapes {
		out := t.TempDir()
		o := filepath.Join(out, "o.onnx")
		cmds := map[string][]string{
			"run":      {"run", model, "--runtime", "go"},
			"run ort":  {"run", model, "--runtime", "ort"},
			"verify":   {"verify", model, model, "--runtime", "go"},
			"compare":  {"compare", model, model, "--runtime", "go"},
			"optimize": {"optimize", model, "-o", o, "--runtime", "cost", "--budget", "2"},
			"rollout":  {"env", "rollout", model, "--episodes", "1"},
			"train":    {"train", model, "--episodes", "1", "--out", filepath.Join(out, "run")},
		}
		for name, args := range cmds {
			t.Run(what+"/"+name, func(t *testing.T) {
				code, stdout, stderr := run(append(args, "--shape", spec[0])...)
				if code != exitError {
					t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, exitError, stdout, stderr)
				}
				for _, w := range append([]string{"mlp.onnx", `"x"`}, spec[1:]...) {
					if !strings.Contains(stderr, w) {
						t.Errorf("stderr %q does not mention %q", stderr, w)
					}
				}
				if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
					t.Errorf("stderr has a trace: %s", stderr)
				}
				if ents, _ := os.ReadDir(out); len(ents) > 0 {
					t.Errorf("left %s behind", ents[0].Name())
				}
			})
		}
	}
}

// TestOpsetRange checks that models outside the supported opsets are
// refused by every command with a message naming the range, and that
// opset 1 models are still converted.
func TestOpsetRange(t *testing.T) {
	dir := t.TempDir()
	write := func(opset int64) string {
		b := graph.NewBuilder("o")
		x := b.Input("x", graph.Float32, 2, 3)
		b.Output(b.Op("Relu", []*graph.Value{b.Op("Relu", []*graph.Value{x}, nil)}, nil))
		g := graphtest.Graph(t, b)
		data, err := onnx.Encode(&graph.Model{IRVersion: 8, Opsets: []graph.OpsetID{{Version: opset}}, Graph: g})
		if err != nil {
			t.Fatalf("opset %d: %v", opset, err)
		}
		p := filepath.Join(dir, fmt.Sprintf("opset%d.onnx", opset))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old, bad := write(1), write(99)
	out := filepath.Join(t.TempDir(), "o.onnx")
	for _, args := range [][]string{
		{"inspect", bad},
		{"run", bad, "--runtime", "go"},
		{"optimize", bad, "-o", out, "--runtime", "cost"},
		{"convert", bad, out},
	} {
		code, _, stderr := run(args...)
		if code != exitError || !strings.Contains(stderr, "opset99.onnx") || !strings.Contains(stderr, "opsets 9 to 21") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", args, out)
		}
	}
	if code, _, stderr := run("run", old, "--runtime", "go", "--runs", "1", "--warmup", "0"); code != exitOK {
		t.Errorf("opset 1: exit %d, stderr %q", code, stderr)
	}
}

// TestOutputPathCheckedFirst gives optimize outputs it cannot write and
// expects the error before the search starts.
func TestOutputPathCheckedFirst(t *testing.T) {
	model := fixture(t, "mlp.onnx")
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, out, want string }{
		{"missing directory", filepath.Join(tmp, "no", "such", "o.onnx"), "does not exist"},
		{"a directory", tmp, "is a directory"},
		{"under a file", filepath.Join(file, "o.onnx"), "not a directory"},
	}
	for _, c := range cases {
		for _, extra := range [][]string{nil, {"--agent", filepath.Join(tmp, "no.ckpt")}} {
			args := append([]string{"optimize", model, "-o", c.out, "--runtime", "cost"}, extra...)
			code, stdout, stderr := run(args...)
			if code != exitError || !strings.Contains(stderr, c.out) || !strings.Contains(stderr, c.want) {
				t.Errorf("%s %v: exit %d, stderr %q", c.name, extra, code, stderr)
			}
			if stdout != "" {
				t.Errorf("%s %v: the search started: %q", c.name, extra, stdout)
			}
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 1 {
		t.Errorf("left %d entries in %s", len(ents), tmp)
	}
}

// TestCostCacheFlagChecked: a --cost-cache file that cannot be written, or
// given where the cost model does not rank the rewrites, is an error
// naming the flag before any work is done.
func TestCostCacheFlagChecked(t *testing.T) {
	model := fixture(t, "mlp.onnx")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "o.onnx")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing directory", []string{"--cost-cache", filepath.Join(tmp, "no", "c.json")}, "does not exist"},
		{"a directory", []string{"--cost-cache", tmp}, "is a directory"},
		{"measured search", []string{"--cost-cache", filepath.Join(tmp, "c.json"), "--runtime", "go"}, "needs --runtime cost"},
		{"memory objective", []string{"--cost-cache", filepath.Join(tmp, "c.json"), "--objective", "memory"}, "--objective latency"},
	}
	for _, c := range cases {
		code, stdout, stderr := run(append([]string{"optimize", model, "-o", out}, c.args...)...)
		if code != exitError || !strings.Contains(stderr, "--cost-cache") || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q", c.name, code, stderr)
		}
		if stdout != "" {
			t.Errorf("%s: the search started: %q", c.name, stdout)
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left %d entries in %s", len(ents), tmp)
	}
}
