package cli

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/verify"
)

// The interface test takes every corpus model with symbolic input
// dimensions through xrl optimize at a tuning shape, then checks that the
// written model declares the original's inputs and outputs, symbolic
// dimensions by the same names, and that ONNX Runtime runs it at other
// batch sizes and sequence lengths with the original's outputs: what a
// server with dynamic batching and requests of any length needs.

// dynamicModel is a corpus model with symbolic input dimensions.
type dynamicModel struct {
	name   string
	tuning []string // --shape flags: the tuning shape
	// maxSeq, when not 0, is the longest sequence the model takes (its
	// position table); longer lengths are not checked.
	maxSeq int64
}

// Sizes the interface test runs every model at: each symbol that is an
// input's first dimension takes every batch size, every other symbol every
// sequence length (all combinations).
var (
	interfaceBatches = []int64{1, 3, 8}
	interfaceSeqs    = []int64{1, 7, 64, 128, 256}
)

// dynamicCorpus lists the corpus models with dynamic axes: transformers
// with dynamic batch and sequence (dynamic sequence only for gpt_decoder),
// vision transformers and CNNs with a dynamic batch.
var dynamicCorpus = []dynamicModel{
	{name: "encoder_classifier", tuning: []string{"ids=1x128"}, maxSeq: 128},
	{name: "encoder_classifier_dyn", tuning: []string{"ids=1x128"}},
	{name: "bert_hf", tuning: []string{"input_ids=1x128", "attention_mask=1x128"}},
	{name: "encoder_packed", tuning: []string{"input_ids=1x128", "attention_mask=1x128"}},
	{name: "gpt_decoder", tuning: []string{"ids=1x32"}, maxSeq: 64},
	{name: "gpt_decoder_dyn", tuning: []string{"ids=1x128"}},
	{name: "gpt2_hf", tuning: []string{"input_ids=1x128"}},
	{name: "llama_decoder", tuning: []string{"input_ids=1x128"}},
	{name: "decoder_torch", tuning: []string{"input_ids=1x128"}},
	{name: "vit_torchvision"}, {name: "vit_hf"}, {name: "deit_timm"}, {name: "vit_tiny_dyn"}, {name: "swin_tiny_dyn"},
	{name: "mobilenet_v2"}, {name: "mobilenet_v3_small"},
	{name: "resnet18_dyn"}, {name: "squeezenet1_1_dyn"}, {name: "efficientnet_b0_dyn"},
}

func TestCorpusInterface(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus: not in -short mode")
	}
	ensureCorpus(t)
	be, err := measure.NewBackend("ort", measure.BackendOptions{})
	if err != nil {
		t.Fatalf("ONNX Runtime (run scripts/setup): %v", err)
	}
	ms := dynamicCorpus
	if pat := os.Getenv("XRL_CORPUS"); pat != "" {
		re := regexp.MustCompile(pat)
		ms = slices.DeleteFunc(slices.Clone(ms), func(m dynamicModel) bool { return !re.MatchString(m.name) })
	}
	dir := t.TempDir()
	for _, m := range ms {
		t.Run(m.name, func(t *testing.T) {
			path, out := filepath.Join(corpusDir, m.name+".onnx"), filepath.Join(dir, m.name+".onnx")
			args := []string{"optimize", path, "-o", out, "--budget", "3", "--runtime", "cost",
				"--runs", "3", "--warmup", "1", "--max-time", "1s", "--threads", "1"}
			for _, s := range m.tuning {
				args = append(args, "--shape", s)
			}
			if code, stdout, stderr := run(args...); code != exitOK {
				t.Fatalf("optimize: exit %d: %s\n%s", code, stderr, stdout)
			}
			var read [2]*graph.Model
			for i, p := range []string{path, out} {
				m, err := onnx.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				read[i] = m
			}
			orig, opt := read[0], read[1]
			sameInterface(t, "input", orig.Graph.Inputs, opt.Graph.Inputs)
			sameInterface(t, "output", orig.Graph.Outputs, opt.Graph.Outputs)
			sameAtBindings(t, be, orig, opt, m.maxSeq)
		})
	}
}

