package pipeline

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
)

// bigShift reads a model with ONNX's test_gather_0 signature that
// differs from it only where data exceeds 1.5 (inputs/testdata): random
// inputs on seeds 1 and 2 (uniform in [-1, 1)) never show it, the test
// data does.
func bigShift(t *testing.T, _ *Start) *graph.Model {
	t.Helper()
	m, err := LoadBound("../inputs/testdata/onnx_gather/big_shift.onnx", nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestVerifyInputs checks Start.VerifyInputs: the folded model passes on
// the user's sets (those of another shape bound at theirs, naming the
// worst output of each set), a model that differs only on the user's
// data does not.
func TestVerifyInputs(t *testing.T) {
	tests := []struct {
		name   string
		model  string
		shapes map[string][]int
		sets   string
		out    func(t *testing.T, s *Start) *graph.Model
		want   error
		lines  []string
	}{
		{"folded gather", "../inputs/testdata/onnx_gather/model.onnx", nil, "../inputs/testdata/onnx_gather",
			func(_ *testing.T, s *Start) *graph.Model { return s.Model }, nil,
			[]string{"on your input sets: verified on go: equal", `test_data_set_0: worst output "y"`}},
		{"differs on the user's data only", "../inputs/testdata/onnx_gather/model.onnx", nil, "../inputs/testdata/onnx_gather",
			bigShift, ErrNotEquivalent,
			[]string{"on your input sets: verified on go: DIFFERENT"}},
		{"vad_if at two shapes", "../testdata/controlflow/vad_if.onnx", map[string][]int{"x": {1, 512}}, "../inputs/testdata/npz_vad",
			func(_ *testing.T, s *Start) *graph.Model { return s.Model }, nil,
			[]string{"vad_16k.npz: worst output", "on your input sets at sr=scalar x=1x256: verified on go: equal", "vad_8k.npz: worst output"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := PrepareDynamic(tc.model, tc.shapes, RuleChoice{})
			if err != nil {
				t.Fatal(err)
			}
			if s.Inputs, err = inputs.Read(tc.sets); err != nil {
				t.Fatal(err)
			}
			var w bytes.Buffer
			err = s.VerifyInputs(&w, tc.out(t, s), 0)
			if !errors.Is(err, tc.want) && !(err == nil && tc.want == nil) {
				t.Fatalf("error %v, want %v\n%s", err, tc.want, w.String())
			}
			for _, l := range tc.lines {
				if !strings.Contains(w.String(), l) {
					t.Errorf("the report lacks %q:\n%s", l, w.String())
				}
			}
		})
	}
}
