package cli

import (
	"strings"
	"testing"
)

// TestInspectCountsBodies checks that inspect reports the nodes and
// parameters inside If and Loop bodies and does not list control flow
// with decoded bodies among the opaque ops.
func TestInspectCountsBodies(t *testing.T) {
	tests := []struct {
		model string
		want  []string
	}{
		{"vad_if", []string{"bodies      2 If/Loop/Scan bodies hold 23 more nodes and 0 (0) more parameters", "opaque ops  none"}},
		{"loop_mlp", []string{"bodies      1 If/Loop/Scan bodies hold 5 more nodes", "opaque ops  none"}},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			code, out, errOut := run("inspect", "../../testdata/controlflow/"+tc.model+".onnx")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
