package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fixtures writes the test models once per test binary run.
// fixture returns the path of the named file of fixtures' directory.
func fixture(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(fixtures(t), name)
}

func fixtures(t *testing.T) string {
	t.Helper()
	fixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "xrl-cli-fixtures-*")
		if err != nil {
			fixtureErr = err
			return
		}
		cmd := exec.Command("/usr/bin/python3", "testdata/make_fixtures.py", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			fixtureErr = &fixtureError{err: err, out: string(out)}
			return
		}
		data, err := os.ReadFile(filepath.Join(dir, "mlp.onnx"))
		if err != nil {
			fixtureErr = err
			return
		}
		os.WriteFile(filepath.Join(dir, "truncated.onnx"), data[:len(data)/2], 0o644)
		os.WriteFile(filepath.Join(dir, "empty.onnx"), nil, 0o644)
		os.WriteFile(filepath.Join(dir, "text.onnx"), []byte("this is not a protobuf\n"), 0o644)
		corrupt := append([]byte(nil), data...)
		for i := 10; i < len(corrupt); i += 7 {
			corrupt[i] ^= 0xA5
		}
		os.WriteFile(filepath.Join(dir, "corrupt.onnx"), corrupt, 0o644)
		fixtureDir = dir
	})
	if fixtureErr != nil {
		t.Fatalf("making fixtures (needs /usr/bin/python3 with python3-onnx; run scripts/setup): %v", fixtureErr)
	}
	return fixtureDir
}

