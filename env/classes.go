package env

// operatorClasses are the operator node classes, in index order: the
// default-domain operators the op-schema table held when the class list
// was frozen (sorted by name). ClassInput, ClassWeight and ClassOther
// follow them.
//
// The list is data, not derived from the table, because a policy network
// is trained for a fixed number of classes: the embedded agent
// (ppo/builtin), every checkpoint written by `xrl train` and REGAL's
// feature width all depend on it. An operator added to the table later
// encodes as ClassOther until the list is deliberately extended, which
// needs every shipped checkpoint to be retrained. Never reorder or remove
// a name: the index of each class is part of the checkpoints.
var operatorClasses = [...]string{
	"Abs", "Acos", "Acosh", "Add", "And", "ArgMax", "ArgMin", "Asin", "Asinh", "Atan", "Atanh",
	"AveragePool", "BatchNormalization", "Cast", "Ceil", "Celu", "Clip", "Concat", "Constant",
	"ConstantOfShape", "Conv", "ConvTranspose", "Cos", "Cosh", "CumSum", "DepthToSpace", "Div",
	"Dropout", "Einsum", "Elu", "Equal", "Erf", "Exp", "Expand", "EyeLike", "Flatten", "Floor",
	"Gather", "GatherElements", "GatherND", "Gelu", "Gemm", "GlobalAveragePool", "GlobalMaxPool",
	"Greater", "GreaterOrEqual", "GroupNormalization", "HardSigmoid", "HardSwish", "Hardmax",
	"Identity", "InstanceNormalization", "IsInf", "IsNaN", "LRN", "LayerNormalization",
	"LeakyRelu", "Less", "LessOrEqual", "Log", "LogSoftmax", "MatMul", "Max", "MaxPool", "Mean",
	"MeanVarianceNormalization", "Min", "Mish", "Mod", "Mul", "Neg", "NegativeLogLikelihoodLoss",
	"Not", "OneHot", "Or", "PRelu", "Pad", "Pow", "Range", "Reciprocal", "ReduceL1", "ReduceL2",
	"ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd",
	"ReduceSum", "ReduceSumSquare", "Relu", "Reshape", "Resize", "Round", "ScatterElements",
	"ScatterND", "Selu", "Shape", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Size", "Slice",
	"Softmax", "SoftmaxCrossEntropyLoss", "Softplus", "Softsign", "SpaceToDepth", "Split", "Sqrt",
	"Squeeze", "Sub", "Sum", "Tan", "Tanh", "ThresholdedRelu", "Tile", "TopK", "Transpose",
	"Trilu", "Unsqueeze", "Where", "Xor",
}
