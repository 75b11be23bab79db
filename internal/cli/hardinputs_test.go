package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHugeShapes binds shapes whose tensors cannot fit in memory or whose
// element counts overflow, for every command that executes or rewrites a
// model, and expects a message naming the file and the input before
// anything is allocated or written.
func TestHugeShapes(t *testing.T) {
	dir := fixtures(t)
	model := filepath.Join(dir, "mlp.onnx")
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
