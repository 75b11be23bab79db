package executor

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

// conformanceRoot holds ONNX's backend test data (Debian package
// libonnx-testdata).
const conformanceRoot = "/usr/include/onnx/backend/test/data"

var conformanceSuites = []string{"node", "pytorch-converted", "pytorch-operator", "simple"}

var update = flag.Bool("update", false, "rewrite testdata/conformance_pass.txt from this run")

// conformanceGolden lists every case that passed when it was last
// written; each must keep passing (not fail, not turn into a skip).
const conformanceGolden = "testdata/conformance_pass.txt"

// minConformancePass is the floor on passing cases: the count when the
// golden was last written, 937 of the 1,072 cases of libonnx-testdata 1.12
// (87.4%; the aim is at least 85% with none failing).
const minConformancePass = 937

// confCase is one ONNX test case prepared for the executor.
type confCase struct {
	name string
	dir  string
	// sets are the test data sets: inputs by graph input name, expected
	// outputs in graph output order.
	sets []confSet
	// skip is the reason the case cannot run, or "".
	skip string
}

type confSet struct {
	dir     string
	g       *graph.Graph // graph with inputs bound (and parameter inputs frozen)
	inputs  map[string]*graph.Tensor
	outputs []*graph.Tensor
}

// loadConformance finds every case directory and prepares it.
func loadConformance(t *testing.T) []*confCase {
	t.Helper()
	if _, err := os.Stat(conformanceRoot); err != nil {
		t.Fatalf("ONNX test data missing (install Debian package libonnx-testdata): %v", err)
	}
	var cases []*confCase
	for _, suite := range conformanceSuites {
		entries, err := os.ReadDir(filepath.Join(conformanceRoot, suite))
		if err != nil {
			t.Fatalf("read %s: %v", suite, err)
		}
		for _, e := range entries {
			dir := filepath.Join(conformanceRoot, suite, e.Name())
			if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
				continue
			}
			c := &confCase{name: suite + "/" + e.Name(), dir: dir}
			c.skip = c.prepare()
			cases = append(cases, c)
		}
	}
	if len(cases) < 100 {
		t.Fatalf("found only %d conformance cases under %s", len(cases), conformanceRoot)
	}
	return cases
}

// prepare loads the model and data sets; it returns a skip reason when the
// case uses something outside the executor's scope.
func (c *confCase) prepare() string {
	m, err := onnx.ReadFile(filepath.Join(c.dir, "model.onnx"))
	if err != nil {
		return "model does not decode: " + firstLine(err.Error())
	}
	g := m.Graph
	// Report an op outside the schema table first: it is why the codec
	// keeps other nodes of the model opaque too.
	var keptOpaque *graph.Node
	for _, n := range g.Nodes {
		if !n.IsOpaque() && n.Schema() != nil || isControlFlowWithBodies(n) || graph.IsRecurrent(n) {
			continue
		}
		if graph.Lookup(n.Domain, n.Op) != nil {
			if keptOpaque == nil {
				keptOpaque = n
			}
			continue
		}
		op := n.Op
		if n.Domain != "" && n.Domain != "ai.onnx" {
			op = n.Domain + "." + n.Op
		}
		return "opaque op " + op
	}
	if keptOpaque != nil {
		return fmt.Sprintf("op %s kept opaque at opset %d (this form has no exact IR equivalent)", keptOpaque.Op, m.Opset(""))
	}
	for _, v := range append(append([]*graph.Value(nil), g.Inputs...), g.Outputs...) {
		if v.DType == graph.Undefined {
			return fmt.Sprintf("graph input or output %q is not a tensor (sequence or optional type)", v.Name)
		}
	}
	for _, v := range allValues(g) {
		if v.DType != graph.Undefined && !SupportsDType(v.DType) {
			return fmt.Sprintf("dtype %v unsupported by executor", v.DType)
		}
	}
	setDirs, _ := filepath.Glob(filepath.Join(c.dir, "test_data_set_*"))
	sort.Strings(setDirs)
	if len(setDirs) == 0 {
		return "no test data sets"
	}
	for _, sd := range setDirs {
		s, reason := loadSet(g, sd)
		if reason != "" {
			return reason
		}
		c.sets = append(c.sets, s)
	}
	return ""
}

// allValues returns every value of g.
func allValues(g *graph.Graph) []*graph.Value {
	var out []*graph.Value
	out = append(out, g.Inputs...)
	out = append(out, g.Initializers...)
	for _, n := range g.Nodes {
		for _, v := range n.Outputs {
			if v != nil {
				out = append(out, v)
			}
		}
	}
	return out
}

