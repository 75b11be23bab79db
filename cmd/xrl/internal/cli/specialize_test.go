package cli

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

// TestOptimizeSpecialize runs `xrl optimize --specialize` on the corpus
// encoder (ids[batch, seq]) at 1x32, and the same search on a copy of the
// encoder whose input is declared 1x32 (the fixed-shape result xrl gave
// before the interface was kept). The specialised run must search the same
// graph (the same rules applied as often, the same modelled latencies) and
// write a model declaring the bound shapes, saying so in its report; the
// default run on the dynamic model keeps the symbols.
func TestOptimizeSpecialize(t *testing.T) {
	ensureCorpus(t)
	dyn := filepath.Join(corpusDir, "encoder_classifier.onnx")
	dir := t.TempDir()
	bind := map[string][]int{"ids": {1, 32}}
	m, err := onnx.ReadFile(dyn)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Graph.BindShapes(bind); err != nil {
		t.Fatal(err)
	}
	fixed := filepath.Join(dir, "fixed.onnx")
	if err := onnx.WriteFile(fixed, m); err != nil {
		t.Fatal(err)
	}
	search := []string{"--shape", "ids=1x32", "--runtime", "roofline", "--search", "greedy", "--budget", "6", "--runs", "3", "--max-time", "1s", "--measured-passes", "none", "--json"}
	optimize := func(name, model string, extra ...string) (map[string]any, *graph.Model) {
		t.Helper()
		out := filepath.Join(dir, name+".onnx")
		args := append(append([]string{"optimize", model, "-o", out}, search...), extra...)
		code, stdout, stderr := run(args...)
		if code != exitOK {
			t.Fatalf("%s: exit code %d\n%s", name, code, stderr)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stdout)
		}
		w, err := onnx.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return rep, w
	}
	specRep, spec := optimize("specialised", dyn, "--specialize")
	fixedRep, _ := optimize("fixed", fixed)
	keptRep, kept := optimize("kept", dyn)

	for _, path := range []string{"method.initial_ns", "method.best_ns", "method.steps", "method.stop_reason"} {
		if a, b := field(t, specRep, path), field(t, fixedRep, path); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: %v specialised, %v on the fixed-shape model", path, a, b)
		}
	}
	if a, b := field(t, specRep, "rules"), field(t, fixedRep, "rules"); !reflect.DeepEqual(a, b) {
		t.Errorf("rules applied differ:\nspecialised %v\nfixed       %v", a, b)
	}
	// Never-slower may keep the original, which is then written as it
	// was given, its interface included.
	want := []string{"1", "32"}
	if field(t, specRep, "decision.choice") == "original" {
		want = []string{"batch", "seq"}
	}
	if got := dimStrings(spec.Graph.Inputs[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("specialised model (%v written) declares ids %v, want %v", field(t, specRep, "decision.choice"), got, want)
	}
	if got := dimStrings(kept.Graph.Inputs[0]); !reflect.DeepEqual(got, []string{"batch", "seq"}) {
		t.Errorf("default run declares ids %v, want [batch seq]", got)
	}
	if field(t, specRep, "interface.specialised") != true || field(t, keptRep, "interface.specialised") != false || field(t, keptRep, "interface.symbolic") != true {
		t.Errorf("interfaces reported: specialised run %v, default run %v", field(t, specRep, "interface"), field(t, keptRep, "interface"))
	}
}

// dimStrings returns v's declared dimensions as written: sizes or names.
func dimStrings(v *graph.Value) []string {
	var out []string
	for _, d := range v.Shape {
		out = append(out, d.String())
	}
	return out
}
