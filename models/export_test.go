package models

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/onnx"
)

// checkerScript loads each file named on the command line and runs the
// ONNX checker with full shape inference on it.
const checkerScript = `
import sys, onnx, onnx.checker
for path in sys.argv[1:]:
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    print("ok", path)
`

// TestExportCPUPresets encodes every cpu preset, decodes it back (same
// node and parameter counts) and runs the Python ONNX checker on all files
// in one call.
func TestExportCPUPresets(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, s := range List() {
		m, err := Build(s.Name, PresetCPU, Overrides{})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		data, err := onnx.Encode(m)
		if err != nil {
			t.Fatalf("%s: Encode: %v", s.Name, err)
		}
		back, err := onnx.Decode(data, onnx.DecodeOptions{})
		if err != nil {
			t.Fatalf("%s: Decode: %v", s.Name, err)
		}
		if len(back.Graph.Nodes) != len(m.Graph.Nodes) || Params(back.Graph) != Params(m.Graph) {
			t.Errorf("%s: round trip has %d nodes and %d params, want %d and %d", s.Name,
				len(back.Graph.Nodes), Params(back.Graph), len(m.Graph.Nodes), Params(m.Graph))
		}
		p := filepath.Join(dir, s.Name+".onnx")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	cmd := exec.Command("/usr/bin/python3", append([]string{"-c", checkerScript}, paths...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("onnx.checker failed: %v\n%s", err, out)
	}
	if got := strings.Count(string(out), "ok "); got != len(paths) {
		t.Errorf("checker passed %d of %d files:\n%s", got, len(paths), out)
	}
}
