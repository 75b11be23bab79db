package graph

import "fmt"

// More normalisation operators: LogSoftmax, Hardmax, InstanceNormalization,
// GroupNormalization, LRN, MeanVarianceNormalization and GlobalMaxPool.

// normMoreOps are the rows of this file.
var normMoreOps = []OpSchema{
	axisRow("LogSoftmax", "output = input - log(sum(exp(input))) along one axis (opset-13 semantics: only that axis)."),
	axisRow("Hardmax", "output = 1 at the first maximum along one axis, 0 elsewhere (opset-13 semantics: only that axis)."),
	{Op: "InstanceNormalization", MinOpset: 9, Work: workPerOutput, Infer: inferChannelNorm(false), Inputs: ins("input", "scale", "B"), Outputs: ins("output"),
		History: opset1Consumed,
		Attrs:   []AttrSpec{floatAttr("epsilon", 1e-5)},
		Doc:     "output = (input - mean) / sqrt(var + epsilon) * scale[c] + B[c], statistics per sample and channel over the spatial axes."},
	{Op: "GroupNormalization", MinOpset: 21, Work: workPerOutput, Infer: inferChannelNorm(true), Inputs: ins("X", "scale", "bias"), Outputs: ins("Y"),
		History: History{AttrSince: map[string]int64{"stash_type": 21}},
		Attrs:   []AttrSpec{floatAttr("epsilon", 1e-5), {Name: "num_groups", Kind: AttrInt, Required: true}, intAttr("stash_type", 1)},
		Doc:     "Y = (X - mean) / sqrt(var + epsilon) * scale[c] + bias[c], statistics per sample over each of num_groups channel groups and the spatial axes."},
	{Op: "LRN", MinOpset: 9, History: opset1, Work: workPerOutput, Infer: inferLRN, Inputs: ins("X"), Outputs: ins("Y"),
		Attrs: []AttrSpec{floatAttr("alpha", 1e-4), floatAttr("beta", 0.75), floatAttr("bias", 1), {Name: "size", Kind: AttrInt, Required: true}},
		Doc:   "y = x / (bias + alpha/size * sum of x² over size neighbouring channels)^beta."},
	{Op: "MeanVarianceNormalization", MinOpset: 13, Work: workPerOutput, Infer: inferMVN, Inputs: ins("X"), Outputs: ins("Y"),
		Attrs: []AttrSpec{{Name: "axes", Kind: AttrInts, Default: defInts(0, 2, 3)}},
		Doc:   "Y = (X - mean) / sqrt(var), statistics over axes (default N, H, W); no epsilon beyond 1e-9."},
	{Op: "GlobalMaxPool", MinOpset: 9, History: opset1, Work: workPerInput, Infer: inferGlobalPool, Inputs: inX, Outputs: outY,
		Doc: "Maximum over all spatial axes of X [N,C,D...], giving [N,C,1...]."},
}

// axisRow is the row of a Softmax-like op along one axis (opset 1; until
// opset 13 axis flattened the input to 2-D).
func axisRow(op, doc string) OpSchema {
	return OpSchema{
		Op: op, Doc: doc,
		History:  History{First: 1, FlattenBefore: 13},
		Inputs:   []InputSpec{{Name: "input"}},
		Outputs:  []InputSpec{{Name: "output"}},
		Attrs:    []AttrSpec{intAttr("axis", -1)},
		MinOpset: 9,
		Work:     workPerOutput,
		Infer:    inferSoftmax,
	}
}

// inferChannelNorm checks X [N,C,...] and per-channel scale and bias.
func inferChannelNorm(groups bool) InferFunc {
	return func(n *Node) error {
		x, c, err := channelInput(n)
		if err != nil {
			return err
		}
		if groups {
			g := n.AttrInt("num_groups")
			if g < 1 || c%g != 0 {
				return fmt.Errorf("num_groups %d does not divide %d channels", g, c)
			}
			if st := DType(n.AttrInt("stash_type")); !st.IsFloat() {
				return fmt.Errorf("stash_type %d is not a floating-point dtype", n.AttrInt("stash_type"))
			}
		}
		for i := 1; i <= 2; i++ {
			if err := checkSameType(n, 0, i); err != nil {
				return err
			}
			if p := n.Inputs[i]; len(p.Shape) != 1 || p.Shape[0].Value != c {
				return fmt.Errorf("input %d %q (%s) has shape %v, want [%d]", i, p.Name, inputName(n, i), p.Shape, c)
			}
		}
		setOut(n, 0, x.DType, x.Shape.Clone())
		return nil
	}
}

func inferLRN(n *Node) error {
	x, err := floatInput(n)
	if err != nil {
		return err
	}
	if len(x.Shape) < 3 || n.AttrInt("size") < 1 {
		return fmt.Errorf("input %v and size %d: want rank >= 3 and size >= 1", x.Shape, n.AttrInt("size"))
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}

func inferMVN(n *Node) error {
	x, err := floatInput(n)
	if err != nil {
		return err
	}
	for _, a := range n.AttrInts("axes") {
		if _, err := NormAxis(a, len(x.Shape)); err != nil {
			return err
		}
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}
