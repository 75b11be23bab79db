package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/rules"
)

// TestFuseAttentionOnExports canonicalises corpus exports of every style
// (bound with their symbols kept), fuses their attention as the measured
// passes do (FuseAttentionRounded) and checks the number of Attention (or,
// for grouped heads, GroupQueryAttention) nodes and Softmaxes left, and
// that the result computes what the export does at other batch sizes and
// lengths.
func TestFuseAttentionOnExports(t *testing.T) {
	ids, idsMask, image := idsBinding, idsMaskBinding, imageBinding
	tests := []struct {
		export string
		tuning map[string][]int
		at     []map[string][]int
		// fused: Attention nodes; softmax: Softmax nodes left.
		fused, softmax int
	}{
		{"vit_hf", image("pixel_values", 1, 64), []map[string][]int{image("pixel_values", 2, 64)}, 3, 0},
		{"bert_hf", idsMask(1, 16), []map[string][]int{idsMask(2, 5)}, 4, 0},
		{"gpt2_hf", ids("input_ids", 1, 16), []map[string][]int{ids("input_ids", 2, 7)}, 3, 0},
		{"llama_decoder", ids("input_ids", 1, 16), []map[string][]int{ids("input_ids", 2, 9), ids("input_ids", 1, 1)}, 2, 0},
		{"decoder_torch", ids("input_ids", 1, 16), []map[string][]int{ids("input_ids", 3, 4)}, 3, 0},
		{"deit_timm", image("pixels", 1, 64), []map[string][]int{image("pixels", 2, 64)}, 4, 0},
		{"encoder_packed", idsMask(1, 16), []map[string][]int{idsMask(2, 5)}, 3, 0},
		{"encoder_classifier", ids("ids", 1, 16), []map[string][]int{ids("ids", 2, 5)}, 4, 0},
		{"gpt_decoder", ids("ids", 1, 16), []map[string][]int{ids("ids", 1, 9)}, 2, 0},
		{"vit_torchvision", image("image", 1, 64), []map[string][]int{image("image", 2, 64)}, 3, 0},
		{"vit_tiny", image("image", 1, 32), nil, 2, 0},
		// Swin's windows: the relative position bias per head is
		// attention_bias, in the shifted block with the window mask; with
		// a symbolic batch the shifted block's mask is not one constant.
		{"swin_tiny", image("image", 1, 32), nil, 4, 0},
		{"swin_tiny_dyn", image("image", 1, 32), []map[string][]int{image("image", 2, 32)}, 3, 1},
	}
	set, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.export, func(t *testing.T) {
			declared, g := loadSymbolic(t, "../testdata/corpus/"+tt.export+".onnx", tt.tuning)
			c, _, err := Canonicalize(g, set, executor.Evaluate)
			if err != nil {
				t.Fatal(err)
			}
			_, out, changed := applyPass(t, "FuseAttentionRounded", FuseAttentionRounded, c)
			if changed != (tt.fused > 0) {
				t.Fatalf("changed = %v, want %v", changed, tt.fused > 0)
			}
			if got := countAttention(out); got != tt.fused {
				t.Errorf("%d Attention nodes, want %d", got, tt.fused)
			}
			if got := countOps(out, "Softmax"); got != tt.softmax {
				t.Errorf("%d Softmax nodes left, want %d", got, tt.softmax)
			}
			if !changed {
				return
			}
			if err := out.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := SameOutputShapes(g, out); err != nil {
				t.Fatal(err)
			}
			sameAtShapesTol(t, declared, out, append([]map[string][]int{tt.tuning}, tt.at...), FusionFormsTolerance)
		})
	}
}

// idsBinding binds the token input name to [b, s].
func idsBinding(name string, b, s int) map[string][]int { return map[string][]int{name: {b, s}} }

// idsMaskBinding binds input_ids and attention_mask to [b, s].
func idsMaskBinding(b, s int) map[string][]int {
	return map[string][]int{"input_ids": {b, s}, "attention_mask": {b, s}}
}

// imageBinding binds the image input name to [b, 3, side, side].
func imageBinding(name string, b, side int) map[string][]int {
	return map[string][]int{name: {b, 3, side, side}}
}
