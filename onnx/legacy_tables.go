package onnx

import "github.com/xrl-dev/xrl/graph"

// Operator history before opset 9 (the ONNX operator changelog), for the
// operators of the op-schema table. Models of opsets 1 to 8 are imported by
// restating each node in its opset-9 form (legacy_import.go) and exported,
// when their opset cannot be raised, by restating IR nodes in the old form
// (legacy_export.go).

// legacyFirst is the opset that introduced each operator the codec can
// import below opset 9. Operators not listed stay opaque in such models.
var legacyFirst = map[string]int64{
	"Add": 1, "Sub": 1, "Mul": 1, "Div": 1, "Pow": 1, "Equal": 1, "Max": 1, "Min": 1,
	"Relu": 1, "Sigmoid": 1, "Tanh": 1, "Exp": 1, "Log": 1, "Sqrt": 1,
	"LeakyRelu": 1, "HardSigmoid": 1, "Clip": 1,
	"Conv": 1, "ConvTranspose": 1, "AveragePool": 1, "MaxPool": 1, "GlobalAveragePool": 1,
	"BatchNormalization": 1, "Dropout": 1, "Gemm": 1, "MatMul": 1, "Softmax": 1,
	"Cast": 1, "Concat": 1, "Constant": 1, "Flatten": 1, "Gather": 1, "Identity": 1,
	"Pad": 1, "Reshape": 1, "Shape": 1, "Slice": 1, "Split": 1, "Squeeze": 1,
	"Transpose": 1, "Unsqueeze": 1, "ReduceMax": 1, "ReduceMean": 1, "ReduceSum": 1,
	"Expand": 8,
	"Neg":    1, "Abs": 1, "Reciprocal": 1, "Floor": 1, "Ceil": 1, "Not": 1, "And": 1, "Or": 1, "Xor": 1,
	"Greater": 1, "Less": 1, "Sum": 1, "Mean": 1, "Elu": 1, "Selu": 1, "PRelu": 1, "Softplus": 1,
	"Softsign": 1, "LogSoftmax": 1, "Hardmax": 1, "InstanceNormalization": 1, "LRN": 1,
	"GlobalMaxPool": 1, "ArgMax": 1, "ArgMin": 1, "TopK": 1, "Size": 1, "DepthToSpace": 1,
	"SpaceToDepth": 1, "ReduceMin": 1, "ReduceProd": 1, "ReduceL1": 1, "ReduceL2": 1,
	"ReduceLogSum": 1, "ReduceLogSumExp": 1, "ReduceSumSquare": 1, "Tile": 6,
	"Sin": 7, "Cos": 7, "Tan": 7, "Asin": 7, "Acos": 7, "Atan": 7,
}

// consumedBefore lists the operators whose first versions carried the
// consumed_inputs attribute (an in-place hint for training frameworks that
// does not change results), and the opset that removed it.
var consumedBefore = map[string]int64{
	"Add": 6, "Sub": 6, "Mul": 6, "Div": 6, "Max": 6, "Min": 6,
	"Relu": 6, "Sigmoid": 6, "Tanh": 6, "Exp": 6, "Log": 6, "Sqrt": 6,
	"LeakyRelu": 6, "HardSigmoid": 6, "Clip": 6,
	"BatchNormalization": 6, "Dropout": 6, "Reshape": 5,
	"Neg": 6, "Abs": 6, "Reciprocal": 6, "Floor": 6, "Ceil": 6, "Sum": 6, "Mean": 6,
	"Elu": 6, "Selu": 6, "PRelu": 6, "InstanceNormalization": 6,
}

// consumedRequired lists the operators whose consumed_inputs attribute was
// required; the export writes all zeros (no input is updated in place,
// which is what inference does).
var consumedRequired = map[string]bool{"BatchNormalization": true}

// legacyBroadcast lists the binary operators that before opset 7
// broadcast only when broadcast=1, aligning B with A at axis (or with A's
// trailing dimensions when axis is absent); the result has A's shape.
var legacyBroadcast = map[string]bool{
	"Add": true, "Sub": true, "Mul": true, "Div": true, "Pow": true, "Equal": true,
	"And": true, "Or": true, "Xor": true, "Greater": true, "Less": true,
}

// preluBroadcastSince is the opset from which PRelu's slope broadcasts
// to X; before it the slope had one element or X's shape.
const preluBroadcastSince = 7

// numpyBroadcastSince is the opset from which the binary operators of
// legacyBroadcast use numpy broadcasting.
const numpyBroadcastSince = 7

// sameShapeBefore lists variadic operators whose inputs had to share one
// shape (no broadcasting) before the given opset.
var sameShapeBefore = map[string]int64{"Max": 8, "Min": 8, "Sum": 8, "Mean": 8}

// testModeBefore lists operators that before the given opset had an
// is_test attribute defaulting to training mode; only is_test=1 is the
// inference operator the IR describes.
var testModeBefore = map[string]int64{"BatchNormalization": 7, "Dropout": 7}

// legacyAttrInputs lists attributes that became inputs before opset 9
// (graph.OpSchema.AttrInputs lists the later ones).
var legacyAttrInputs = map[string][]graph.AttrInput{
	"Reshape": {{Attr: "shape", Input: 1, Since: 5, DType: graph.Int64}},
}

// Other changes handled one by one: Gemm's broadcast attribute (until
// opset 7, C broadcast to [M,N] as the IR does), Cast's string `to`
// (until 6), Concat's optional axis defaulting to 1 (until 4), Pad's
// `paddings` attribute (renamed `pads` in 2), and Split's optional split
// input and axis without default (opset 1).
const (
	gemmBroadcastBefore = 7
	castIntSince        = 6
	concatAxisRequired  = 4
	padRenamedSince     = 2
	splitInputUntil     = 2
)

// castNames maps the type names Cast-1 took as its `to` attribute (names
// of TensorProto.DataType) to dtypes. Casts to and from strings came with
// opset 9.
var castNames = map[string]graph.DType{
	"FLOAT": graph.Float32, "UINT8": graph.Uint8, "INT8": graph.Int8, "UINT16": graph.Uint16,
	"INT16": graph.Int16, "INT32": graph.Int32, "INT64": graph.Int64, "BOOL": graph.Bool,
	"FLOAT16": graph.Float16, "DOUBLE": graph.Float64, "UINT32": graph.Uint32, "UINT64": graph.Uint64,
}

// castName returns the Cast-1 name of dt.
func castName(dt graph.DType) (string, bool) {
	for name, d := range castNames {
		if d == dt {
			return name, true
		}
	}
	return "", false
}

// attrInputs returns op's attribute-to-input changes: the schema's and
// those before opset 9.
func attrInputs(s *graph.OpSchema) []graph.AttrInput {
	extra := legacyAttrInputs[s.Op]
	if len(extra) == 0 {
		return s.AttrInputs
	}
	return append(append([]graph.AttrInput(nil), s.AttrInputs...), extra...)
}
