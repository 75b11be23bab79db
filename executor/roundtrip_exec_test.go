package executor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/onnx"
)

// TestRoundTripExecution checks, for every conformance case the executor
// runs, that the model after a codec round trip (decode, encode, decode)
// has the same canonical hash and computes bit-identical outputs on the
// case's test data.
func TestRoundTripExecution(t *testing.T) {
	cases := loadConformance(t)
	checked := 0
	for _, c := range cases {
		if c.skip != "" || len(c.sets) == 0 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(c.dir, "model.onnx"))
		if err != nil {
			t.Fatal(err)
		}
		m1, err := onnx.Decode(data, onnx.DecodeOptions{BaseDir: c.dir})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		enc, err := onnx.Encode(m1)
		if err != nil {
			t.Fatalf("%s: encode: %v", c.name, err)
		}
		m2, err := onnx.Decode(enc, onnx.DecodeOptions{BaseDir: c.dir})
		if err != nil {
			t.Fatalf("%s: decode after encode: %v", c.name, err)
		}
		if m1.Graph.CanonicalHash() != m2.Graph.CanonicalHash() {
			t.Errorf("%s: canonical hash changed by the round trip", c.name)
			continue
		}
		for _, s1 := range c.sets {
			s2, reason := loadSet(m2.Graph, s1.dir)
			if reason != "" {
				t.Errorf("%s/%s: round-tripped model: %s", c.name, filepath.Base(s1.dir), reason)
				continue
			}
			a, skip, err := runSet(s1, ExecOptions{})
			if skip != "" {
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			b, _, err := runSet(s2, ExecOptions{})
			if err != nil {
				t.Errorf("%s: round-tripped model: %v", c.name, err)
				continue
			}
			for i, v := range s1.g.Outputs {
				w := s2.g.Outputs[i]
				if !a[v.Name].Equal(b[w.Name]) {
					t.Errorf("%s/%s: output %q differs after the round trip", c.name, filepath.Base(s1.dir), v.Name)
				}
			}
			checked++
		}
	}
	t.Logf("%d test data sets ran bit-identically before and after the round trip", checked)
	if checked < 400 {
		t.Errorf("only %d data sets checked; expected at least 400", checked)
	}
}
