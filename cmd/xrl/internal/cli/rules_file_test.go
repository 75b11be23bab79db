package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRulesFile runs `xrl rules verify --file` and `xrl optimize
// --rules-file` on user rule files: good ones verify and are used, wrong
// ones are rejected with exit status 1 and a reason per rule.
func TestRulesFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.rules", "relu-of-nonneg  Relu(x)  =>  x\n    where x[n, d] nonneg\n")
	wrong := write("wrong.rules", "min-square-one  Min(Mul(x, x), Div(y, y))  =>  Mul(x, x)\n    where x[n, d]  y[n, d]\n"+
		"transpose-twice  Transpose[perm=p](Transpose[perm=p](x))  =>  x\n    where x[a, b, c, e]  p in {[1, 0, 2, 3], [2, 1, 0, 3], [3, 1, 2, 0], [0, 2, 1, 3], [0, 3, 2, 1], [0, 1, 3, 2], [1, 0, 3, 2], [2, 3, 0, 1], [1, 2, 3, 0]}\n")
	pos := write("pos.rules", "relu-pos  Relu(x)  =>  x\n    where x[n, d] pos\n")
	model := filepath.Join(fixtures(t), "mlp.onnx")
	out := filepath.Join(dir, "out.onnx")
	cases := []struct {
		name       string
		args       []string
		code       int
		wantOut    []string
		wantErr    []string
		wantOutput bool
	}{
		{"verify good", []string{"rules", "verify", "--file", good}, exitOK, []string{"relu-of-nonneg", "1 rules verified, 0 failed"}, nil, false},
		{"verify wrong", []string{"rules", "verify", "--file", wrong}, exitError, []string{"FAIL min-square-one", "FAIL transpose-twice", "p=[1, 2, 3, 0]"}, []string{"2 of 2 rules failed"}, false},
		{"verify unprovable pos", []string{"rules", "verify", "--file", pos}, exitError, nil, []string{"pos.rules:2:", "declared pos"}, false},
		{"verify missing file", []string{"rules", "verify", "--file", filepath.Join(dir, "none.rules")}, exitError, nil, []string{"none.rules"}, false},
		{"verify bad flag", []string{"rules", "verify", "--file", good, "--tolerance", "0"}, exitUsage, nil, []string{"--tolerance"}, false},
		{"optimize wrong rules", []string{"optimize", model, "-o", out, "--runtime", "go", "--rules-file", wrong}, exitError, nil, []string{"min-square-one rejected", "transpose-twice rejected"}, false},
		{"optimize good rules", []string{"optimize", model, "-o", out, "--runtime", "go", "--budget", "2", "--runs", "3", "--rules-file", good}, exitOK, []string{"wrote"}, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expectRun(t, tc.args, tc.code, tc.wantOut, tc.wantErr)
			if _, err := os.Stat(out); (err == nil) != tc.wantOutput {
				t.Errorf("output file exists: %v, want %v", err == nil, tc.wantOutput)
			}
		})
	}
}
