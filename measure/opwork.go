package measure

import (
	"github.com/xrl-dev/xrl/graph"
)

// Work classes of the per-op model: arithmetic-bound ops are costed by
// their multiply-adds, the others by the elements they read and write.
const (
	workFLOPs = "flops"
	workBytes = "elements"
)

// opWork returns the class and amount of work of node n (graph.NodeWork):
// the FLOPs of a contraction (Conv, ConvTranspose, MatMul, Gemm and
// com.microsoft Attention, MultiHeadAttention and FusedMatMul,
// graph.Work.Dense), otherwise the number of
// elements of its non-constant inputs and its outputs. Unknown shapes
// count as one element.
func opWork(n *graph.Node) (class string, work float64) {
	w := graph.NodeWork(n)
	if w.Dense {
		return workFLOPs, float64(w.FLOPs)
	}
	return workBytes, w.Elements
}
