package cli

import (
	"strings"
	"testing"
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
