package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegal trains a network on the MLP fixture and uses a network in
// optimize; bad flags and files fail with exit codes and messages that
// name them.
func TestRegal(t *testing.T) {
	mlp := fixture(t, "mlp.onnx")
	tmp := t.TempDir()
	net := filepath.Join(tmp, "n.regal")
	small := []string{"--budget", "4", "--population", "2", "--horizon", "3", "--seeds", "1"}
	code, out, errs := run(append([]string{"regal", "train", mlp, "-o", net, "--iterations", "1"}, small...)...)
	if code != 0 || !strings.Contains(out, "wrote "+net) || !strings.Contains(errs, "iteration 1 "+mlp) {
		t.Fatalf("train: exit %d\n%s\n%s", code, out, errs)
	}
	o := filepath.Join(tmp, "out.onnx")
	code, out, errs = run("optimize", mlp, "-o", o, "--search", "brkga", "--brkga-net", net, "--budget", "3", "--runtime", "roofline")
	if code != 0 {
		t.Fatalf("optimize --brkga-net: exit %d\n%s\n%s", code, out, errs)
	}
	corrupt := filepath.Join(tmp, "corrupt.regal")
	data, _ := os.ReadFile(net)
	data[len(data)/2] ^= 0xff
	os.WriteFile(corrupt, data, 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"net without brkga", []string{"optimize", mlp, "-o", o, "--brkga-net", net}, 2, "--brkga-net needs --search brkga"},
		{"net and agent", []string{"optimize", mlp, "-o", o, "--search", "brkga", "--brkga-net", net, "--agent", net}, 2, "give one"},
		{"missing net", []string{"optimize", mlp, "-o", o, "--search", "brkga", "--brkga-net", net + ".x"}, 1, "no such file"},
		{"corrupt net", []string{"optimize", mlp, "-o", o, "--search", "brkga", "--brkga-net", corrupt}, 1, "checksum"},
		{"compare corrupt net", []string{"regal", "compare", mlp, "--net", corrupt}, 1, "checksum"},
		{"train without output", []string{"regal", "train", mlp}, 2, "-o/--output is required"},
		{"train without models", []string{"regal", "train", "-o", net}, 2, "at least one model"},
		{"compare without net", []string{"regal", "compare", mlp}, 2, "--net is required"},
		{"bad budget", []string{"regal", "train", mlp, "-o", net, "--budget", "1"}, 2, "--budget"},
		{"missing model", []string{"regal", "train", mlp + ".x", "-o", net}, 1, "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want %d; stderr should contain %q:\n%s%s", code, tc.code, tc.want, out, errs)
			}
		})
	}
}