// loadSet reads one test_data_set directory and binds a copy of g to it.
func loadSet(g0 *graph.Graph, dir string) (confSet, string) {
	g := g0.Clone()
	s := confSet{dir: dir, g: g, inputs: make(map[string]*graph.Tensor)}
	ins, err := readTensors(dir, "input")
	if err != nil {
		return s, "test data does not decode: " + firstLine(err.Error())
	}
	outs, err := readTensors(dir, "output")
	if err != nil {
		return s, "test data does not decode: " + firstLine(err.Error())
	}
	var free []*graph.Value
	for _, v := range g.Inputs {
		if v.Const == nil {
			free = append(free, v)
		}
	}
	byName := make(map[string]*graph.Value)
	for _, v := range g.Inputs {
		byName[v.Name] = v
	}
	for i, nt := range ins {
		v := byName[nt.name]
		if v == nil {
			if i >= len(free) {
				return s, fmt.Sprintf("test input %d (%q) matches no graph input", i, nt.name)
			}
			v = free[i]
		}
		if !SupportsDType(nt.t.DType) {
			return s, fmt.Sprintf("dtype %v unsupported by executor", nt.t.DType)
		}
		v.SetStatic(nt.t.DType, nt.t.Shape)
		s.inputs[v.Name] = nt.t
	}
	for _, nt := range outs {
		if !SupportsDType(nt.t.DType) {
			return s, fmt.Sprintf("dtype %v unsupported by executor", nt.t.DType)
		}
		s.outputs = append(s.outputs, nt.t)
	}
	if len(s.outputs) != len(g.Outputs) {
		return s, fmt.Sprintf("%d expected outputs for %d graph outputs", len(s.outputs), len(g.Outputs))
	}
	freezeParams(g, s.inputs)
	if err := g.InferShapes(); err != nil {
		return s, "shape inference: " + firstLine(err.Error())
	}
	return s, ""
}

// freezeParams turns graph inputs that feed inputs the executor needs at
// compile time (shapes, axes, pads, scales ...) into constants holding the
// test data.
func freezeParams(g *graph.Graph, data map[string]*graph.Tensor) {
	frozen := make(map[*graph.Value]bool)
	for _, n := range g.Nodes {
		for _, i := range graph.ParamInputs(n.Op) {
			if v := n.Input(i); v != nil && v.Const == nil && data[v.Name] != nil {
				frozen[v] = true
			}
		}
	}
	keep := g.Inputs[:0]
	for _, v := range g.Inputs {
		if frozen[v] {
			v.Const = data[v.Name]
			delete(data, v.Name)
			g.Initializers = append(g.Initializers, v)
			continue
		}
		keep = append(keep, v)
	}
	g.Inputs = keep
}

type namedTensor struct {
	name string
	t    *graph.Tensor
}

// readTensors reads prefix_N.pb files in numeric order.
func readTensors(dir, prefix string) ([]namedTensor, error) {
	files, _ := filepath.Glob(filepath.Join(dir, prefix+"_*.pb"))
	num := func(f string) int {
		s := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), prefix+"_"), ".pb")
		v, _ := strconv.Atoi(s)
		return v
	}
	sort.Slice(files, func(i, j int) bool { return num(files[i]) < num(files[j]) })
	var out []namedTensor
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		t, name, err := onnx.DecodeTensor(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, namedTensor{name, t})
	}
	return out, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// runSet executes one data set; a non-empty skip reason means the set
// legitimately cannot run (random training-mode op).
func runSet(s confSet, opts ExecOptions) (map[string]*graph.Tensor, string, error) {
	ex, err := NewExecutor(s.g, opts)
	var unsupported *graph.UnsupportedOpError
	if errors.As(err, &unsupported) && isControlFlowWithBodies(unsupported.Node) {
		return nil, "If/Loop/Scan body whose shapes depend on run-time values", nil
	}
	if err != nil {
		return nil, "", err
	}
	got, err := ex.Run(s.inputs)
	if errors.Is(err, ErrTrainingDropout) {
		return nil, "training-mode Dropout with ratio > 0 (random)", nil
	}
	return got, "", err
}

