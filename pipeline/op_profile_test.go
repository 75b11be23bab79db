package pipeline

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/measure"
)

// TestOpProfileReport compares two hand-made profiles: rows by the larger
// time first, a dash where an op did not run, ops under half a percent in
// both models on one line, and the GEMM-like share.
func TestOpProfileReport(t *testing.T) {
	us := time.Microsecond
	node := func(op string, d time.Duration) measure.NodeTime { return measure.NodeTime{Name: op, Op: op, Time: d} }
	before := &measure.Profile{Nodes: []measure.NodeTime{
		node("MatMul", 500*us), node("MatMul", 100*us), node("Softmax", 200*us), node("Add", 196*us), node("Shape", 4*us),
	}}
	after := &measure.Profile{Nodes: []measure.NodeTime{
		node("Attention", 300*us), node("MatMul", 400*us), node("Add", 98*us), node("Shape", 2*us),
	}}
	r := newOpProfileReport(before, after)
	r.Backend, r.Runs = "ort", 24
	var ops []string
	for _, o := range r.Ops {
		ops = append(ops, o.Op)
	}
	if want := []string{"MatMul", "Attention", "Softmax", "Add", "Shape"}; !slices.Equal(ops, want) {
		t.Errorf("rows %v, want %v", ops, want)
	}
	if want := (ProfileTotals{Time: 1000 * us, GEMMShare: 0.6}); r.Before != want {
		t.Errorf("before %+v, want %+v", r.Before, want)
	}
	if want := (ProfileTotals{Time: 800 * us, GEMMShare: 0.875}); r.After != want {
		t.Errorf("after %+v, want %+v", r.After, want)
	}
	if want := (OpShare{Time: 300 * us, Share: 0.375, Nodes: 1}); r.Ops[1].After != want || r.Ops[1].Before != (OpShare{}) {
		t.Errorf("Attention row %+v", r.Ops[1])
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := `time per op type in ort (its profiler, 24 runs; shares of the summed kernel times per run):
  op type          before %   after %  before ms   after ms
  MatMul              60.0%     50.0%      0.600      0.400
  Attention               -     37.5%          -      0.300
  Softmax             20.0%         -      0.200          -
  Add                 19.6%     12.2%      0.196      0.098
  1 other op type      0.4%      0.2%      0.004      0.002
  total                100%      100%      1.000      0.800
GEMM-like (MatMul, Gemm, FusedMatMul, Attention, Conv ...): 60.0% -> 87.5% of kernel time; everything else 40.0% -> 12.5%
`
	if buf.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", buf.String(), want)
	}
}

