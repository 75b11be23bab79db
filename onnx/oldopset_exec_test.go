package onnx_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

// conformanceData holds ONNX's backend test cases (Debian libonnx-testdata).
const conformanceData = "/usr/include/onnx/backend/test/data"

// minOldOpsetCases is how many conformance cases below opset 9 must import
// without opaque nodes; fewer means the legacy import regressed.
const minOldOpsetCases = 100

// TestOldOpsetConformanceExec runs every conformance case whose model
// declares a default-domain opset below 9 and imports with no opaque node
// on the Go executor and compares with the expected outputs. The same
// model exported (at opset 9 or later) and imported again must give the
// same results.
func TestOldOpsetConformanceExec(t *testing.T) {
	models := onnx.ConformanceModels(t)
	ran, opaque := 0, 0
	for _, path := range models {
		name := strings.TrimSuffix(strings.TrimPrefix(path, conformanceData+"/"), "/model.onnx")
		m, err := onnx.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if o := m.Opset(""); o < 1 || o >= 9 {
			continue
		}
		if n := firstOpaque(m.Graph); n != nil {
			opaque++
			continue
		}
		enc, err := onnx.Encode(m)
		if err != nil {
			t.Errorf("%s: encode: %v", name, err)
			continue
		}
		m2, err := onnx.Decode(enc, onnx.DecodeOptions{Source: name + " (exported)"})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if o := m2.Opset(""); o < 9 {
			t.Errorf("%s: exported at opset %d, want it raised to 9 or later", name, o)
		}
		sets, err := filepath.Glob(filepath.Join(filepath.Dir(path), "test_data_set_*"))
		if err != nil || len(sets) == 0 {
			t.Errorf("%s: no test data sets", name)
			continue
		}
		sort.Strings(sets)
		for _, dir := range sets {
			for _, mm := range []*graph.Model{m, m2} {
				if err := runDataSet(mm.Graph, dir); err != nil {
					t.Errorf("%s/%s (opset %d): %v", name, filepath.Base(dir), mm.Opset(""), err)
				}
			}
		}
		ran++
	}
	t.Logf("%d cases below opset 9 ran on the executor; %d still import opaque nodes", ran, opaque)
	if ran < minOldOpsetCases {
		t.Errorf("only %d conformance cases below opset 9 import without opaque nodes, want at least %d", ran, minOldOpsetCases)
	}
}

// firstOpaque returns g's first opaque node, or nil.
func firstOpaque(g *graph.Graph) *graph.Node {
	for _, n := range g.Nodes {
		if n.IsOpaque() {
			return n
		}
	}
	return nil
}

// runDataSet binds a copy of g0 to the inputs of one test_data_set
// directory, infers shapes, runs it and compares every output.
func runDataSet(g0 *graph.Graph, dir string) error {
	g := g0.Clone()
	ins, err := readPB(dir, "input")
	if err != nil {
		return err
	}
	want, err := readPB(dir, "output")
	if err != nil {
		return err
	}
	var free []*graph.Value
	byName := map[string]*graph.Value{}
	for _, v := range g.Inputs {
		byName[v.Name] = v
		if v.Const == nil {
			free = append(free, v)
		}
	}
	feed := map[string]*graph.Tensor{}
	for i, nt := range ins {
		v := byName[nt.name]
		if v == nil {
			if i >= len(free) {
				return fmt.Errorf("test input %d (%q) matches no graph input", i, nt.name)
			}
			v = free[i]
		}
		v.SetStatic(nt.t.DType, nt.t.Shape)
		feed[v.Name] = nt.t
	}
	if len(want) != len(g.Outputs) {
		return fmt.Errorf("%d expected outputs for %d graph outputs", len(want), len(g.Outputs))
	}
	if err := g.InferShapes(); err != nil {
		return fmt.Errorf("shape inference: %w", err)
	}
	ex, err := executor.NewExecutor(g, executor.ExecOptions{})
	if err != nil {
		return fmt.Errorf("executor: %w", err)
	}
	got, err := ex.Run(feed)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	for i, v := range g.Outputs {
		if err := closeTo(got[v.Name], want[i].t, 1e-3, 1e-4); err != nil {
			return fmt.Errorf("output %q: %w", v.Name, err)
		}
	}
	return nil
}

type namedTensor struct {
	name string
	t    *graph.Tensor
}

// readPB reads dir/prefix_N.pb in numeric order.
func readPB(dir, prefix string) ([]namedTensor, error) {
	files, err := filepath.Glob(filepath.Join(dir, prefix+"_*.pb"))
	if err != nil {
		return nil, err
	}
	num := func(f string) int {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), prefix+"_"), ".pb"))
		return n
	}
	sort.Slice(files, func(i, j int) bool { return num(files[i]) < num(files[j]) })
	var out []namedTensor
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		t, name, err := onnx.DecodeTensor(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, namedTensor{name, t})
	}
	return out, nil
}

// closeTo compares got with want: |got-want| <= atol + rtol*|want| for
// floats, exact equality otherwise.
func closeTo(got, want *graph.Tensor, rtol, atol float64) error {
	switch {
	case got == nil:
		return fmt.Errorf("missing")
	case got.DType != want.DType:
		return fmt.Errorf("dtype %v, want %v", got.DType, want.DType)
	case fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape):
		return fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	if !want.DType.IsFloat() {
		if !got.Equal(want) {
			return fmt.Errorf("values differ")
		}
		return nil
	}
	g, err := got.AsFloat64()
	if err != nil {
		return err
	}
	w, err := want.AsFloat64()
	if err != nil {
		return err
	}
	for i := range w {
		if g[i] == w[i] || math.IsNaN(g[i]) && math.IsNaN(w[i]) {
			continue
		}
		if d := math.Abs(g[i] - w[i]); !(d <= atol+rtol*math.Abs(w[i])) {
			return fmt.Errorf("element %d: got %v, want %v", i, g[i], w[i])
		}
	}
	return nil
}