// compareTensor checks got against want: rtol 1e-3, atol 1e-4 for floats
// (like ONNX's own runner), exact for integers and bools.
func compareTensor(got, want *graph.Tensor, rtol, atol float64) error {
	if got == nil {
		return fmt.Errorf("missing output")
	}
	if got.DType != want.DType {
		return fmt.Errorf("dtype %v, want %v", got.DType, want.DType)
	}
	if !slices.Equal(got.Shape, want.Shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	if got.DType.IsFloat() {
		g, _ := got.AsFloat64()
		w, _ := want.AsFloat64()
		bad, worst, at := 0, 0.0, -1
		for i := range w {
			a, b := g[i], w[i]
			if math.IsNaN(a) && math.IsNaN(b) || a == b {
				continue
			}
			d := math.Abs(a - b)
			if !(d <= atol+rtol*math.Abs(b)) {
				bad++
				if d > worst || math.IsNaN(d) || at < 0 {
					worst, at = d, i
				}
			}
		}
		if bad > 0 {
			return fmt.Errorf("%d of %d elements differ; worst at %d: got %v, want %v", bad, len(w), at, g[at], w[at])
		}
		return nil
	}
	if !got.Equal(want) {
		g, _ := got.AsFloat64()
		w, _ := want.AsFloat64()
		for i := range w {
			if g[i] != w[i] {
				return fmt.Errorf("element %d: got %v, want %v", i, g[i], w[i])
			}
		}
		return fmt.Errorf("values differ")
	}
	return nil
}

// TestConformance runs ONNX's backend test cases that use only supported
// ops and dtypes and compares with the expected outputs.
func TestConformance(t *testing.T) {
	cases := loadConformance(t)
	pass, fail := 0, 0
	var passed []string
	skips := map[string][]string{}
	for _, c := range cases {
		if c.skip != "" {
			skips[c.skip] = append(skips[c.skip], c.name)
			continue
		}
		ok, skip := true, ""
		for _, s := range c.sets {
			got, reason, err := runSet(s, ExecOptions{})
			if reason != "" {
				skip = reason
				break
			}
			if err != nil {
				t.Errorf("%s/%s: %v", c.name, filepath.Base(s.dir), err)
				ok = false
				break
			}
			for i, v := range s.g.Outputs {
				if err := compareTensor(got[v.Name], s.outputs[i], 1e-3, 1e-4); err != nil {
					t.Errorf("%s/%s: output %q: %v", c.name, filepath.Base(s.dir), v.Name, err)
					ok = false
				}
			}
		}
		switch {
		case skip != "":
			skips[skip] = append(skips[skip], c.name)
		case ok:
			pass++
			passed = append(passed, c.name)
		default:
			fail++
		}
	}
	nskip := 0
	categories := map[string]int{}
	for r, names := range skips {
		categories[skipCategory(r)] += len(names)
	}
	reasons := make([]string, 0, len(skips))
	for r, names := range skips {
		nskip += len(names)
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if len(skips[reasons[i]]) != len(skips[reasons[j]]) {
			return len(skips[reasons[i]]) > len(skips[reasons[j]])
		}
		return reasons[i] < reasons[j]
	})
	var b strings.Builder
	fmt.Fprintf(&b, "conformance summary: pass=%d fail=%d skip=%d\n", pass, fail, nskip)
	for _, r := range reasons {
		names := skips[r]
		ex := names
		if len(ex) > 4 {
			ex = append(ex[:4:4], "...")
		}
		fmt.Fprintf(&b, "  skip %4d  %s  (%s)\n", len(names), r, strings.Join(ex, ", "))
	}
	cats := make([]string, 0, len(categories))
	for c := range categories {
		cats = append(cats, c)
	}
	sort.Slice(cats, func(i, j int) bool {
		if categories[cats[i]] != categories[cats[j]] {
			return categories[cats[i]] > categories[cats[j]]
		}
		return cats[i] < cats[j]
	})
	fmt.Fprintf(&b, "skips by category:\n")
	for _, c := range cats {
		fmt.Fprintf(&b, "  %4d  %s\n", categories[c], c)
	}
	t.Log("\n" + b.String())
	if testing.Verbose() {
		fmt.Print(b.String())
	}
	if pass == 0 {
		t.Fatalf("no conformance case ran")
	}
	checkConformanceFloor(t, passed, len(cases))
}