// TestORTRunsTheFusedOps writes corpus exports with the measured passes
// applied (as xrl optimize tries them) and checks, from ONNX Runtime's
// profile of each file, that it runs the fused op the passes lead it to,
// an op it does not form from the original file, and no longer runs an op
// the fusion takes in.
func TestORTRunsTheFusedOps(t *testing.T) {
	be, err := measure.NewBackend("ort", measure.BackendOptions{Threads: 1})
	if err != nil {
		t.Fatalf("ONNX Runtime (run scripts/setup): %v", err)
	}
	for _, tc := range []struct {
		model  string
		shapes map[string][]int
		// fused is the op ONNX Runtime runs after the passes only; gone
		// an op of the original it no longer runs.
		fused, gone string
	}{
		// fuse-attention writes the com.microsoft Attention itself: no
		// Softmax is left.
		{"encoder_classifier", map[string][]int{"ids": {1, 128}}, "Attention", "Softmax"},
		{"vit_torchvision", map[string][]int{"image": {2, 3, 64, 64}}, "Attention", "Softmax"},
		// Batch-first exports: canonicalisation and fuse-attention write
		// the Attention with the separate q/k/v projections packed
		// (vit_hf, bert_hf), the computed additive mask (bert_hf) or the
		// boolean mask's Where (encoder_packed) as its attention_bias.
		{"vit_hf", map[string][]int{"pixel_values": {1, 3, 64, 64}}, "Attention", "Softmax"},
		{"bert_hf", map[string][]int{"input_ids": {2, 32}, "attention_mask": {2, 32}}, "Attention", "Softmax"},
		{"encoder_packed", map[string][]int{"input_ids": {1, 128}, "attention_mask": {1, 128}}, "Attention", "Softmax"},
		// A causal mask sliced from a constant to min(512, seq) and a
		// scale 1/sqrt(32) rounded to float32 (gpt2_hf); the rounded
		// scale of a sequence-first export (vit_tiny). Causal blocks
		// become GroupQueryAttention, which ONNX Runtime runs faster.
		{"gpt2_hf", map[string][]int{"input_ids": {1, 64}}, "GroupQueryAttention", "Softmax"},
		{"vit_tiny", map[string][]int{"image": {1, 3, 32, 32}}, "Attention", "Softmax"},
		// Sequence-first exports with a computed causal mask.
		{"decoder_torch", map[string][]int{"input_ids": {1, 64}}, "GroupQueryAttention", "Softmax"},
		// A causal mask as Where over Trilu, filled by a ConstantOfShape.
		{"gpt_decoder", map[string][]int{"ids": {1, 64}}, "GroupQueryAttention", "Softmax"},
		// timm's packing: [B, L, 3, N, h], Transpose[2,0,3,1,4], one slot each.
		{"deit_timm", map[string][]int{"pixels": {1, 3, 64, 64}}, "Attention", "Softmax"},
		// torchvision's Swin: windows of 16 positions, the relative
		// position bias per head and the shifted windows' mask as
		// attention_bias, the Gather of each of q, k and v.
		{"swin_tiny", map[string][]int{"image": {1, 3, 32, 32}}, "Attention", "Softmax"},
		// Grouped-query heads with rotary embeddings and a causal mask
		// computed from the length (LLaMA style): GroupQueryAttention,
		// with the rotation and the repeated key/value heads taken in.
		{"llama_decoder", map[string][]int{"input_ids": {1, 64}}, "GroupQueryAttention", "Softmax"},
		{"llama_decoder", map[string][]int{"input_ids": {2, 32}}, "GroupQueryAttention", "Neg"},
		// ort-fusion-forms writes the tanh GELU in the form ONNX
		// Runtime's own fusion matches: FastGelu, no Tanh left.
		{"encoder_packed", map[string][]int{"input_ids": {1, 128}, "attention_mask": {1, 128}}, "FastGelu", "Tanh"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			path := filepath.Join("../testdata/corpus", tc.model+".onnx")
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("%v (run scripts/gen-corpus)", err)
			}
			written := writeWithPasses(t, path, tc.shapes)
			before, err := RunOpsOfFile(be, path, tc.shapes)
			if err != nil {
				t.Fatal(err)
			}
			after, err := RunOpsOfFile(be, written, tc.shapes)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("ONNX Runtime runs %v for the original, %v after the passes", before, after)
			if slices.Contains(before, tc.fused) || !slices.Contains(after, tc.fused) {
				t.Errorf("want %s run after the passes only", tc.fused)
			}
			if !slices.Contains(before, tc.gone) || slices.Contains(after, tc.gone) {
				t.Errorf("want %s run in the original only", tc.gone)
			}
		})
	}
}

// writeWithPasses applies the default measured passes to the folded model
// at path, as xrl optimize tries them, and writes the result with the
// original's interface into a temporary file, whose path it returns.
func writeWithPasses(t *testing.T, path string, shapes map[string][]int) string {
	t.Helper()
	s, err := PrepareDynamic(path, shapes, RuleChoice{})
	if err != nil {
		t.Fatal(err)
	}
	// The fusion and layout passes: prune-dead-rows, first of the
	// default measured passes, would leave the last attention of a model
	// with a token-0 head (pruned to that one query row) unfused.
	passes, err := PassesNamed(slices.DeleteFunc(slices.Clone(DefaultMeasuredPasses), func(n string) bool { return n == "prune-dead-rows" }))
	if err != nil {
		t.Fatal(err)
	}
	g, applied, steps := applyPasses(io.Discard, passes, s.Model.Graph)
	if len(applied) == 0 {
		t.Fatal("no measured pass changed the model")
	}
	if err := checkSteps(steps, passCheck(1)); err != nil {
		t.Fatal(err)
	}
	m := s.Model.Clone()
	m.Graph = g
	out := filepath.Join(t.TempDir(), "passes.onnx")
	if err := s.WriteModel(out, path, m); err != nil {
		t.Fatal(err)
	}
	return out
}
