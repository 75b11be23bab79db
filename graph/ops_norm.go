package graph

import "fmt"

// Normalisation operators.

// normOps are the rows of this file.
var normOps = []OpSchema{
	{Op: "Softmax", MinOpset: 9, NonNegative: true, Work: workPerOutput, Infer: inferSoftmax, Inputs: ins("input"), Outputs: ins("output"),
		History: History{First: 1, FlattenBefore: 13},
		Attrs:   []AttrSpec{intAttr("axis", -1)},
		Doc:     "output = exp(input) / sum(exp(input)) along one axis (opset-13 semantics: only that axis, not the flattened tail)."},
	{Op: "LayerNormalization", MinOpset: 17, Work: workPerOutput, Infer: inferLayerNorm, Inputs: []InputSpec{req("X"), req("Scale"), opt("B")}, Outputs: []InputSpec{req("Y"), opt("Mean"), opt("InvStdDev")},
		Attrs: []AttrSpec{intAttr("axis", -1), floatAttr("epsilon", 1e-5), intAttr("stash_type", 1)},
		Doc:   "Y = (X - mean) / sqrt(var + epsilon) * Scale + B, statistics over axes [axis, rank); Mean and InvStdDev optionally returned."},
	{Op: "BatchNormalization", MinOpset: 9, Work: workPerOutput, Infer: inferBatchNorm, Inputs: ins("X", "scale", "B", "input_mean", "input_var"), Outputs: []InputSpec{
		{Name: "Y"}, {Name: "running_mean", Optional: true}, {Name: "running_var", Optional: true},
		{Name: "saved_mean", Optional: true}, {Name: "saved_var", Optional: true},
	},
		History: History{First: 1, AttrSince: map[string]int64{"training_mode": 14}, OutputSince: map[int]int64{1: 14, 2: 14, 3: 14, 4: 14},
			Obsolete: map[string]int64{"spatial": 1}, ConsumedBefore: 6, ConsumedRequired: true, TestModeBefore: 7},
		Attrs: []AttrSpec{floatAttr("epsilon", 1e-5), floatAttr("momentum", 0.9), intAttr("training_mode", 0)},
		Doc:   "Inference batch norm: Y = (X - input_mean) / sqrt(input_var + epsilon) * scale + B per channel (axis 1); extra training outputs of older opsets are tolerated."},
}

func inferSoftmax(n *Node) error {
	x, _, err := axisInput(n, isFloatType, "a floating-point type")
	if err != nil {
		return err
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}

func inferLayerNorm(n *Node) error {
	x, axis, err := axisInput(n, isFloatType, "a floating-point type")
	if err != nil {
		return err
	}
	for i := 1; i <= 2; i++ {
		if err := checkSameType(n, 0, i); err != nil {
			return err
		}
		if p := n.Input(i); p != nil && !unidirectional(x.Shape[axis:], p.Shape) {
			return fmt.Errorf("input %d %q (%s) has shape %v, not broadcastable to normalized shape %v", i, p.Name, inputName(n, i), p.Shape, x.Shape[axis:])
		}
	}
	stash := DType(n.AttrInt("stash_type"))
	if !stash.IsFloat() {
		return fmt.Errorf("stash_type %d is not a floating-point dtype", n.AttrInt("stash_type"))
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	if len(n.Outputs) > 1 {
		st := make(Shape, len(x.Shape))
		copy(st, x.Shape[:axis])
		for i := axis; i < len(st); i++ {
			st[i] = Dim{Value: 1}
		}
		setOut(n, 1, stash, st)
		setOut(n, 2, stash, st.Clone())
	}
	return nil
}

// floatInput returns input 0 of n after checking that it is floating point.
func floatInput(n *Node) (*Value, error) {
	if err := checkType(n, 0, isFloatType, "a floating-point type"); err != nil {
		return nil, err
	}
	return n.Inputs[0], nil
}

// channelInput checks that input 0 is a floating-point X [N,C,...] and
// returns it with its channel count C.
func channelInput(n *Node) (*Value, int64, error) {
	x, err := floatInput(n)
	if err != nil {
		return nil, 0, err
	}
	if len(x.Shape) < 2 {
		return nil, 0, fmt.Errorf("input X has shape %v, want rank >= 2 [N,C,...]", x.Shape)
	}
	return x, x.Shape[1].Value, nil
}

func inferBatchNorm(n *Node) error {
	x, c, err := channelInput(n)
	if err != nil {
		return err
	}
	for i := 1; i <= 4; i++ {
		p := n.Inputs[i]
		if !p.DType.IsFloat() {
			return fmt.Errorf("input %d %q (%s) has dtype %v, want a floating-point type", i, p.Name, inputName(n, i), p.DType)
		}
		if len(p.Shape) != 1 || p.Shape[0].Value != c {
			return fmt.Errorf("input %d %q (%s) has shape %v, want [%d]", i, p.Name, inputName(n, i), p.Shape, c)
		}
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	for i := 1; i < len(n.Outputs); i++ {
		setOut(n, i, n.Inputs[3].DType, Shape{{Value: c}})
	}
	return nil
}
