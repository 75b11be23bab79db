package pipeline

import (
	"bytes"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

func TestVerifyBindings(t *testing.T) {
	it := &Interface{Symbols: map[string]int64{"batch": 1, "seq": 128}, Leading: map[string]bool{"batch": true}}
	var got []string
	for _, b := range it.VerifyBindings() {
		got = append(got, b.String())
	}
	want := []string{
		"batch=2 seq=128", "batch=3 seq=128", "batch=8 seq=128",
		"batch=1 seq=1", "batch=1 seq=7", "batch=1 seq=64", "batch=1 seq=256",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bindings\n got %q\nwant %q", got, want)
	}
	if (&Interface{Symbols: map[string]int64{}}).Dynamic() {
		t.Errorf("an interface without symbols is dynamic")
	}
}

// declaredDims returns the dims each input and output of m declares, as
// strings ("batch", "128", "?").
func declaredDims(m *graph.Model) map[string][]string {
	out := map[string][]string{}
	for _, vs := range [][]*graph.Value{m.Graph.Inputs, m.Graph.Outputs} {
		for _, v := range vs {
			if v.Const != nil {
				continue
			}
			for _, d := range v.Shape {
				out[v.Name] = append(out[v.Name], d.String())
			}
		}
	}
	return out
}

// TestDynamicStartKeepsTheInterface prepares the corpus encoder (ids
// [batch, seq]) bound symbolically at 1x128: the start graph keeps every
// shape computation that depends on the symbols, the model as written
// declares the original's inputs and outputs, and it verifies at the other
// bindings (the one at seq 256 skipped: the position table has 128 rows).
// Specialised, the same model is written with the bound shapes.
func TestDynamicStartKeepsTheInterface(t *testing.T) {
	path := "../testdata/corpus/encoder_classifier.onnx"
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%v (run scripts/gen-corpus)", err)
	}
	orig, err := onnx.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	shapes := map[string][]int{"ids": {1, 128}}
	s, err := PrepareDynamic(path, shapes, RuleChoice{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ShapeBinding(s.Interface.Symbols).String(); got != "batch=1 seq=128" {
		t.Errorf("tuning binding %s", got)
	}
	shapeOps := 0
	for _, n := range s.Model.Graph.Nodes {
		if n.Op == "Shape" {
			shapeOps++
		}
	}
	if shapeOps == 0 {
		t.Errorf("folding removed every Shape node: the start graph is frozen to 1x128")
	}
	// One copy for one model: verification, never-slower and the sweep
	// time it, and a run's session pool loads it once.
	if w := s.Writable(s.Model); w == s.Model || w != s.Writable(s.Model) || w == s.Writable(s.Orig) {
		t.Errorf("Writable: want one copy for each model, made once")
	}
	written, err := onnx.Decode(mustEncode(t, s.Writable(s.Model)), onnx.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := declaredDims(written), declaredDims(orig); !reflect.DeepEqual(got, want) {
		t.Errorf("written interface %v, original %v", got, want)
	}
	var log bytes.Buffer
	if err := s.VerifyShapes(&log, s.Model, 1e-4, 1); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	// Both runtimes at the odd sizes and the smaller shapes, ONNX Runtime
	// alone at the larger even ones (runtimesAt).
	for _, want := range []string{"at batch=8 seq=128: verified on ort", "at batch=3 seq=128: verified on go", "at batch=1 seq=7: verified on go",
		"at batch=1 seq=64: verified on go", "at batch=1 seq=256: not checked"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	for _, not := range []string{"at batch=8 seq=128: verified on go", "at batch=2 seq=128: verified on go"} {
		if strings.Contains(log.String(), not) {
			t.Errorf("log has %q:\n%s", not, log.String())
		}
	}

	fixed, err := PrepareWith(path, shapes, RuleChoice{})
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Interface != nil || fixed.Writable(fixed.Model) != fixed.Model {
		t.Errorf("a specialised start keeps an interface")
	}
	if got := declaredDims(fixed.Model)["ids"]; !reflect.DeepEqual(got, []string{"1", "128"}) {
		t.Errorf("specialised ids declared %v", got)
	}
}

// frozenEncoder returns the encoder prepared at 1x128 with its interface
// kept, and a copy of its folded model with a Reshape frozen to the tuning
// shape: it verifies at 1x128 and at no other shape.
func frozenEncoder(t *testing.T) (*Start, *graph.Model) {
	t.Helper()
	s, err := PrepareDynamic("../testdata/corpus/encoder_classifier.onnx", map[string][]int{"ids": {1, 128}}, RuleChoice{})
	if err != nil {
		t.Fatal(err)
	}
	frozen := s.Model.Clone()
	changed := false
	for _, n := range frozen.Graph.Nodes {
		if n.Op == "Reshape" && n.Inputs[1].Const == nil && n.Inputs[1].Known != nil {
			n.Inputs[1] = &graph.Value{Name: n.Inputs[1].Name + "_frozen", Const: n.Inputs[1].Known}
			n.Inputs[1].SetStatic(graph.Int64, n.Inputs[1].Const.Shape)
			changed = true
			break
		}
	}
	if !changed {
		t.Fatal("no Reshape with a run-time shape: the test checks nothing")
	}
	return s, frozen
}

// TestVerifyShapesRejectsAFrozenModel: VerifyShapes must reject the frozen
// encoder.
func TestVerifyShapesRejectsAFrozenModel(t *testing.T) {
	s, frozen := frozenEncoder(t)
	var log bytes.Buffer
	if err := s.VerifyShapes(&log, frozen, 1e-4, 1); err != ErrNotEquivalent {
		t.Fatalf("VerifyShapes = %v, want ErrNotEquivalent\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "does not take this shape") {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestVerifiedEverywhereFallsBack gives verifiedEverywhere chains of
// models chosen in turn whose last verifies at the tuning shape only (the
// frozen encoder): it is dropped for the model chosen before it, or, when
// it is the search's result, for the folded model (rejected); a chain
// that verifies keeps its last model.
func TestVerifiedEverywhereFallsBack(t *testing.T) {
	s, frozen := frozenEncoder(t)
	good := s.Model.Clone()
	cases := []struct {
		name         string
		chain        []*graph.Model
		want         *graph.Model // nil: the folded model, finished again
		wantDropped  int
		wantRejected bool
	}{
		{"last verifies", []*graph.Model{good, good}, good, 0, false},
		{"last dropped", []*graph.Model{good, frozen}, good, 1, false},
		{"search's result dropped", []*graph.Model{frozen}, nil, 1, true},
		{"the original", []*graph.Model{s.Orig}, s.Orig, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			out, dropped, rejected, err := s.verifiedEverywhere(&log, tc.chain, nil, 1e-4, 1)
			if err != nil {
				t.Fatal(err)
			}
			if dropped != tc.wantDropped || rejected != tc.wantRejected {
				t.Errorf("dropped %d, rejected %v; want %d, %v\n%s", dropped, rejected, tc.wantDropped, tc.wantRejected, log.String())
			}
			// A measured pass's result (after the first) was verified at
			// the tuning shape on trialRuntimes only: the rest check it.
			if len(runtimesLeft(trialRuntimes())) > 0 && tc.want == good && len(tc.chain) > 1 && tc.wantDropped == 0 &&
				!regexp.MustCompile(`(?m)^verified on go`).MatchString(log.String()) {
				t.Errorf("the measured pass's result was not verified on the Go executor at the tuning shape\n%s", log.String())
			}
			switch {
			case tc.want != nil && out != tc.want:
				t.Errorf("returned another model than the one expected\n%s", log.String())
			case tc.want == nil && (out == frozen || out == s.Orig || out.Graph.CanonicalHash() != s.Model.Graph.CanonicalHash()):
				t.Errorf("want the folded model finished again\n%s", log.String())
			}
		})
	}
}

func mustEncode(t *testing.T, m *graph.Model) []byte {
	t.Helper()
	data, err := onnx.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
