package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/ppo"
)

// zooFile writes a small zoo model to dir/name.onnx.
func zooFile(t *testing.T, dir, name, zoo string, ov models.Overrides) string {
	t.Helper()
	m, err := models.Build(zoo, models.PresetCPU, ov)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".onnx")
	if err := onnx.WriteFile(p, m); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTrainCorpus(t *testing.T) {
	corpus := t.TempDir()
	zooFile(t, corpus, "bert_small", "bert", models.Overrides{Batch: 2, Layers: 2, Hidden: 64, Seq: 8, Heads: 2})
	zooFile(t, corpus, "vit_small", "vit", models.Overrides{Batch: 1, Layers: 1, Hidden: 32, Heads: 2, Image: 32, Classes: 10})
	other := zooFile(t, t.TempDir(), "bert_other", "bert", models.Overrides{Batch: 1, Layers: 1, Hidden: 32, Seq: 4, Heads: 2})
	dir := filepath.Join(t.TempDir(), "run")
	args := append([]string{"train", "--corpus", corpus, "--runtime", "roofline", "--out", dir, "--episodes", "4"}, smallNet...)
	expectRun(t, args, exitOK, []string{"training 2 models", "round robin", "bert_small", "vit_small", "SPEEDUP", "trained 4 episodes", "speedup.png"}, nil)
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
	if _, err := os.Stat(filepath.Join(dir, bestModelFile)); err == nil {
		t.Errorf("a multi-model run wrote %s", bestModelFile)
	}

	refused := []struct {
		name string
		args []string
		want string
	}{
		{"another set", []string{"train", "--corpus", corpus, other}, "trained on the models bert_small, vit_small; it cannot continue on bert_other, bert_small, vit_small"},
		{"one of them", []string{"train", filepath.Join(corpus, "vit_small.onnx")}, "trained on 2 models; it cannot continue on"},
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			code, _, stderr := run(append(r.args, "--runtime", "roofline", "--out", dir, "--resume", "--episodes", "6")...)
			if code == exitOK || !strings.Contains(stderr, r.want) {
				t.Errorf("exit %d, stderr %q; want an error containing %q", code, stderr, r.want)
			}
		})
	}
	// The same set (same files) continues.
	code, stdout, stderr := run("train", "--corpus", corpus, "--runtime", "roofline", "--out", dir, "--resume", "--episodes", "6")
	if code != exitOK || !strings.Contains(stdout, "resuming at episode 4 of") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// A single-model run refuses to continue on two models.
	single := filepath.Join(t.TempDir(), "single")
	if code, out, errOut := run(append([]string{"train", other, "--runtime", "roofline", "--out", single, "--episodes", "2"}, smallNet...)...); code != exitOK {
		t.Fatalf("single-model run: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, stderr = run("train", "--corpus", corpus, "--runtime", "roofline", "--out", single, "--resume", "--episodes", "4")
	if code == exitOK || !strings.Contains(stderr, "trained on one model") {
		t.Errorf("resuming a single-model run on a corpus: exit %d, %s", code, stderr)
	}
}

func TestTrainCorpusErrors(t *testing.T) {
	empty := t.TempDir()
	corpus := t.TempDir()
	zooFile(t, corpus, "a", "bert", models.Overrides{Batch: 1, Layers: 1, Hidden: 32, Seq: 4, Heads: 2})
	zooFile(t, corpus, "b", "bert", models.Overrides{Batch: 1, Layers: 1, Hidden: 32, Seq: 4, Heads: 2})
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"train"}, "give a model file, several, or --corpus DIR"},
		{"empty corpus", []string{"train", "--corpus", empty}, "no .onnx files"},
		{"missing corpus", []string{"train", "--corpus", filepath.Join(empty, "nope")}, "--corpus"},
		{"same name twice", []string{"train", filepath.Join(corpus, "a.onnx"), "--corpus", corpus}, `the same name "a"`},
		{"shape of no model", []string{"train", "--corpus", corpus, "--shape", "nothing=1x2"}, `no model has a dynamic input named "nothing"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := run(append(c.args, "--out", filepath.Join(t.TempDir(), "r"))...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want a usage error containing %q", code, stderr, c.want)
			}
		})
	}
}
