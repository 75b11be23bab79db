package pipeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/search"
)

// tinyBERT writes a two-layer BERT encoder at toy sizes to a temporary file.
func tinyBERT(t *testing.T) string {
	t.Helper()
	m, err := models.Build("bert", models.PresetCPU, models.Overrides{Batch: 1, Layers: 1, Hidden: 32, Seq: 4, Heads: 2})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bert.onnx")
	if err := onnx.WriteFile(path, m); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOptimizeWritesAVerifiedModel(t *testing.T) {
	in := tinyBERT(t)
	cases := []struct {
		name   string
		search string
		want   []string
	}{
		{"greedy", "greedy", []string{"greedy search", "verified on go", `stop reason`, "go latency", "nodes:", "wrote"}},
		{"random", "random", []string{"random search", "verified on go", "RULE"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.onnx")
			var log bytes.Buffer
			rep, err := Optimize(&log, Config{
				Model: in, Output: out, Latency: "go", Search: tc.search, Tolerance: 1e-4,
				Measurement:   Measurement{Measure: measure.MeasureOptions{Runs: 1, Warmup: 0}},
				SearchOptions: search.Options{Budget: 3, Seed: 1},
			})
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			if err := rep.WriteText(&log); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(log.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, log.String())
				}
			}
			written, err := onnx.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(written.Graph.Nodes), rep.Nodes.After; got != want {
				t.Errorf("written model has %d nodes, result %d", got, want)
			}
			if rep.Method.Best > rep.Method.Initial {
				t.Errorf("best latency %v above the start's %v", rep.Method.Best, rep.Method.Initial)
			}
		})
	}
}

func TestOptimizeErrors(t *testing.T) {
	in := tinyBERT(t)
	cases := []struct {
		name  string
		cfg   Config
		check func(error) bool
	}{
		{"missing file", Config{Model: filepath.Join(t.TempDir(), "nope.onnx")},
			func(err error) bool { return strings.Contains(err.Error(), "nope.onnx: no such file") }},
		{"unknown rule", Config{Model: in, Rules: []string{"no-such-rule"}},
			func(err error) bool { var u *UnknownRuleError; return errors.As(err, &u) && u.Name == "no-such-rule" }},
		{"bad policy", Config{Model: in, Agent: in},
			func(err error) bool { var p *PolicyError; return errors.As(err, &p) && p.Path == in }},
		{"unknown search", Config{Model: in, Search: "annealing", Latency: "go"},
			func(err error) bool { return strings.Contains(err.Error(), "annealing") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Output = filepath.Join(t.TempDir(), "out.onnx")
			tc.cfg.Tolerance = 1e-4
			_, err := Optimize(&bytes.Buffer{}, tc.cfg)
			if err == nil || !tc.check(err) {
				t.Fatalf("error %v", err)
			}
			if _, serr := os.Stat(tc.cfg.Output); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("a failed run wrote %s", tc.cfg.Output)
			}
		})
	}
}

func TestCountRules(t *testing.T) {
	got := CountRules([]string{"a", "b", "a", "c", "a"})
	if want := "a x3, b, c"; got != want {
		t.Errorf("CountRules = %q, want %q", got, want)
	}
}

func TestOptimizeMemoryObjectives(t *testing.T) {
	in := tinyBERT(t)
	for _, tc := range []struct {
		objective string
		want      []string
	}{
		{measure.ObjectiveMemory, []string{"minimising planned peak memory", "memory objective (planned peak memory of the searched graph): ", " MiB -> ", "planned peak memory: "}},
		{measure.ObjectiveBoth, []string{"both objective: ", "geometric mean", " MiB -> "}},
	} {
		t.Run(tc.objective, func(t *testing.T) {
			cfg := Config{Model: in, Output: filepath.Join(t.TempDir(), "out.onnx"), Latency: "roofline", Search: "greedy",
				Tolerance: 1e-4, Objective: tc.objective}
			cfg.Measurement.Measure = measure.MeasureOptions{Runs: 1}
			cfg.SearchOptions = search.Options{Budget: 3, Seed: 1}
			var log strings.Builder
			rep, err := Optimize(&log, cfg)
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			if err := rep.WriteText(&log); err != nil {
				t.Fatal(err)
			}
			res := rep.Method
			if missing := slices.DeleteFunc(slices.Clone(tc.want), func(w string) bool { return strings.Contains(log.String(), w) }); len(missing) > 0 {
				t.Errorf("report lacks %q:\n%s", missing, log.String())
			}
			if res.InitialBytes <= 0 || res.BestBytes <= 0 {
				t.Errorf("planned memory %v -> %v: want positive figures", res.InitialBytes, res.BestBytes)
			}
			if tc.objective == measure.ObjectiveMemory && res.BestBytes > res.InitialBytes {
				t.Errorf("planned memory %v -> %v: the memory objective's best uses more", res.InitialBytes, res.BestBytes)
			}
			if tc.objective == measure.ObjectiveMemory && res.Initial != measure.MemoryScore(res.InitialBytes) {
				t.Errorf("start score %v, planned memory %v: the memory objective ranks by bytes", res.Initial, res.InitialBytes)
			}
		})
	}
}