// checkConformanceFloor fails when a case of the golden list no longer
// passes or the pass count drops below the floor; with -update it rewrites
// the golden list instead.
func checkConformanceFloor(t *testing.T, passed []string, total int) {
	t.Helper()
	sort.Strings(passed)
	if *update {
		data := "# Conformance cases the Go executor passes (go test ./executor -run TestConformance -update).\n" +
			strings.Join(passed, "\n") + "\n"
		if err := os.WriteFile(conformanceGolden, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(passed) < minConformancePass {
		t.Errorf("%d of %d conformance cases pass, want at least %d", len(passed), total, minConformancePass)
	}
	want, err := readGolden(conformanceGolden)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < minConformancePass {
		t.Errorf("%s lists %d cases, want at least %d", conformanceGolden, len(want), minConformancePass)
	}
	ok := make(map[string]bool, len(passed))
	for _, n := range passed {
		ok[n] = true
	}
	for _, n := range want {
		if !ok[n] {
			t.Errorf("%s passed before (listed in %s) but does not pass now", n, conformanceGolden)
		}
	}
}

// readGolden returns the non-comment lines of a golden list.
func readGolden(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, nil
}

// skipCategory groups a skip reason: the kind of reason without the op or
// value it names for opaque ops, and the reason itself otherwise.
func skipCategory(reason string) string {
	switch {
	case strings.HasPrefix(reason, "opaque op ai.onnx.preview.training."):
		return "training-domain op (ai.onnx.preview.training)"
	case strings.HasPrefix(reason, "opaque op "):
		op := strings.TrimPrefix(reason, "opaque op ")
		return "op outside the table: " + opFamily(op)
	case strings.HasPrefix(reason, "op ") && strings.Contains(reason, "kept opaque"):
		return "old-opset form with no exact IR equivalent"
	case strings.HasPrefix(reason, "dtype "):
		return "element type the executor does not hold (float16, bfloat16, string)"
	case strings.HasPrefix(reason, "shape inference: "):
		return "shape needs a value computed at run time"
	case strings.Contains(reason, "not a tensor"):
		return "sequence or optional graph input/output"
	}
	return reason
}

// opFamily names the group an operator outside the table belongs to.
func opFamily(op string) string {
	families := []struct {
		name string
		ops  []string
	}{
		{"losses", []string{"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}},
		{"sequences, optionals and control flow", []string{"SequenceConstruct", "SequenceEmpty", "SequenceInsert",
			"SequenceLength", "SequenceMap", "SplitToSequence", "OptionalGetElement", "OptionalHasElement", "If", "Loop", "Scan"}},
		{"recurrent networks", []string{"LSTM", "GRU", "RNN"}},
		{"quantisation", []string{"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearConv",
			"QLinearMatMul", "ConvInteger", "MatMulInteger"}},
		{"strings and text", []string{"StringNormalizer", "TfIdfVectorizer"}},
		{"random", []string{"Bernoulli", "RandomUniformLike", "RandomNormalLike", "RandomUniform", "RandomNormal", "Multinomial"}},
		{"data-dependent output shape", []string{"NonZero", "Unique", "Compress", "NonMaxSuppression"}},
		{"signal processing", []string{"DFT", "STFT", "MelWeightMatrix", "BlackmanWindow", "HammingWindow", "HannWindow"}},
	}
	for _, f := range families {
		for _, o := range f.ops {
			if o == op {
				return f.name
			}
		}
	}
	return "other (" + op + ")"
}

// TestConformancePrecision checks that float64 precision agrees with
// float32 on every runnable conformance model (float outputs come back as
// float64 and are compared after narrowing).
func TestConformancePrecision(t *testing.T) {
	cases := loadConformance(t)
	compared := 0
	for _, c := range cases {
		if c.skip != "" {
			continue
		}
		for _, s := range c.sets {
			g32, reason, err := runSet(s, ExecOptions{})
			if reason != "" || err != nil {
				break // reported by TestConformance
			}
			g64, _, err := runSet(s, ExecOptions{Precision: graph.Float64})
			if err != nil {
				t.Errorf("%s: float64 precision: %v", c.name, err)
				break
			}
			for _, v := range s.g.Outputs {
				a, b := g32[v.Name], g64[v.Name]
				if a.DType == graph.Float32 {
					if b.DType != graph.Float64 {
						t.Errorf("%s: output %q: float64 mode returned %v", c.name, v.Name, b.DType)
						continue
					}
					b = toExec(b, graph.Float32)
				}
				err := compareTensor(b, a, 1e-3, 1e-4)
				if err != nil && !a.DType.IsFloat() && roundsFloats(s.g) {
					err = compareWithin(b, a, 1)
				}
				if err != nil {
					t.Errorf("%s: output %q: float64 vs float32: %v", c.name, v.Name, err)
				}
			}
			compared++
		}
	}
	if compared == 0 {
		t.Fatalf("no conformance data set compared")
	}
	t.Logf("compared %d data sets in float32 and float64 precision", compared)
}

// roundsFloats reports whether g rounds floats to integers: a value near
// a rounding boundary may then round one way in float32 and the other in
// float64, so integer outputs may differ by one between the precisions.
func roundsFloats(g *graph.Graph) bool {
	for _, n := range g.Nodes {
		switch n.Op {
		case "Round", "QuantizeLinear", "DynamicQuantizeLinear":
			return true
		}
	}
	return false
}

// compareWithin checks that got and want have one shape and that their
// elements differ by at most tol.
func compareWithin(got, want *graph.Tensor, tol float64) error {
	if !slices.Equal(got.Shape, want.Shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	g, _ := got.AsFloat64()
	w, _ := want.AsFloat64()
	for i := range w {
		if math.Abs(g[i]-w[i]) > tol {
			return fmt.Errorf("element %d: got %v, want %v (tolerance %v)", i, g[i], w[i], tol)
		}
	}
	return nil
}

// isControlFlowWithBodies reports whether n is an If, Loop or Scan whose
// bodies the codec decoded (the executor runs those through the bodies).
func isControlFlowWithBodies(n *graph.Node) bool {
	switch n.Op {
	case "If", "Loop", "Scan":
		return len(n.Bodies) > 0
	}
	return false
}
