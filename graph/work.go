package graph

// The work of a node: the one FLOP count that `xrl inspect`, the roofline
// latency model and the profile-based cost model read. Each row of the
// op-schema table states its op's count in its Work field; ops that only
// move data (Movement) are free.

// Work is the computation one node performs.
type Work struct {
	// FLOPs counts the node's floating-point operations, as its row's
	// WorkFunc states them. It is 0 for Movement ops, opaque nodes, nodes
	// outside the table and nodes whose first output has no static shape.
	FLOPs int64
	// Dense marks FLOPs that are multiply-accumulates of a contraction
	// (Conv, ConvTranspose, MatMul, Gemm, and com.microsoft Attention,
	// MultiHeadAttention and FusedMatMul): such a
	// node is bound by arithmetic, and a cost model prices it by FLOPs
	// rather than by Elements.
	Dense bool
	// Elements counts the elements the node reads from its non-constant
	// inputs and writes to its outputs; a value whose shape is not static
	// counts as one element.
	Elements float64
}

// WorkFunc returns the FLOPs of node n, whose first output has a static
// shape of out elements, and whether they are the multiply-accumulates of
// a contraction (Work.Dense). A shape it needs that is not static gives 0.
type WorkFunc func(n *Node, out int64) (flops int64, dense bool)

// NodeWork returns the work of n.
func NodeWork(n *Node) Work {
	w := Work{Elements: elementsMoved(n)}
	if IsRecurrent(n) {
		// RNN, GRU and LSTM stay opaque (outside the table) but have a
		// known contraction count.
		if d, err := RecurrentShape(n); err == nil {
			w.FLOPs, w.Dense = d.FLOPs(), true
		}
		return w
	}
	s := n.Schema()
	if s == nil || s.Work == nil {
		return w
	}
	if out, _, ok := staticElems(n.Output(0)); ok {
		w.FLOPs, w.Dense = s.Work(n, out)
	}
	return w
}

// FLOPs returns the floating-point operations of one inference of g, the
// sum of NodeWork(n).FLOPs over its nodes (bodies of control-flow nodes
// are not counted). Per node:
//
//   - Conv, ConvTranspose, MatMul, Gemm, and com.microsoft Attention (its
//     Q/K/V projection and both per-head products), MultiHeadAttention
//     (both per-head products) and FusedMatMul: 2 per multiply-accumulate
//     (bias additions, scaling and the softmax are not counted);
//   - MaxPool, AveragePool: one per window element per output element;
//     GlobalAveragePool, GlobalMaxPool, ReduceMean, ReduceSum, ReduceMax
//     and ReduceMin: one per input element;
//   - Movement ops (Reshape, Transpose, Concat, Split, Slice, Gather,
//     Flatten, Squeeze, Unsqueeze, Expand, Pad, Identity, Dropout, Cast,
//     Shape, Constant, Tile): zero;
//   - every other operator (elementwise arithmetic and activations,
//     BatchNormalization, LayerNormalization, Softmax, Clip, the other
//     reductions ...): one per element of its first output.
//
// Nodes whose shapes are not static, and opaque nodes, count zero.
func FLOPs(g *Graph) int64 {
	var total int64
	for _, n := range g.Nodes {
		total += NodeWork(n).FLOPs
	}
	return total
}

// staticElems returns the element count and dims of v and whether v has a
// known static shape.
func staticElems(v *Value) (int64, []int, bool) {
	if v == nil || !v.ShapeKnown || !v.Shape.Static() {
		return 0, nil, false
	}
	s := v.Shape.Ints()
	return int64(NumElements(s)), s, true
}

// elementsMoved counts the elements n writes and reads from non-constant
// inputs, one for each value whose shape is not static.
func elementsMoved(n *Node) float64 {
	elems := func(v *Value) float64 {
		if !v.Shape.Static() {
			return 1
		}
		return float64(NumElements(v.Shape.Ints()))
	}
	var total float64
	for _, o := range n.Outputs {
		if o != nil {
			total += elems(o)
		}
	}
	for _, in := range n.Inputs {
		if in != nil && in.Const == nil {
			total += elems(in)
		}
	}
	return total
}

// The work functions of the table's rows.

// workPerOutput is one FLOP per element of the first output.
func workPerOutput(_ *Node, out int64) (int64, bool) { return out, false }

// workPerInput is one FLOP per element of the first input (reductions).
func workPerInput(n *Node, _ int64) (int64, bool) {
	in, _, ok := staticElems(n.Input(0))
	if !ok {
		return 0, false
	}
	return in, false
}

// workWindow is one FLOP per window element per output element (pooling).
func workWindow(n *Node, out int64) (int64, bool) {
	k := int64(1)
	for _, d := range n.AttrInts("kernel_shape") {
		k *= d
	}
	return out * k, false
}

// workConv is 2 per multiply-accumulate of a convolution: every output
// element reads a kernel of W's elements per output channel.
func workConv(n *Node, out int64) (int64, bool) { return convWork(n.Input(1), out) }

// workQLinearConv is workConv of QLinearConv, whose weights are input 3.
func workQLinearConv(n *Node, out int64) (int64, bool) { return convWork(n.Input(3), out) }

// convWork is 2 per multiply-accumulate of a convolution with weights wt
// and out output elements.
func convWork(wt *Value, out int64) (int64, bool) {
	_, w, ok := staticElems(wt)
	if !ok || len(w) < 2 {
		return 0, false
	}
	return 2 * out * int64(NumElements(w[1:])), true
}

// workConvTranspose is 2 per multiply-accumulate of a transposed
// convolution: every input element meets a kernel of W's elements per
// input channel.
func workConvTranspose(n *Node, _ int64) (int64, bool) {
	in, _, okIn := staticElems(n.Input(0))
	_, w, okW := staticElems(n.Input(1))
	if !okIn || !okW || len(w) < 2 {
		return 0, false
	}
	return 2 * in * int64(NumElements(w[1:])), true
}

// workMatMul is 2 per multiply-accumulate of a matrix product: every
// output element sums A's last dimension.
func workMatMul(n *Node, out int64) (int64, bool) {
	_, a, ok := staticElems(n.Input(0))
	if !ok || len(a) == 0 {
		return 0, false
	}
	return 2 * out * int64(a[len(a)-1]), true
}

// workGemm is 2 per multiply-accumulate of A' B'.
func workGemm(n *Node, out int64) (int64, bool) {
	_, a, ok := staticElems(n.Input(0))
	if !ok || len(a) != 2 {
		return 0, false
	}
	k := a[1]
	if n.AttrInt("transA") != 0 {
		k = a[0]
	}
	return 2 * out * int64(k), true
}

// workAttention counts the Q/K/V projection and both per-head products
// (AttentionDims.FLOPs), or one per output element when the node is not
// in the supported form.
func workAttention(n *Node, out int64) (int64, bool) {
	d, err := AttentionShape(n)
	if err != nil {
		return out, false
	}
	return d.FLOPs(), true
}
