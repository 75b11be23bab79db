package cli

import (
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOptimizeJSON runs `xrl optimize --json` with a search and with the
// built-in agent and checks that stdout is exactly one JSON object holding
// the report's fields, while the progress lines went to stderr.
func TestOptimizeJSON(t *testing.T) {
	model := fixture(t, "mlp.onnx")
	// kind is the method the flags select, and names the case.
	cases := []struct {
		kind string
		args []string
	}{
		{"search", []string{"--runtime", "go", "--search", "greedy", "--budget", "3", "--runs", "3"}},
		{"agent", []string{"--agent", "builtin", "--runtime", "roofline", "--runs", "3", "--max-time", "1s"}},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "opt.onnx")
			args := append([]string{"optimize", model, "-o", out, "--json"}, tc.args...)
			code, stdout, stderr := run(args...)
			if code != exitOK {
				t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			dec := json.NewDecoder(strings.NewReader(stdout))
			var rep map[string]any
			if err := dec.Decode(&rep); err != nil {
				t.Fatalf("stdout is not a JSON object: %v\n%s", err, stdout)
			}
			if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
				t.Fatalf("stdout holds more than one JSON value (%v):\n%s", err, stdout)
			}
			if got := field(t, rep, "output"); got != out {
				t.Errorf("output = %v, want %s", got, out)
			}
			if got := field(t, rep, "method.kind"); got != tc.kind {
				t.Errorf("method.kind = %v, want %s", got, tc.kind)
			}
			if got := field(t, rep, "decision.choice"); !slices.Contains([]any{"optimised", "folded", "original"}, got) {
				t.Errorf("decision.choice = %v", got)
			}
			positive := []string{"decision.speedup", "nodes.before", "nodes.after", "times.total_ns"}
			// A result that is the original's graph is not timed: no
			// medians, the original written at 1x.
			if reason, _ := field(t, rep, "decision.reason").(string); !strings.HasSuffix(reason, "not timed") {
				positive = append(positive, "decision.before_ns")
			} else if field(t, rep, "decision.speedup") != 1.0 || field(t, rep, "decision.choice") != "original" {
				t.Errorf("not timed, but decision.choice = %v, speedup = %v; want the original at 1", field(t, rep, "decision.choice"), field(t, rep, "decision.speedup"))
			}
			for _, path := range positive {
				if v, ok := field(t, rep, path).(float64); !ok || v <= 0 {
					t.Errorf("%s = %v, want a positive number", path, field(t, rep, path))
				}
			}
			for _, path := range []string{"method.stop_reason", "decision.reason", "method.latency_model"} {
				if v, ok := field(t, rep, path).(string); !ok || v == "" {
					t.Errorf("%s = %v, want a non-empty string", path, field(t, rep, path))
				}
			}
			if !strings.Contains(stderr, "verified on go") || !strings.Contains(stderr, "writing the ") {
				t.Errorf("stderr lacks the progress lines:\n%s", stderr)
			}
		})
	}
}

// field returns the value at a dotted path of a decoded JSON object,
// failing the test when a step is missing.
func field(t *testing.T, obj map[string]any, path string) any {
	t.Helper()
	var v any = obj
	for _, key := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: %v is not an object", path, v)
		}
		if v, ok = m[key]; !ok {
			t.Fatalf("report lacks %s", path)
		}
	}
	return v
}