// run executes the CLI in process and returns exit code, stdout and stderr.
func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// expectRun runs the CLI with args and checks its exit code and that
// stdout contains every string of wantOut and stderr every string of
// wantErr; it returns stderr.
func expectRun(t *testing.T, args []string, wantCode int, wantOut, wantErr []string) string {
	t.Helper()
	code, stdout, stderr := run(args...)
	if code != wantCode {
		t.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, wantCode, stdout, stderr)
	}
	for _, w := range wantOut {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
	for _, w := range wantErr {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	return stderr
}

func TestErrorPaths(t *testing.T) {
	f := func(name string) string { return fixture(t, name) }
	out := filepath.Join(t.TempDir(), "out.onnx")
	cases := []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr
	}{
		{"missing file", []string{"inspect", f("nope.onnx")}, exitError, []string{"nope.onnx", "no such file"}},
		{"empty file", []string{"inspect", f("empty.onnx")}, exitError, []string{"empty.onnx"}},
		{"not onnx", []string{"run", f("text.onnx")}, exitError, []string{"text.onnx", "not a valid ONNX model"}},
		{"truncated", []string{"convert", f("truncated.onnx"), out}, exitError, []string{"truncated.onnx"}},
		{"corrupt", []string{"inspect", f("corrupt.onnx")}, exitError, []string{"corrupt.onnx"}},
		{"cyclic", []string{"inspect", f("cyclic.onnx")}, exitError, []string{"cyclic.onnx", "cycle", "first"}},
		{"dangling", []string{"run", f("dangling.onnx")}, exitError, []string{"dangling.onnx", "adder", "ghost"}},
		{"shape mismatch", []string{"run", f("mismatch.onnx")}, exitError, []string{"mismatch.onnx", "mm", "shape"}},
		{"unbound dimension", []string{"run", f("unbound.onnx"), "--runtime", "go"}, exitError, []string{"unbound.onnx", `"x"`, "height", "--shape"}},
		{"opaque op in executor", []string{"run", f("opaque.onnx"), "--runtime", "go"}, exitError, []string{"opaque.onnx", "soft", "LpNormalization", "not supported"}},
		{"bad shape flag", []string{"run", f("mlp.onnx"), "--shape", "x=2xQ"}, exitUsage, []string{"--shape", "x=2xQ"}},
		{"shape flag without name", []string{"run", f("mlp.onnx"), "--shape", "2x16"}, exitUsage, []string{"--shape", "NAME=DIMS"}},
		{"shape for unknown input", []string{"run", f("mlp.onnx"), "--shape", "y=2x16"}, exitError, []string{`"y"`, "x"}},
		{"shape of wrong rank", []string{"run", f("mlp.onnx"), "--shape", "x=2x16x1"}, exitError, []string{`"x"`}},
		{"bad runs", []string{"run", f("mlp.onnx"), "--runs", "0"}, exitUsage, []string{"--runs"}},
		{"bad runtime", []string{"run", f("mlp.onnx"), "--runtime", "tpu"}, exitUsage, []string{"--runtime", "tpu"}},
		{"compare with an estimate", []string{"compare", f("mlp.onnx"), f("mlp.onnx"), "--runtime", "profile"}, exitUsage, []string{"--runtime profile", "go or ort"}},
		{"bad block", []string{"compare", f("mlp.onnx"), f("mlp.onnx"), "--block", "0"}, exitUsage, []string{"--block"}},
		{"bad precision", []string{"compare", f("mlp.onnx"), f("mlp.onnx"), "--precision", "1.5"}, exitUsage, []string{"--precision"}},
		{"unknown flag", []string{"inspect", f("mlp.onnx"), "--frobnicate"}, exitUsage, []string{"frobnicate"}},
		{"missing argument", []string{"convert", f("mlp.onnx")}, exitUsage, []string{"accepts 2 arg"}},
		{"unknown command", []string{"optimise-everything"}, exitUsage, []string{"unknown command"}},
		{"unknown rule", []string{"rules", "show", "no-such-rule"}, exitUsage, []string{"no-such-rule"}},
		{"unknown zoo model", []string{"models", "export", "lenet", "-o", out}, exitUsage, []string{"lenet", "bert"}},
		{"export without output", []string{"models", "export", "bert"}, exitUsage, []string{"--output"}},
		{"optimize without output", []string{"optimize", f("mlp.onnx")}, exitUsage, []string{"--output"}},
		{"optimize bad search", []string{"optimize", f("mlp.onnx"), "-o", out, "--search", "annealing"}, exitUsage, []string{"--search", "annealing"}},
		{"optimize bad objective", []string{"optimize", f("mlp.onnx"), "-o", out, "--objective", "speed"}, exitUsage, []string{"--objective", "speed"}},
		{"optimize bad alpha", []string{"optimize", f("mlp.onnx"), "-o", out, "--alpha", "0.5"}, exitUsage, []string{"--alpha"}},
		{"optimize unknown rule", []string{"optimize", f("mlp.onnx"), "-o", out, "--rules", "no-such-rule"}, exitUsage, []string{"no-such-rule"}},
		{"rollout bad agent", []string{"env", "rollout", f("mlp.onnx"), "--agent", "oracle"}, exitUsage, []string{"--agent", "oracle"}},
		{"verify different", []string{"verify", f("mlp.onnx"), f("mlp_other.onnx"), "--runtime", "go"}, exitError, []string{"different"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stderr := expectRun(t, tc.args, tc.code, nil, tc.want)
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr shows a panic:\n%s", stderr)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed convert left %s behind", out)
	}
}

func TestCommandsWork(t *testing.T) {
	f := func(name string) string { return fixture(t, name) }
	out := filepath.Join(t.TempDir(), "copy.onnx")
	cases := []struct {
		name string
		args []string
		want []string // substrings of stdout
	}{
		{"version", []string{"version"}, []string{"xrl "}},
		{"inspect", []string{"inspect", f("mlp.onnx")}, []string{"batch", "MatMul", "parameters", "136", "FLOPs", "x=1x16"}},
		{"inspect opaque", []string{"inspect", f("opaque.onnx")}, []string{"LpNormalization", "opaque"}},
		{"inspect candidates", []string{"inspect", f("mlp.onnx"), "--candidates"}, []string{"candidates", "RULE", "MATCHES"}},
		{"run go", []string{"run", f("mlp.onnx"), "--runtime", "go", "--shape", "x=4x16", "--runs", "3"}, []string{"4x16", "runtime go: median"}},
		{"run profile", []string{"run", f("mlp.onnx"), "--runtime", "profile", "--shape", "x=4x16"}, []string{"4x16", "runtime profile: estimated"}},
		{"compare", []string{"compare", f("mlp.onnx"), f("mlp.onnx"), "--runtime", "go", "--max-time", "2s"}, []string{"latency ratio", "99% CI", "steady"}},
		{"convert", []string{"convert", f("mlp.onnx"), out}, []string{"wrote"}},
		{"verify same", []string{"verify", f("mlp.onnx"), f("mlp.onnx"), "--runtime", "go"}, []string{"equal within tolerance"}},
		{"rules list", []string{"rules", "list"}, []string{"conv-bn-fold", "rules"}},
		{"rules show", []string{"rules", "show", "conv-bn-fold"}, []string{"BatchNormalization", "matching plan"}},
		{"rules verify", []string{"rules", "verify", "conv-bn-fold", "identity-elim"}, []string{"2 rules verified, 0 failed"}},
		{"models list", []string{"models", "list"}, []string{"bert", "resnext50", "squeezenet"}},
		{"optimize", []string{"optimize", f("mlp_folds.onnx"), "-o", filepath.Join(t.TempDir(), "opt.onnx"), "--runtime", "go", "--budget", "3", "--runs", "3"},
			[]string{"verified on go", "stop reason", "go latency", "latency (measured, interleaved)", "writing the ", "wrote"}},
		{"env rollout", []string{"env", "rollout", f("mlp.onnx"), "--episodes", "2", "--runtime", "go", "--runs", "3"}, []string{"mean return", "random agent"}},
		{"models export", []string{"models", "export", "squeezenet", "-o", filepath.Join(t.TempDir(), "sq.onnx")}, []string{"wrote", "squeezenet"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(tc.args...)
			if code != exitOK {
				t.Fatalf("exit code %d\nstderr: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

func TestConvertedModelVerifies(t *testing.T) {
	dir := fixtures(t)
	out := filepath.Join(t.TempDir(), "copy.onnx")
	if code, _, stderr := run("convert", filepath.Join(dir, "mlp.onnx"), out); code != exitOK {
		t.Fatalf("convert: %s", stderr)
	}
	if code, _, stderr := run("verify", filepath.Join(dir, "mlp.onnx"), out, "--runtime", "go"); code != exitOK {
		t.Errorf("converted model does not verify against the original: %s", stderr)
	}
}