// sameAtBindings checks that opt takes every binding of interfaceBindings
// and computes orig's outputs there in ONNX Runtime (one random input set
// each).
func sameAtBindings(t *testing.T, be measure.Backend, orig, opt *graph.Model, maxSeq int64) {
	t.Helper()
	bindings := interfaceBindings(orig.Graph, maxSeq)
	if len(bindings) == 0 {
		t.Fatal("the model declares no symbolic input dimension")
	}
	for _, b := range bindings {
		shapes := bindingShapes(orig.Graph, b)
		a, c := orig.Clone(), opt.Clone()
		if err := a.Graph.BindShapes(shapes); err != nil {
			t.Fatalf("at %s: binding the original: %v", b, err)
		}
		if err := c.Graph.BindShapes(shapes); err != nil {
			t.Errorf("at %s: the written model does not take this shape: %v", b, err)
			continue
		}
		res, err := verify.Models(be, a, c, verify.Options{Seeds: 1})
		switch {
		case err != nil:
			t.Errorf("at %s: %v", b, err)
		case !res.OK:
			t.Errorf("at %s: outputs differ in ONNX Runtime: %v\n%s", b, res, res.Details())
		}
	}
	t.Logf("checked at %d bindings, from %s to %s", len(bindings), bindings[0], bindings[len(bindings)-1])
}

// sameInterface checks that the written model's inputs or outputs have the
// original's names, element types and declared shapes (symbolic dimensions
// by the same names), in the same order.
func sameInterface(t *testing.T, what string, orig, written []*graph.Value) {
	t.Helper()
	orig, written = runtimeValues(orig), runtimeValues(written)
	if len(orig) != len(written) {
		t.Fatalf("%d %ss written, the original has %d", len(written), what, len(orig))
	}
	for i, o := range orig {
		w := written[i]
		if w.Name != o.Name || w.DType != o.DType || !w.Shape.Equal(o.Shape) {
			t.Errorf("%s %d written as %q %v %v, the original declares %q %v %v", what, i, w.Name, w.DType, w.Shape, o.Name, o.DType, o.Shape)
		}
	}
}

// runtimeValues drops the values that are initializers.
func runtimeValues(vs []*graph.Value) []*graph.Value {
	return slices.DeleteFunc(slices.Clone(vs), func(v *graph.Value) bool { return v.Const != nil })
}

// interfaceBindings returns every combination of the test's sizes for the
// symbols of g's declared inputs: batch sizes for a symbol that is some
// input's first dimension, sequence lengths up to maxSeq (when not 0) for
// the others.
func interfaceBindings(g *graph.Graph, maxSeq int64) []pipeline.ShapeBinding {
	sizes := map[string][]int64{}
	for _, v := range runtimeValues(g.Inputs) {
		for i, d := range v.Shape {
			if d.Known() || d.Param == "" {
				continue
			}
			if i == 0 {
				sizes[d.Param] = interfaceBatches
			} else if _, ok := sizes[d.Param]; !ok {
				sizes[d.Param] = slices.DeleteFunc(slices.Clone(interfaceSeqs), func(s int64) bool { return maxSeq > 0 && s > maxSeq })
			}
		}
	}
	out := []pipeline.ShapeBinding{{}}
	for _, name := range slices.Sorted(maps.Keys(sizes)) {
		var next []pipeline.ShapeBinding
		for _, b := range out {
			for _, s := range sizes[name] {
				c := pipeline.ShapeBinding{name: s}
				for k, v := range b {
					c[k] = v
				}
				next = append(next, c)
			}
		}
		out = next
	}
	if len(sizes) == 0 {
		return nil
	}
	return out
}

// bindingShapes returns the shapes binding b gives g's declared inputs.
func bindingShapes(g *graph.Graph, b pipeline.ShapeBinding) map[string][]int {
	out := map[string][]int{}
	for _, v := range runtimeValues(g.Inputs) {
		dims := make([]int, len(v.Shape))
		for i, d := range v.Shape {
			dims[i] = int(d.Value)
			if !d.Known() {
				dims[i] = int(b[d.Param])
			}
		}
		out[v.Name] = dims
	}
	return out
}
