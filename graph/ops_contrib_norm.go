package graph

import "fmt"

// contribNormOps are ONNX Runtime's normalisation operators that fusions
// emit: layer normalisation fused with the residual add before it
// (Skip*), RMS normalisation (Simplified*) and BERT's embedding sum
// followed by layer normalisation. SimplifiedLayerNormalization is in the
// default domain, where ONNX Runtime registers it.
var contribNormOps = []OpSchema{
	{
		Op: "SkipLayerNormalization", Domain: MicrosoftDomain, MinOpset: 9, Work: workPerOutput, Infer: inferSkipNorm,
		Inputs:  []InputSpec{req("input"), req("skip"), req("gamma"), opt("beta"), opt("bias")},
		Outputs: []InputSpec{req("output"), opt("mean"), opt("inv_std_var"), opt("input_skip_bias_sum")},
		Attrs:   []AttrSpec{floatAttr("epsilon", 1e-12)},
		Doc: "s = input + skip + bias over the last axis; output = (s - mean) / sqrt(var + epsilon) * gamma + beta, statistics over the " +
			"last axis; input is [batch, seq, hidden] or [tokens, hidden], skip has its shape or (3-D input) [1, seq, hidden] or " +
			"[seq, hidden]; input_skip_bias_sum optionally returns s (mean and inv_std_var are not produced).",
	},
	{
		Op: "SkipSimplifiedLayerNormalization", Domain: MicrosoftDomain, MinOpset: 9, Work: workPerOutput, Infer: inferSkipNorm,
		Inputs:  []InputSpec{req("input"), req("skip"), req("gamma"), opt("bias")},
		Outputs: []InputSpec{req("output"), opt("mean"), opt("inv_std_var"), opt("input_skip_bias_sum")},
		Attrs:   []AttrSpec{floatAttr("epsilon", 1e-12)},
		Doc: "s = input + skip + bias over the last axis; output = s / sqrt(mean(s^2) + epsilon) * gamma (RMS normalisation over the " +
			"last axis), shapes as SkipLayerNormalization's; input_skip_bias_sum optionally returns s.",
	},
	{
		Op: "SimplifiedLayerNormalization", MinOpset: 9, Work: workPerOutput, Infer: inferSimplifiedNorm,
		Inputs: ins("X", "scale"), Outputs: []InputSpec{req("Y"), opt("inv_std_var")},
		Attrs: []AttrSpec{intAttr("axis", -1), floatAttr("epsilon", 1e-5), intAttr("stash_type", 1)},
		Doc: "ONNX Runtime's RMS normalisation: Y = X / sqrt(mean(X^2) + epsilon) * scale, the mean over axes [axis, rank); " +
			"scale has the normalised shape (inv_std_var is not produced).",
	},
	{
		Op: "EmbedLayerNormalization", Domain: MicrosoftDomain, MinOpset: 9, Work: workPerOutput, Infer: inferEmbedNorm,
		Inputs: []InputSpec{req("input_ids"), opt("segment_ids"), req("word_embedding"), req("position_embedding"),
			opt("segment_embedding"), req("gamma"), req("beta"), opt("mask"), opt("position_ids")},
		Outputs: []InputSpec{req("output"), opt("mask_index"), opt("embedding_sum")},
		Attrs:   []AttrSpec{floatAttr("epsilon", 1e-12), intAttr("mask_index_type", 1)},
		Doc: "BERT embeddings: e = word_embedding[input_ids] + position_embedding[position] + segment_embedding[segment_ids] for " +
			"int32 ids [batch, seq] (position is position_ids, [batch, seq] or [1, seq], else the token's index); " +
			"output = LayerNorm(e) * gamma + beta over the hidden axis; mask_index (int32 [batch]) counts each row's mask " +
			"elements equal to 1 (0 without mask); embedding_sum optionally returns e.",
	},
}

// SkipNormShape checks a SkipLayerNormalization or
// SkipSimplifiedLayerNormalization node against the supported form and
// returns its rows and hidden size.
func SkipNormShape(n *Node) (rows, hidden int, err error) {
	x, skip := n.Input(0), n.Input(1)
	if x == nil || skip == nil || n.Input(2) == nil {
		return 0, 0, fmt.Errorf("%s needs input, skip and gamma", n.Op)
	}
	xs, ss := x.Shape, skip.Shape
	if len(xs) != 2 && len(xs) != 3 {
		return 0, 0, fmt.Errorf("%s input must be 2-D or 3-D, have %v", n.Op, xs)
	}
	hidden = int(xs[len(xs)-1].Value)
	rows = int(numel(xs)) / max(hidden, 1)
	if !skipBroadcasts(xs, ss) {
		return 0, 0, fmt.Errorf("%s skip %v, want the input's shape %v or, for a 3-D input, [1, seq, hidden] or [seq, hidden]", n.Op, ss, xs)
	}
	params := []int{2, 3, 4}
	if n.Op == "SkipSimplifiedLayerNormalization" {
		params = []int{2, 3}
	}
	for _, i := range params {
		if p := n.Input(i); p != nil && (len(p.Shape) != 1 || int(p.Shape[0].Value) != hidden) {
			return 0, 0, fmt.Errorf("%s %s %v, want [%d]", n.Op, inputName(n, i), p.Shape, hidden)
		}
	}
	if n.Output(1) != nil || n.Output(2) != nil {
		return 0, 0, fmt.Errorf("%s outputs mean and inv_std_var are not produced by ONNX Runtime on CPU", n.Op)
	}
	return rows, hidden, nil
}

