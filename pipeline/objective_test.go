package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/measure/goexec"
)

func TestScoreString(t *testing.T) {
	s, err := Prepare(tinyBERT(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := executor.PlannedMemory(s.Model.Graph)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		lm    measure.LatencyModel
		score time.Duration
		want  string
	}{
		{"latency", measure.Roofline{}, 1234567 * time.Nanosecond, "1.235ms"},
		{"memory", measure.Cached(measure.MemoryObjective{Memory: goexec.MemoryModel{}}), measure.MemoryScore(measure.Bytes(mem.Total())), measure.Bytes(mem.Total()).String()},
	} {
		got := scoreString(tc.lm, s.Model, tc.score)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if tc.name == "memory" && !strings.HasSuffix(got, " MiB") {
			t.Errorf("memory score %q is not in MiB", got)
		}
	}
}

// TestCostCacheAcrossRuns checks the cost model's cache file
// (Measurement.CostCache): the search's op times are saved, and a later
// run charges every op the time the file holds instead of timing it
// again (each time in the file doubled, the latency doubles exactly).
func TestCostCacheAcrossRuns(t *testing.T) {
	b := graph.NewBuilder("mlp")
	x := b.Input("x", graph.Float32, 4, 64)
	w := graph.NewTensor(graph.Float32, 64, 64)
	h := b.Op("Relu", []*graph.Value{b.Op("MatMul", []*graph.Value{x, b.Const("w", w)}, nil)}, nil)
	b.Output(b.Op("Tanh", []*graph.Value{h}, nil))
	m := graphtest.Model(t, b)
	file := filepath.Join(t.TempDir(), "cost.json")
	ms := Measurement{CostCache: file}
	// run builds a cost model with the cache file and times m on it.
	run := func() (measure.LatencyModel, time.Duration) {
		lm, err := objectiveModel("", "cost", ms)
		if err != nil {
			t.Fatal(err)
		}
		st, err := lm.Latency(m)
		if err != nil {
			t.Fatal(err)
		}
		return lm, st.Median
	}
	first, before := run()
	if err := saveCostCache(first); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var ns map[string]int64
	if err := json.Unmarshal(data, &ns); err != nil {
		t.Fatal(err)
	}
	if len(ns) != 3 {
		t.Fatalf("%d op times saved, want 3 (MatMul, Relu, Tanh): %v", len(ns), ns)
	}
	for k := range ns {
		ns[k] *= 2
	}
	if data, err = json.Marshal(ns); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, after := run(); after != 2*before {
		t.Errorf("latency from the doubled file %v, want %v (twice the first run's)", after, 2*before)
	}
	// A file that is not the cost model's is an error naming it.
	if err := os.WriteFile(file, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := objectiveModel("", "cost", ms); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a corrupt cache file: error %v, want one naming %s", err, file)
	}
}
