package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/onnx"
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
