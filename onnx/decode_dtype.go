package onnx

import "github.com/xrl-dev/xrl/graph"

// keepsFloatType are the ops whose first output has their first input's
// element type (for a float input), as far as floatDTypeOf follows them.
var keepsFloatType = map[string]bool{
	"Abs": true, "Add": true, "AveragePool": true, "BatchNormalization": true, "Clip": true,
	"Concat": true, "Conv": true, "ConvTranspose": true, "Div": true, "Dropout": true, "Elu": true,
	"Erf": true, "Exp": true, "Expand": true, "Flatten": true, "Gather": true, "Gemm": true,
	"GlobalAveragePool": true, "GlobalMaxPool": true, "HardSigmoid": true, "HardSwish": true,
	"Identity": true, "InstanceNormalization": true, "LeakyRelu": true, "Log": true, "MatMul": true,
	"Max": true, "MaxPool": true, "Mean": true, "Min": true, "Mul": true, "Neg": true, "Pad": true,
	"Pow": true, "PRelu": true, "ReduceMax": true, "ReduceMean": true, "ReduceMin": true,
	"ReduceSum": true, "Relu": true, "Reshape": true, "Resize": true, "Selu": true, "Sigmoid": true,
	"Slice": true, "Softmax": true, "Softplus": true, "Split": true, "Sqrt": true, "Squeeze": true,
	"Sub": true, "Sum": true, "Tanh": true, "Tile": true, "Transpose": true, "Unsqueeze": true,
	"Upsample": true,
}

// floatDTypeOf returns the float element type of v, decoded without a
// recorded type, for converting an attribute that takes its input's type
// (Clip's min and max, Pad's value, before opset 11): the type of the
// first value with a known type up v's chain of first inputs, through the
// nodes decoded so far that keep their first input's type, or a Cast's
// target. It is Undefined when the chain meets anything else or the
// type found is not a float.
func (d *decoder) floatDTypeOf(v *graph.Value) graph.DType {
	if d.g == nil {
		return graph.Undefined
	}
	for range len(d.g.Nodes) + 1 {
		if v == nil {
			return graph.Undefined
		}
		if v.DType != graph.Undefined {
			if v.DType.IsFloat() {
				return v.DType
			}
			return graph.Undefined
		}
		n := d.producer(v)
		switch {
		case n == nil || n.IsOpaque():
			return graph.Undefined
		case n.Op == "Cast":
			v = &graph.Value{DType: graph.DType(n.AttrInt("to"))}
		case keepsFloatType[n.Op]:
			v = n.Input(0)
		default:
			return graph.Undefined
		}
	}
	return graph.Undefined
}

// producer returns the decoded node that outputs v, or nil.
func (d *decoder) producer(v *graph.Value) *graph.Node {
	for i := len(d.g.Nodes) - 1; i >= 0; i-- {
		for _, o := range d.g.Nodes[i].Outputs {
			if o == v {
				return d.g.Nodes[i]
			}
		}
	}
	return nil
}
