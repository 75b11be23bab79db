package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules"
)

// TestCanonicalRulesFireOnExports canonicalises real exports (the corpus
// of exporters' styles, bound with their symbols kept, and the PyTorch
// near-miss exports of testdata/fusion) and checks how often each rule of
// canonical.rules applies: every rule fires on at least one export. The
// corpus results must compute what the export does at other batch sizes
// and sequence lengths.
func TestCanonicalRulesFireOnExports(t *testing.T) {
	ids, idsMask, image := idsBinding, idsMaskBinding, imageBinding
	tests := []struct {
		export string
		// tuning binds a corpus export; nil for a testdata/fusion export.
		tuning map[string][]int
		// at are the other bindings the result is checked at.
		at      []map[string][]int
		applied map[string]int
	}{
		{"encoder_packed", idsMask(1, 16), []map[string][]int{idsMask(2, 5)},
			map[string]int{"attention-scale-after": 3, "cube-to-pow": 3, "gelu-tanh-half-first": 3}},
		{"gpt2_hf", ids("input_ids", 1, 16), []map[string][]int{ids("input_ids", 2, 7)},
			map[string]int{"split3-to-slices": 3}},
		{"llama_decoder", ids("input_ids", 1, 16), []map[string][]int{ids("input_ids", 2, 9)},
			map[string]int{"mul-inverse-to-div": 5}},
		{"decoder_torch", ids("input_ids", 1, 16), []map[string][]int{ids("input_ids", 3, 4)},
			map[string]int{"mul-one-elim": 6, "attention-div-after": 3}},
		{"vit_hf", image("pixel_values", 1, 64), []map[string][]int{image("pixel_values", 2, 64)},
			map[string]int{"gelu-erf-half-last": 3}},
		{"deit_timm", image("pixels", 1, 64), []map[string][]int{image("pixels", 2, 64)},
			map[string]int{"split3-to-slices": 4}},
		{"vit_torchvision", image("image", 1, 64), []map[string][]int{image("image", 2, 64)},
			map[string]int{"attention-div-after": 3}},
		{"encoder_classifier", ids("ids", 1, 16), []map[string][]int{ids("ids", 2, 5)},
			map[string]int{"attention-div-after": 4}},
		{"gpt_decoder", ids("ids", 1, 16), []map[string][]int{ids("ids", 1, 9)},
			map[string]int{"split3-to-slices": 2}},
		{"vit_tiny", image("image", 1, 32), nil, map[string]int{"attention-div-after": 2}},
		{"bert_hf", idsMask(1, 16), nil, map[string]int{}},
		{"gelu_mul_late_half_opset13", nil, nil, map[string]int{"gelu-erf-mul-to-div": 1}},
		{"gelu_mul_opset17", nil, nil, map[string]int{"gelu-erf-mul-to-div": 1, "gelu-erf-half-last": 1}},
		{"gelu_nn_tanh_opset17", nil, nil, map[string]int{"cube-to-pow": 1, "gelu-tanh-half-first": 1}},
		{"ln_muldd_opset13", nil, nil, map[string]int{"square-mean-to-pow": 1}},
		{"rms_muldd_opset17", nil, nil, map[string]int{"square-mean-to-pow": 1, "mul-inverse-to-div": 1}},
	}
	set, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	fired := map[string]bool{}
	for _, tt := range tests {
		for rule := range tt.applied {
			fired[rule] = true
		}
		t.Run(tt.export, func(t *testing.T) {
			var declared *graph.Model
			var g *graph.Graph
			if tt.tuning != nil {
				declared, g = loadSymbolic(t, "../testdata/corpus/"+tt.export+".onnx", tt.tuning)
			} else {
				g = loadBoundFolded(t, "../testdata/fusion/"+tt.export+".onnx", nil)
			}
			out, st, err := Canonicalize(g, set, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			if st.Stop != "saturated" {
				t.Errorf("stopped: %s", st)
			}
			for rule, n := range st.Applied {
				if n != tt.applied[rule] {
					t.Errorf("%s applied %d times, want %d", rule, n, tt.applied[rule])
				}
			}
			for rule, n := range tt.applied {
				if st.Applied[rule] != n {
					t.Errorf("%s applied %d times, want %d", rule, st.Applied[rule], n)
				}
			}
			if err := out.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := SameOutputShapes(g, out); err != nil {
				t.Fatal(err)
			}
			if declared != nil && len(tt.at) > 0 {
				// The tolerance of the pipeline's check of a canonicalised
				// pass (CanonicalFirst): float64 results move by rounding.
				sameAtShapesTol(t, declared, out, append([]map[string][]int{tt.tuning}, tt.at...), FusionFormsTolerance)
			}
			again, st2, err := Canonicalize(out, set, executor.Evaluate)
			if err != nil || st2.Rounds != 0 || again != out {
				t.Errorf("canonicalising the result again: %s, %v; want no rule applied", st2, err)
			}
		})
	}
	for _, name := range set.CanonicalNames() {
		if !fired[name] {
			t.Errorf("canonicalisation rule %s fires on no export of the table", name)
		}
	}
}
