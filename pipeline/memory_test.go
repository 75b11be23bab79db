package pipeline

import (
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/search"
)

// TestOptimizeRefusesWhatMemoryCannotHold lowers the memory available to
// the process (a 64 MiB Go memory limit, which sysmem reports) and checks
// that optimising a 5,000-node graph is refused before it starts, by an
// error naming the model, the estimate and the memory available, and that
// nothing is written.
func TestOptimizeRefusesWhatMemoryCannotHold(t *testing.T) {
	m, err := models.Build("resmlp", models.PresetPaper, models.Overrides{Layers: 1250})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "resmlp5k.onnx")
	if err := onnx.WriteFile(path, m); err != nil {
		t.Fatal(err)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(64 << 20))
	for _, tc := range []struct {
		name string
		cfg  Config
		run  string
	}{
		{"taso", Config{Search: "taso", SearchOptions: search.Options{Budget: 20}}, "taso search with budget 20"},
		{"agent", Config{Agent: "builtin"}, "an agent shown 32 candidates a step"},
	} {
		cfg := tc.cfg
		cfg.Model, cfg.Output, cfg.Latency = path, filepath.Join(dir, tc.name+".onnx"), "cost"
		_, err := Optimize(io.Discard, cfg)
		if err == nil {
			t.Fatalf("%s: optimising 5,000 nodes within 64 MiB was not refused", tc.name)
		}
		msg := err.Error()
		for _, want := range []string{path, "5000 nodes", tc.run, "needs", "more than the 64.0 MiB of memory available"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: error %q does not say %q", tc.name, msg, want)
			}
		}
		if _, err := os.Stat(cfg.Output); err == nil {
			t.Errorf("%s: %s was written", tc.name, cfg.Output)
		}
	}
}
