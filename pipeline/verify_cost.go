package pipeline

import (
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// LargeModelFLOPs is the work, at the tuning shape, above which the Go
// executor checks a written model only at the tuning shape and at the
// other bindings whose sizes are all odd (batch 3 of VerifyBindings'
// 2, 3 and 8), ONNX Runtime checking every binding. Both runtimes then
// still see batch 1 and an odd size, and ONNX Runtime three sizes or
// more; the Go executor's runs at batch 2 and 8 of ViT-B/16 (35 GFLOP an
// image) took most of a verification's minute. Models under it (the
// corpus transformers at 1x128, CNNs of PaddleOCR's size) are checked on
// both runtimes at every binding.
const LargeModelFLOPs = 10e9

// runtimesAt returns the runtimes VerifyShapes checks binding b on: those
// of verifyRuntimes, without the Go executor when the model is large
// (LargeModelFLOPs), ONNX Runtime is among them and b has an even size.
func (s *Start) runtimesAt(b ShapeBinding) []string {
	rts := verifyRuntimes()
	if !slices.Contains(rts, "ort") || allOdd(b) || graph.FLOPs(s.Model.Graph) < LargeModelFLOPs {
		return rts
	}
	return slices.DeleteFunc(rts, func(r string) bool { return r == "go" })
}

// allOdd reports whether every size b binds is odd.
func allOdd(b ShapeBinding) bool {
	for _, v := range b {
		if v%2 == 0 {
			return false
		}
	}
	return true
}
