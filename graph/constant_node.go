package graph

// ConstantValue returns the tensor a Constant node produces (whichever of
// its value attributes is set), or an error when n is not a well-formed
// Constant node. Exporters such as PaddlePaddle's store weights this way;
// parameter counts, rules and folding treat these tensors as constants.
func ConstantValue(n *Node) (*Tensor, error) {
	if n.Op != "Constant" || n.Domain != "" && n.Domain != "ai.onnx" {
		return nil, &notConstantError{n}
	}
	return constantValue(n)
}

type notConstantError struct{ n *Node }

func (e *notConstantError) Error() string { return e.n.String() + ": not a Constant node" }
