package train

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/ppo"
)

func TestRunCorpus(t *testing.T) {
	corpus := t.TempDir()
	paths := writeZoo(t, corpus,
		zooSpec{"bert_small", "bert", models.Overrides{Batch: 2, Layers: 2, Hidden: 64, Seq: 8, Heads: 2}},
		zooSpec{"vit_small", "vit", models.Overrides{Batch: 1, Layers: 1, Hidden: 32, Heads: 2, Image: 32, Classes: 10}})
	bert, vit := paths[0], paths[1]
	other := writeZoo(t, t.TempDir(), zooSpec{"bert_other", "bert", models.Overrides{Batch: 1, Layers: 1, Hidden: 32, Seq: 4, Heads: 2}})[0]
	dir := filepath.Join(t.TempDir(), "run")
	cfg := quick(bert, vit)
	cfg.Corpus, cfg.Runtime, cfg.Dir, cfg.PPO.Episodes = corpus, "roofline", dir, 4
	out, err := run(t, cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantLines(t, out, "training 2 models", "round robin", "bert_small", "vit_small", "SPEEDUP", "trained 4 episodes", "speedup.png")
	recs, err := ppo.ReadMetrics(filepath.Join(dir, ppo.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range recs.Episodes {
		got = append(got, e.Model)
	}
	if want := "bert_small vit_small bert_small vit_small"; strings.Join(got, " ") != want {
		t.Errorf("episodes drew %q, want %q", strings.Join(got, " "), want)
	}
	if _, err := os.Stat(filepath.Join(dir, BestModelFile)); err == nil {
		t.Errorf("a multi-model run wrote %s", BestModelFile)
	}

	resume := func(dir string, models ...string) Config {
		cfg := quick(models...)
		cfg.Corpus, cfg.Runtime, cfg.Dir, cfg.Resume, cfg.Episodes = corpus, "roofline", dir, true, 6
		return cfg
	}
	refused := []struct {
		name   string
		models []string
		want   string
	}{
		{"another set", []string{other, bert, vit}, "trained on the models bert_small, vit_small; it cannot continue on bert_other, bert_small, vit_small"},
		{"one of them", []string{vit}, "trained on 2 models; it cannot continue on"},
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			if _, err := run(t, resume(dir, r.models...)); err == nil || !strings.Contains(err.Error(), r.want) {
				t.Errorf("error %v; want one containing %q", err, r.want)
			}
		})
	}
	// The same set (same files) continues.
	if out, err := run(t, resume(dir, bert, vit)); err != nil || !strings.Contains(out, "resuming at episode 4 of") {
		t.Fatalf("resume: %v\n%s", err, out)
	}

	// A single-model run refuses to continue on two models.
	single := filepath.Join(t.TempDir(), "single")
	cfg = quick(other)
	cfg.Runtime, cfg.Dir, cfg.PPO.Episodes = "roofline", single, 2
	if out, err := run(t, cfg); err != nil {
		t.Fatalf("single-model run: %v\n%s", err, out)
	}
	cfg = resume(single, bert, vit)
	cfg.Episodes = 4
	if _, err := run(t, cfg); err == nil || !strings.Contains(err.Error(), "trained on one model") {
		t.Errorf("resuming a single-model run on a corpus: %v", err)
	}
}
