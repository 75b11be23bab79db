package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestOptimizeVerbose runs `xrl optimize -v`: the summary shows ONNX
// Runtime's time per op type before and after, and with --json the report
// holds it as op_profile.
func TestOptimizeVerbose(t *testing.T) {
	model := fixture(t, "mlp.onnx")
	flags := []string{"-v", "--runtime", "go", "--search", "greedy", "--budget", "3", "--runs", "3"}
	for _, asJSON := range []bool{false, true} {
		name := "text"
		if asJSON {
			name = "json"
		}
		t.Run(name, func(t *testing.T) {
			args := append([]string{"optimize", model, "-o", filepath.Join(t.TempDir(), "opt.onnx")}, flags...)
			if asJSON {
				args = append(args, "--json")
			}
			code, stdout, stderr := run(args...)
			if code != exitOK {
				t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !asJSON {
				for _, want := range []string{"time per op type in ort", "before %   after %", "GEMM-like (MatMul, Gemm", "total "} {
					if !strings.Contains(stdout, want) {
						t.Errorf("summary lacks %q:\n%s", want, stdout)
					}
				}
				return
			}
			var rep map[string]any
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("stdout is not a JSON object: %v\n%s", err, stdout)
			}
			if got := field(t, rep, "op_profile.backend"); got != "ort" {
				t.Errorf("op_profile.backend = %v, want ort", got)
			}
			ops, ok := field(t, rep, "op_profile.ops").([]any)
			if !ok || len(ops) == 0 {
				t.Fatalf("op_profile.ops = %v, want rows", field(t, rep, "op_profile.ops"))
			}
			for _, path := range []string{"op_profile.before.time_ns", "op_profile.after.time_ns", "op_profile.before.gemm_share"} {
				if v, ok := field(t, rep, path).(float64); !ok || v <= 0 {
					t.Errorf("%s = %v, want a positive number", path, field(t, rep, path))
				}
			}
		})
	}
}
