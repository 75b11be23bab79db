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

// opWork returns the class and amount of work of node n: 2 x multiply-adds
// for Conv, ConvTranspose, MatMul, Gemm, com.microsoft Attention and the
// recurrent RNN, GRU and LSTM, otherwise the number of
// elements of its non-constant inputs and its outputs. Unknown shapes count
// as one element.
func opWork(n *graph.Node) (class string, work float64) {
	elems := func(v *graph.Value) float64 {
		if v == nil || !v.Shape.Static() {
			return 1
		}
		return float64(graph.NumElements(v.Shape.Ints()))
	}
	dims := func(v *graph.Value) []int {
		if v == nil || !v.Shape.Static() {
			return nil
		}
		return v.Shape.Ints()
	}
	var out float64
	for _, o := range n.Outputs {
		if o != nil {
			out += elems(o)
		}
	}
	in0, w := dims(n.Input(0)), dims(n.Input(1))
	switch n.Op {
	case "Conv":
		if len(w) >= 2 {
			return workFLOPs, 2 * out * float64(graph.NumElements(w[1:]))
		}
	case "ConvTranspose":
		if len(w) >= 2 {
			return workFLOPs, 2 * elems(n.Input(0)) * float64(graph.NumElements(w[1:]))
		}
	case "MatMul":
		if len(in0) > 0 {
			return workFLOPs, 2 * out * float64(in0[len(in0)-1])
		}
	case "Attention":
		if d, err := graph.AttentionShape(n); err == nil && n.Domain == graph.MicrosoftDomain {
			return workFLOPs, float64(d.FLOPs())
		}
	case "RNN", "GRU", "LSTM":
		if d, err := graph.RecurrentShape(n); err == nil && graph.IsRecurrent(n) {
			return workFLOPs, float64(d.FLOPs())
		}
	case "Gemm":
		if len(in0) == 2 {
			k := in0[1]
			if n.AttrInt("transA") != 0 {
				k = in0[0]
			}
			return workFLOPs, 2 * out * float64(k)
		}
	}
	work = out
	for _, in := range n.Inputs {
		if in != nil && in.Const == nil {
			work += elems(in)
		}
	}
	return workBytes, work
}
