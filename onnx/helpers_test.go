package onnx

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// conformanceDir holds the ONNX backend test models (Debian libonnx-testdata).
const conformanceDir = "/usr/include/onnx/backend/test/data"

// conformanceSuites are the directories of conformanceDir whose models the
// tests round-trip.
var conformanceSuites = []string{"node", "pytorch-converted", "pytorch-operator", "simple"}

// pythonBin is the interpreter that has python3-onnx installed.
const pythonBin = "/usr/bin/python3"

// conformanceModels returns every model.onnx of the conformance suites.
func conformanceModels(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, s := range conformanceSuites {
		m, err := filepath.Glob(filepath.Join(conformanceDir, s, "*", "model.onnx"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 500 {
		t.Fatalf("found only %d conformance models under %s (is libonnx-testdata installed?)", len(out), conformanceDir)
	}
	return out
}

// pyPrelude starts the Python scripts of the tests that build models with
// onnx.helper: imports, the output directory (argv[1]), and vi for value
// infos.
const pyPrelude = `
import sys, os
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper
out = sys.argv[1]
F = TensorProto.FLOAT
def vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)
`

// runPython runs script with /usr/bin/python3, feeding stdin, and returns
// its standard output.
func runPython(t testing.TB, script, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(pythonBin, append([]string{"-c", script}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("python: %v\n%s", err, errb.String())
	}
	return out.String()
}

// readFile reads a file or fails the test.
func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
