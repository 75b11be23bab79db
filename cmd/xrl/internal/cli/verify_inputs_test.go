package cli

import (
	"path/filepath"
	"testing"
)

// inputsData is package inputs' test data: ONNX's node/test_gather_0 with
// its test_data_set_0, and .npz archives written by NumPy.
const inputsData = "../../../../inputs/testdata"

// TestVerifyInputs runs xrl verify --inputs on the ONNX test-data layout
// and on .npz archives: the report names the worst output of each set, a
// difference only the user's data shows fails, and data that does not
// fit the model is an error naming the input.
func TestVerifyInputs(t *testing.T) {
	gather := filepath.Join(inputsData, "onnx_gather", "model.onnx")
	// big_shift.onnx differs from the Gather only where data exceeds 1.5,
	// which random inputs on seed 1 (in [-1, 1)) never reach.
	shift := filepath.Join(inputsData, "onnx_gather", "big_shift.onnx")
	tests := []struct {
		name    string
		args    []string
		code    int
		out     []string
		errText []string
	}{
		{"onnx test-data directory", []string{gather, gather, "--inputs", filepath.Join(inputsData, "onnx_gather")}, exitOK,
			[]string{"input set " + filepath.Join(inputsData, "onnx_gather", "test_data_set_0") + `: worst output "y"`, "input set seed 3:"}, nil},
		{"one test_data_set directory", []string{gather, gather, "--inputs", filepath.Join(inputsData, "onnx_gather", "test_data_set_0")}, exitOK,
			[]string{"test_data_set_0: worst output"}, nil},
		{"npz archives, named and positional", []string{gather, gather, "--inputs", filepath.Join(inputsData, "npz")}, exitOK,
			[]string{"gather_named.npz: worst output", "gather_positional.npz: worst output"}, nil},
		{"random inputs miss the difference", []string{gather, shift, "--seeds", "1"}, exitOK, []string{"equal within tolerance"}, nil},
		{"the user's data shows it", []string{gather, shift, "--seeds", "1", "--inputs", filepath.Join(inputsData, "onnx_gather")}, exitError,
			[]string{"DIFFERENT", "worst: output \"y\", " + filepath.Join(inputsData, "onnx_gather", "test_data_set_0")}, []string{"different functions"}},
		{"sets of another model", []string{gather, gather, "--inputs", filepath.Join(inputsData, "npz_vad")}, exitError,
			nil, []string{`tensor "x", taken by position: input "data" has shape 5x4x3x2, the data 1x512`}},
		{"no input sets there", []string{gather, gather, "--inputs", "testdata"}, exitError,
			nil, []string{"--inputs", "no input_N.pb files"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectRun(t, append([]string{"verify", "--runtime", "go"}, tc.args...), tc.code, tc.out, tc.errText)
		})
	}
}

// TestVerifyInputsOtherShapes checks that sets whose shapes differ from
// the first set's are verified at their own shapes.
func TestVerifyInputsOtherShapes(t *testing.T) {
	vad := "../../../../testdata/controlflow/vad_if.onnx"
	expectRun(t, []string{"verify", "--runtime", "go", vad, vad, "--inputs", filepath.Join(inputsData, "npz_vad")}, exitOK,
		[]string{"vad_16k.npz: worst output \"prob\"", "at the shapes of your input sets sr=scalar x=1x256:", "vad_8k.npz: worst output \"prob\""}, nil)
}

// TestOptimizeInputs checks that xrl optimize --inputs tunes at the first
// set's shapes and verifies the written model on every set, each at its
// shapes.
func TestOptimizeInputs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "vad.onnx")
	expectRun(t, []string{"optimize", "../../../../testdata/controlflow/vad_if.onnx", "-o", out, "--inputs", filepath.Join(inputsData, "npz_vad"),
		"--runtime", "cost", "--budget", "3", "--runs", "3", "--warmup", "1", "--max-time", "1s", "--threads", "1", "--measured-passes", "none"}, exitOK,
		[]string{"tuning at batch=1 samples=512", "on your input sets: verified on go: equal", "vad_16k.npz: worst output \"prob\"",
			"on your input sets at sr=scalar x=1x256: verified on go: equal", "vad_8k.npz: worst output \"prob\""}, nil)
}
