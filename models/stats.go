package models

import "github.com/xrl-dev/xrl/graph"

// Params returns the number of parameters of g: the elements of every
// floating-point constant of rank >= 1, initializer or Constant node (weights, biases, normalisation
// parameters and statistics, embeddings, masks). Rank-0 constants are
// operator literals (GELU's 0.5, ReLU6's bounds, attention's sqrt(d)) and
// are not counted; integer constants (shapes, indices) neither.
func Params(g *graph.Graph) int64 {
	var total int64
	count := func(t *graph.Tensor) {
		if t != nil && t.DType.IsFloat() && len(t.Shape) > 0 {
			total += int64(t.Len())
		}
	}
	for _, v := range g.Constants() {
		count(v.Const)
	}
	for _, n := range g.Nodes {
		if n.Op == "Constant" && !n.IsOpaque() {
			// Weights stored in Constant nodes (PaddlePaddle exports).
			if t, err := graph.ConstantValue(n); err == nil {
				count(t)
			}
		}
	}
	return total
}

// FLOPs estimates the floating-point operations of one inference of g:
//
//   - Conv, ConvTranspose, MatMul, Gemm, and com.microsoft Attention (its
//     Q/K/V projection and both per-head products): 2 per
//     multiply-accumulate (bias additions and the softmax are not counted);
//   - MaxPool, AveragePool: one per window element per output element;
//     GlobalAveragePool and reductions: one per input element;
//   - data movement (the op table's Movement ops: Reshape, Transpose,
//     Concat, Split, Slice, Gather, Flatten, Squeeze, Unsqueeze, Expand,
//     Pad, Identity, Dropout, Cast, Shape, Constant, Tile): zero;
//   - every other operator (elementwise arithmetic and activations,
//     BatchNormalization, LayerNormalization, Softmax, Clip, ...): one per
//     element of its first output.
//
// Nodes whose inputs or outputs lack a static shape, and opaque nodes,
// count zero.
func FLOPs(g *graph.Graph) int64 {
	var total int64
	movement := movementOf()
	for _, nd := range g.Nodes {
		total += nodeFLOPs(nd, movement)
	}
	return total
}

// movementOf returns a function reporting whether a node's op is a data
// movement op (the op table's Movement), remembering the ops it was asked
// about (a graph has few): looking an op up in the table builds a key
// string.
func movementOf() func(*graph.Node) bool {
	type known struct {
		domain, op string
		movement   bool
	}
	var seen []known
	return func(nd *graph.Node) bool {
		for _, k := range seen {
			if k.op == nd.Op && k.domain == nd.Domain {
				return k.movement
			}
		}
		s := nd.Schema()
		m := s != nil && s.Movement
		seen = append(seen, known{nd.Domain, nd.Op, m})
		return m
	}
}

// staticLen returns the element count of v and its shape, and whether
// v's shape is static.
func staticLen(v *graph.Value) (int64, graph.Shape, bool) {
	if v == nil || !v.ShapeKnown || !v.Shape.Static() {
		return 0, nil, false
	}
	return elements(v.Shape), v.Shape, true
}

// elements returns the product of the static dimensions s.
func elements(s graph.Shape) int64 {
	n := 1
	for _, d := range s {
		n *= int(d.Value)
	}
	return int64(n)
}

func nodeFLOPs(nd *graph.Node, movement func(*graph.Node) bool) int64 {
	if nd.IsOpaque() || len(nd.Outputs) == 0 || movement(nd) {
		return 0
	}
	out, _, ok := staticLen(nd.Output(0))
	if !ok {
		return 0
	}
	in0, inShape, okIn := staticLen(nd.Input(0))
	_, w, okW := staticLen(nd.Input(1))
	switch nd.Op {
	case "Conv":
		if !okW || len(w) < 2 {
			return 0
		}
		return 2 * out * elements(w[1:])
	case "ConvTranspose":
		if !okW || !okIn || len(w) < 2 {
			return 0
		}
		return 2 * in0 * elements(w[1:])
	case "MatMul":
		if !okIn || len(inShape) == 0 {
			return 0
		}
		return 2 * out * inShape[len(inShape)-1].Value
	case "Gemm":
		if !okIn || len(inShape) != 2 {
			return 0
		}
		k := inShape[1].Value
		if nd.AttrInt("transA") != 0 {
			k = inShape[0].Value
		}
		return 2 * out * k
	case "MaxPool", "AveragePool":
		k := int64(1)
		for _, d := range nd.AttrInts("kernel_shape") {
			k *= d
		}
		return out * k
	case "Attention":
		if d, err := graph.AttentionShape(nd); err == nil && nd.Domain == graph.MicrosoftDomain {
			return d.FLOPs()
		}
		return out
	case "GlobalAveragePool", "GlobalMaxPool", "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin":
		if !okIn {
			return 0
		}
		return in0
	}
	return out
}
