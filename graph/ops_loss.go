package graph

import "fmt"

// Loss operators: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

// lossAttrs are the attributes both loss operators take.
var lossAttrs = []AttrSpec{
	{Name: "ignore_index", Kind: AttrInt},
	{Name: "reduction", Kind: AttrString, Default: defString("mean")},
}

// lossOps are the rows of this file.
var lossOps = []OpSchema{
	{Op: "NegativeLogLikelihoodLoss", MinOpset: 13, Work: workPerOutput, Infer: inferLoss, Inputs: []InputSpec{req("input"), req("target"), opt("weight")}, Outputs: ins("loss"),
		Attrs: lossAttrs,
		Doc:   "loss = -input[n, target[n,d...], d...] * weight[target], 0 where target = ignore_index; reduced by none, sum, or mean (divided by the sum of the applied weights)."},
	{Op: "SoftmaxCrossEntropyLoss", MinOpset: 13, Work: workPerOutput, Infer: inferLoss, Inputs: []InputSpec{req("scores"), req("labels"), opt("weights")}, Outputs: []InputSpec{req("output"), opt("log_prob")},
		Attrs: lossAttrs,
		Doc:   "output = NegativeLogLikelihoodLoss(LogSoftmax(scores, axis 1), labels, weights); log_prob optionally returned."},
}

func inferLoss(n *Node) error {
	if err := checkType(n, 0, isFloatType, "a floating-point type"); err != nil {
		return err
	}
	if err := checkType(n, 1, isIndexType, "int32 or int64"); err != nil {
		return err
	}
	if err := checkSameType(n, 0, 2); err != nil {
		return err
	}
	x, t := n.Inputs[0], n.Inputs[1]
	if len(x.Shape) < 2 || len(t.Shape) != len(x.Shape)-1 || t.Shape[0].Value != x.Shape[0].Value {
		return fmt.Errorf("input %v and target %v: want [N,C,d...] and [N,d...]", x.Shape, t.Shape)
	}
	for i := 1; i < len(t.Shape); i++ {
		if t.Shape[i].Value != x.Shape[i+1].Value {
			return fmt.Errorf("input %v and target %v: want [N,C,d...] and [N,d...]", x.Shape, t.Shape)
		}
	}
	if w := n.Input(2); w != nil && (len(w.Shape) != 1 || w.Shape[0].Value != x.Shape[1].Value) {
		return fmt.Errorf("weight has shape %v, want [%d]", w.Shape, x.Shape[1].Value)
	}
	switch r := n.AttrString("reduction"); r {
	case "none":
		setOut(n, 0, x.DType, t.Shape.Clone())
	case "sum", "mean":
		setOut(n, 0, x.DType, Shape{})
	default:
		return fmt.Errorf("reduction %q is not none, sum or mean", r)
	}
	setOut(n, 1, x.DType, x.Shape.Clone())
	return nil
}
