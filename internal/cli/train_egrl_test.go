package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/egrl"
	"github.com/xrl-dev/xrl/gat"
)

func TestTrainEGRLFlagErrors(t *testing.T) {
	model := fixture(t, "mlp.onnx")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown algorithm", []string{"--algo", "sac"}, `--algo "sac"`},
		{"egrl flag with ppo", []string{"--population", "4"}, "--population is a setting of --algo egrl"},
		{"several models", []string{model, "--algo", "egrl"}, "one model"},
		{"resume", []string{"--algo", "egrl", "--resume", "--out", t.TempDir()}, "cannot be resumed"},
		{"episodes", []string{"--algo", "egrl", "--episodes", "5"}, "--generations"},
		{"bad elite share", []string{"--algo", "egrl", "--elite-frac", "2"}, "--elite-frac"},
		{"nothing to run", []string{"--algo", "egrl", "--population", "0", "--learner-episodes", "0"}, "nothing would run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := run(append([]string{"train", model}, c.args...)...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want usage error containing %q", code, stderr, c.want)
			}
		})
	}
}

func TestTrainEGRL(t *testing.T) {
	model := tinyBERT(t)
	out := filepath.Join(t.TempDir(), "run")
	args := append([]string{"train", model, "--algo", "egrl", "--runtime", "roofline", "--out", out,
		"--population", "3", "--generations", "2", "--learner-episodes", "1"}, smallNet...)
	code, stdout, stderr := run(args...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, want := range []string{"with EGRL: population 3", "generation 2:", "learner member 2", "verified on go"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	recs, err := egrl.ReadMetrics(filepath.Join(out, egrl.MetricsFile))
	if err != nil || len(recs) != 2 || recs[1].LearnerMember != 2 {
		t.Fatalf("metrics %+v, %v: want 2 generations, the learner migrated into member 2", recs, err)
	}
	for _, f := range []string{egrl.BestFile, egrl.LearnerFile} {
		if _, err := gat.LoadFile(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, bestModelFile)); err != nil {
		t.Error(err)
	}
}
