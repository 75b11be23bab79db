package train

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/egrl"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/ppo"
)

// zooSpec names a zoo model and its sizes.
type zooSpec struct {
	name, zoo string
	ov        models.Overrides
}

// writeZoo builds the models of specs and writes each to dir/NAME.onnx,
// returning the paths in order.
func writeZoo(t *testing.T, dir string, specs ...zooSpec) []string {
	t.Helper()
	paths := make([]string, len(specs))
	for i, s := range specs {
		paths[i] = filepath.Join(dir, s.name+".onnx")
		m, err := models.Build(s.zoo, models.PresetCPU, s.ov)
		if err == nil {
			err = onnx.WriteFile(paths[i], m)
		}
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	return paths
}

// tinyBERT writes a two-layer toy BERT (67 nodes, a dozen candidate
// rewrites per step) for training tests.
func tinyBERT(t *testing.T) string {
	t.Helper()
	return writeZoo(t, t.TempDir(), zooSpec{"bert_tiny", "bert", models.Overrides{Batch: 2, Layers: 2, Hidden: 64, Seq: 8, Heads: 2}})[0]
}

// quick returns a training run of models with a fast policy network and
// short latency measurements.
func quick(models ...string) Config {
	cfg := Config{Models: models, PPO: ppo.DefaultConfig(), EGRL: egrl.DefaultConfig(), ExpName: "ppo", Tolerance: 1e-4,
		Measurement: pipeline.Measurement{Backend: measure.BackendOptions{OptLevel: "all"},
			Measure: measure.MeasureOptions{Warmup: 3, Runs: 3, MaxTime: time.Second, BlockRuns: 8, Precision: 0.01,
				MinTime: measure.DefaultMinTime, Settle: true}}}
	p := &cfg.PPO
	p.GATLayers, p.Hidden, p.Heads, p.HeadHidden, p.Horizon, p.UpdateEvery = 2, 16, 2, []int{32}, 8, 2
	return cfg
}

// run runs cfg and returns what the run logged followed by its printed
// report.
func run(t *testing.T, cfg Config) (string, error) {
	t.Helper()
	var out strings.Builder
	cfg.Log = &out
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		return out.String(), err
	}
	if err := rep.Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.String(), nil
}

// wantLines fails t unless out contains every string of want.
func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}
