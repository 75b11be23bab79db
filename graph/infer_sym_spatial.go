package graph

import "math"

// symResize labels a Resize's output. With constant scales (and no axes
// attribute) an axis scaled by 1 keeps its dimension and one scaled by a
// whole number k becomes k times it; with sizes, each resized axis takes
// its size element's expression. Any other dimension of a symbolic input
// depends on the symbols in a way inference does not follow.
func symResize(n *Node) {
	x, o := n.Inputs[0], n.Output(0)
	if o == nil || !o.ShapeKnown || len(o.Shape) != len(x.Shape) {
		return
	}
	dims := make([]Dim, len(o.Shape))
	for i, d := range o.Shape {
		dims[i] = d
		if x.Shape[i].Param != "" {
			dims[i] = unknownDim(o, i, d.Value)
		}
	}
	scales, _, err := constFloats(n, 2)
	switch {
	case n.HasAttr("axes") && n.AttrInts("axes") != nil:
	case present(n, 3):
		if sizes, ok := elemsOf(n.Input(3)); ok && len(sizes) == len(dims) {
			copy(dims, sizes)
		}
	case err == nil && len(scales) == len(dims):
		for i, s := range scales {
			switch k := int64(s); {
			case s == 1:
				dims[i] = x.Shape[i]
			case s == math.Trunc(s) && k > 1:
				dims[i] = dimArith(x.Shape[i], Dim{Value: k}, o, i, mulInt, mulSym)
			}
		}
	}
	labelShape(o, dims)
}

// symWindow labels the output of a windowed op (Conv, ConvTranspose,
// MaxPool, AveragePool, LpPool): the batch keeps its dimension, and so
// does a spatial axis of stride 1 whose size the window keeps (its size
// then changes by a constant, so it is kept at every size); any other
// dimension of a symbolic axis depends on the symbols in a way inference
// does not follow.
func symWindow(n *Node) {
	x, o := n.Inputs[0], n.Output(0)
	if o == nil || !o.ShapeKnown || len(o.Shape) != len(x.Shape) {
		return
	}
	strides := n.AttrInts("strides")
	dims := make([]Dim, len(o.Shape))
	for i, d := range o.Shape {
		dims[i] = d
		in := x.Shape[i]
		if in.Param == "" {
			continue
		}
		stride := int64(1)
		if i >= 2 && i-2 < len(strides) {
			stride = strides[i-2]
		}
		if i == 0 || i >= 2 && stride == 1 && d.Value == in.Value {
			dims[i] = in
			continue
		}
		dims[i] = unknownDim(o, i, d.Value)
	}
	labelShape(o, dims)
}
