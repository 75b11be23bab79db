package inspect

import (
	"strings"
	"testing"
)

// TestReadCountsBodies checks that a report counts the nodes and
// parameters inside If and Loop bodies and does not list control flow
// with decoded bodies among the opaque ops.
func TestReadCountsBodies(t *testing.T) {
	tests := []struct {
		model string
		want  []string
	}{
		{"vad_if", []string{"bodies      2 If/Loop/Scan bodies hold 23 more nodes and 0 (0) more parameters", "opaque ops  none"}},
		{"loop_mlp", []string{"bodies      1 If/Loop/Scan bodies hold 5 more nodes", "opaque ops  none"}},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			rep, err := Read("../testdata/controlflow/"+tc.model+".onnx", nil)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			if err := rep.Write(&out); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestHumanCount(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1.00K"}, {1056, "1.06K"}, {2.5e6, "2.50M"}, {3e9, "3.00G"}, {1.234e12, "1.23T"}} {
		if got := HumanCount(c.v); got != c.want {
			t.Errorf("HumanCount(%g) = %q, want %q", c.v, got, c.want)
		}
	}
}
