package pipeline

import (
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// runtimesAt returns the runtimes VerifyShapes checks binding b on, orig
// being the original bound there: those of verifyRuntimes, without the Go
// executor when ONNX Runtime is among them, the sizes b changes from the
// tuning binding are not all odd, and the model does more work at b than
// at the tuning shape. Both runtimes then see the tuning shape, every
// smaller binding and the odd sizes (batch 3, sequence 7), and ONNX Runtime
// every binding: the Go executor's runs at batch 8 took most of the
// corpus encoder's verification (2.5 of 3 s) and of ViT-B/16's minute.
func (s *Start) runtimesAt(b ShapeBinding, orig *graph.Model) []string {
	rts := verifyRuntimes()
	if !slices.Contains(rts, "ort") || s.changedOdd(b) || graph.FLOPs(orig.Graph) <= graph.FLOPs(s.Orig.Graph) {
		return rts
	}
	return slices.DeleteFunc(rts, func(r string) bool { return r == "go" })
}

// changedOdd reports whether every size b gives a symbol other than its
// tuning size is odd.
func (s *Start) changedOdd(b ShapeBinding) bool {
	for k, v := range b {
		if v != s.Interface.Symbols[k] && v%2 == 0 {
			return false
		}
	}
	return true
}