// skipBroadcasts reports whether a skip of shape ss is accepted beside an
// input of shape xs: the same shape, or for a 3-D input the last two
// dimensions with a leading 1 or none.
func skipBroadcasts(xs, ss Shape) bool {
	if sameSizes(xs, ss) {
		return true
	}
	if len(xs) != 3 || (len(ss) != 2 && (len(ss) != 3 || ss[0].Value != 1)) {
		return false
	}
	return ss[len(ss)-2].Value == xs[1].Value && ss[len(ss)-1].Value == xs[2].Value
}

func inferSkipNorm(n *Node) error {
	if err := checkFloatOperands(n, 1, 2, 3, 4); err != nil {
		return err
	}
	if _, _, err := SkipNormShape(n); err != nil {
		return err
	}
	x := n.Inputs[0]
	setOut(n, 0, x.DType, x.Shape.Clone())
	setOut(n, 3, x.DType, x.Shape.Clone())
	return nil
}

func inferSimplifiedNorm(n *Node) error {
	if err := checkFloatOperands(n, 1); err != nil {
		return err
	}
	x := n.Inputs[0]
	axis, err := NormAxis(n.AttrInt("axis"), len(x.Shape))
	if err != nil {
		return err
	}
	if s := n.Inputs[1].Shape; !sameSizes(s, x.Shape[axis:]) {
		return fmt.Errorf("SimplifiedLayerNormalization scale %v, want the normalised shape %v", s, x.Shape[axis:])
	}
	if n.Output(1) != nil {
		return fmt.Errorf("SimplifiedLayerNormalization output inv_std_var is not supported")
	}
	setOut(n, 0, x.DType, x.Shape.Clone())
	return nil
}

// EmbedNormShape checks an EmbedLayerNormalization node against the
// supported form and returns batch, sequence and hidden sizes.
func EmbedNormShape(n *Node) (batch, seq, hidden int, err error) {
	ids, word, pos := n.Input(0), n.Input(2), n.Input(3)
	if ids == nil || word == nil || pos == nil || n.Input(5) == nil || n.Input(6) == nil {
		return 0, 0, 0, fmt.Errorf("EmbedLayerNormalization needs input_ids, word_embedding, position_embedding, gamma and beta")
	}
	if len(ids.Shape) != 2 {
		return 0, 0, 0, fmt.Errorf("EmbedLayerNormalization input_ids must be 2-D [batch, seq], have %v", ids.Shape)
	}
	batch, seq = int(ids.Shape[0].Value), int(ids.Shape[1].Value)
	if len(word.Shape) != 2 {
		return 0, 0, 0, fmt.Errorf("EmbedLayerNormalization word_embedding must be 2-D, have %v", word.Shape)
	}
	hidden = int(word.Shape[1].Value)
	if (n.Input(1) == nil) != (n.Input(4) == nil) {
		return 0, 0, 0, fmt.Errorf("EmbedLayerNormalization segment_ids and segment_embedding must be both present or both absent")
	}
	for _, i := range []int{3, 4} {
		if t := n.Input(i); t != nil && (len(t.Shape) != 2 || int(t.Shape[1].Value) != hidden) {
			return 0, 0, 0, fmt.Errorf("EmbedLayerNormalization %s %v, want [rows, %d]", inputName(n, i), t.Shape, hidden)
		}
	}
	for _, i := range []int{5, 6} {
		if t := n.Input(i); len(t.Shape) != 1 || int(t.Shape[0].Value) != hidden {
			return 0, 0, 0, fmt.Errorf("EmbedLayerNormalization %s %v, want [%d]", inputName(n, i), t.Shape, hidden)
		}
	}
	for _, i := range []int{1, 7} {
		if t := n.Input(i); t != nil && !sameSizes(t.Shape, ids.Shape) {
			return 0, 0, 0, fmt.Errorf("EmbedLayerNormalization %s %v, want input_ids' shape %v", inputName(n, i), t.Shape, ids.Shape)
		}
	}
	if p := n.Input(8); p != nil && (len(p.Shape) != 2 || (p.Shape[0].Value != 1 && int(p.Shape[0].Value) != batch) || int(p.Shape[1].Value) != seq) {
		return 0, 0, 0, fmt.Errorf("EmbedLayerNormalization position_ids %v, want [%d or 1, %d]", p.Shape, batch, seq)
	}
	return batch, seq, hidden, nil
}

func inferEmbedNorm(n *Node) error {
	for _, i := range []int{0, 1, 7, 8} {
		if err := checkType(n, i, func(d DType) bool { return d == Int32 }, "int32"); err != nil {
			return err
		}
	}
	if err := checkType(n, 2, isFloatType, "a floating-point type"); err != nil {
		return err
	}
	for _, i := range []int{3, 4, 5, 6} {
		if err := checkSameType(n, 2, i); err != nil {
			return err
		}
	}
	if _, _, _, err := EmbedNormShape(n); err != nil {
		return err
	}
	ids, word := n.Inputs[0], n.Inputs[2]
	out := Shape{ids.Shape[0], ids.Shape[1], word.Shape[1]}
	setOut(n, 0, word.DType, out)
	setOut(n, 1, Int32, Shape{ids.Shape[0]})
	setOut(n, 2, word.DType, out.Clone())
	return nil
}
