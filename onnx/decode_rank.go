package onnx

import "github.com/xrl-dev/xrl/graph"

// probeSize is the size the rank probe gives a symbolic dimension that is
// not an input's first: large enough to survive a few poolings.
const probeSize = 32

// probeRanks learns the ranks of the values of g named in names: the
// inputs of old-opset Softmax, LogSoftmax and Hardmax nodes left opaque
// because their rank was unknown when they were decoded (see softmaxOld).
// It infers a copy of g with its inputs bound at small sizes (1 for a
// leading symbolic dimension, probeSize for others) node by node; such an
// opaque node passes its input's type on. Inference stops at the first
// node it cannot infer; the ranks found until then are returned, by name.
func probeRanks(g *graph.Graph, names []string) map[string]int {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	c := g.Clone()
	for _, v := range c.Inputs {
		switch {
		case v.Const != nil:
			v.SetStatic(v.Const.DType, v.Const.Shape)
		case !v.ShapeKnown:
			return nil
		default:
			dims := make([]int, len(v.Shape))
			for i, d := range v.Shape {
				if dims[i] = int(d.Value); !d.Known() {
					dims[i] = probeDim(i)
				}
			}
			v.SetStatic(v.DType, dims)
		}
	}
	for _, v := range c.Initializers {
		if v.Const != nil {
			v.SetStatic(v.Const.DType, v.Const.Shape)
		}
	}
	nodes, err := graph.TopoOrder(c.Nodes)
	if err != nil {
		return nil
	}
	ranks := map[string]int{}
	for _, n := range nodes {
		x := n.Input(0)
		if n.IsOpaque() && flattensAxis(n.Op) && x != nil && x.ShapeKnown && len(n.Outputs) == 1 {
			if want[x.Name] {
				ranks[x.Name] = len(x.Shape)
			}
			n.Outputs[0].SetStatic(x.DType, x.Shape.Ints())
			continue
		}
		if graph.InferNode(n) != nil {
			break
		}
	}
	return ranks
}

// probeDim is the size the rank probe binds an unknown dimension of axis
// i to: 1 for the leading (batch) axis, probeSize for the others.
func probeDim(i int) int {
	if i == 0 {
		return 1
	}
	return probeSize
}

// flattensAxis reports whether op is one whose axis flattened the input in
// older opsets (the Softmax family, graph.History.FlattenBefore).
func flattensAxis(op string) bool {
	s := graph.Lookup("", op)
	return s != nil && s.History.FlattenBefore > 0
}
