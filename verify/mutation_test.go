package verify_test

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	_ "github.com/xrl-dev/xrl/measure/ort" // registers the "ort" backend
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/verify"
)

// corpusDir holds the exported corpus (scripts/gen-corpus).
const corpusDir = "../testdata/corpus"

// corpusShapes binds corpus models' inputs where the default binding
// (corpusBinding) does not suit them.
var corpusShapes = map[string]map[string][]int{
	"encoder_classifier": {"ids": {1, 128}},
	"gpt_decoder":        {"ids": {1, 32}},
	"vad_if":             {"x": {1, 512}},
	"silero_like":        {"input": {1, 512}},
	"paddle_det_like":    {"x": {1, 3, 64, 64}},
	"paddle_rec_like":    {"x": {1, 3, 32, 64}},
}

// defaultSymbolSize is the size corpusBinding gives a symbolic dimension
// that is not an input's first (a sequence).
const defaultSymbolSize = 16

// corpusBinding returns the input shapes a corpus model is checked at:
// corpusShapes' when listed, else its declared shapes with each leading
// symbolic dimension at 1 and any other at defaultSymbolSize.
func corpusBinding(name, path string) (map[string][]int, error) {
	if s, ok := corpusShapes[name]; ok {
		return s, nil
	}
	m, err := pipeline.ReadModel(path)
	if err != nil {
		return nil, err
	}
	size := func(axis int) int {
		if axis == 0 {
			return 1
		}
		return defaultSymbolSize
	}
	bind := map[string][]int{}
	for _, v := range runtimeInputs(m.Graph) {
		dims := make([]int, len(v.Shape))
		for i, d := range v.Shape {
			if dims[i] = int(d.Value); !d.Known() {
				dims[i] = size(i)
			}
		}
		bind[v.Name] = dims
	}
	return bind, nil
}

// runtimeInputs returns g's non-constant inputs of known rank.
func runtimeInputs(g *graph.Graph) []*graph.Value {
	var out []*graph.Value
	for _, v := range g.Inputs {
		if v.Const == nil && v.ShapeKnown {
			out = append(out, v)
		}
	}
	return out
}

// mutationRuntimes are the runtimes every mutant must be rejected on.
var mutationRuntimes = []string{"go", "ort"}

// corpusModels returns the paths of the corpus models, by name.
func corpusModels(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.onnx"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no models in %s (run scripts/gen-corpus): %v", corpusDir, err)
	}
	out := map[string]string{}
	for _, f := range files {
		out[strings.TrimSuffix(filepath.Base(f), ".onnx")] = f
	}
	return out
}

// rejects reports whether verification on be refuses mutant as a
// rewrite of orig: a difference, or a mutant that fails to run where
// the original runs.
func rejects(be measure.Backend, orig, mutant *graph.Model, opts verify.Options) (bool, string) {
	res, err := verify.Models(be, orig, mutant, opts)
	switch {
	case err != nil:
		return true, "fails: " + strings.SplitN(err.Error(), "\n", 2)[0]
	case !res.OK:
		return true, res.Worst
	}
	return false, res.String()
}

// mutationRun checks every mutant of every corpus model whose name keep
// accepts on each runtime, with verification options opts, and returns
// how many were accepted, logging a row per model and mutation.
func mutationRun(t *testing.T, keep func(name string) bool, opts verify.Options, runtimes []string) (mutantCount, accepted int) {
	t.Helper()
	paths := corpusModels(t)
	var rows []string
	for _, name := range sortedKeys(paths) {
		if !keep(name) {
			continue
		}
		shapes, err := corpusBinding(name, paths[name])
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		m, err := pipeline.LoadBound(paths[name], shapes)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, mu := range mutations {
			muts, sites, err := mutants(m, mu)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if len(muts) == 0 {
				continue
			}
			for _, rt := range runtimes {
				be, err := measure.NewBackend(rt, measure.BackendOptions{Threads: 1})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := verify.Models(be, m, m, opts); err != nil {
					var un *graph.UnsupportedOpError
					if errors.As(err, &un) {
						rows = append(rows, fmt.Sprintf("| %s | %s | %s | %d | not run | %v |", name, mu.name, rt, len(muts), un))
						continue
					}
					t.Fatalf("%s on %s: the original against itself: %v", name, rt, err)
				}
				rejected, how := 0, ""
				for i, mut := range muts {
					mutantCount++
					ok, why := rejects(be, m, mut, opts)
					if ok {
						rejected++
						how = cmp.Or(how, why)
						continue
					}
					accepted++
					t.Logf("%s, %s at %s: accepted on %s: %s", name, mu.name, sites[i], rt, why)
				}
				rows = append(rows, fmt.Sprintf("| %s | %s | %s | %d | %d | %s |", name, mu.name, rt, len(muts), rejected, how))
			}
		}
	}
	t.Logf("mutants rejected by verification:\n| model | mutation | runtime | mutants | rejected | first rejection |\n|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
	return mutantCount, accepted
}

// TestMutantsRejected is the mutation check of verification: for every
// model of the exported corpus, each small wrong edit that only realistic
// inputs reveal (an integer input offset by 2, an If's other branch, a
// change on a Loop's second iteration, a Gather reading index i-1 for
// indices above 1) must be rejected by verify.Models on the Go executor
// and on ONNX Runtime.
func TestMutantsRejected(t *testing.T) {
	if testing.Short() {
		t.Skip("mutation check: not in -short mode")
	}
	n, accepted := mutationRun(t, func(string) bool { return true }, verify.Options{}, mutationRuntimes)
	if accepted > 0 {
		t.Errorf("%d of %d mutants passed verification", accepted, n)
	}
	if n == 0 {
		t.Fatal("no mutation applies to any corpus model")
	}
}

// TestMutantsNeedRealisticInputs shows that the mutation check has teeth:
// with integers drawn as before (0 or 1 unless a Gather reads them) the
// control-flow models' mutants pass verification on the Go executor.
func TestMutantsNeedRealisticInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("mutation check: not in -short mode")
	}
	control := func(name string) bool {
		return slices.Contains([]string{"vad_if", "silero_like", "loop_mlp", "loop_if"}, name)
	}
	_, accepted := mutationRun(t, control, verify.Options{Draw: zeroOneInputs}, []string{"go"})
	if accepted == 0 {
		t.Error("every mutant was rejected even on inputs that leave integers at 0 and 1: the mutations do not need realistic inputs")
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
