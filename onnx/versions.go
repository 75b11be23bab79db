package onnx

import "github.com/xrl-dev/xrl/graph"

// Operator history the codec needs beyond graph.OpSchema.AttrInputs. The
// IR uses the newest form of each operator; these tables say what older
// default-domain opsets lacked. Opsets 9 and later are written in each
// operator's form of that opset; opsets 1 to 8 are handled by converting
// nodes to their opset-9 form first (legacy_tables.go, legacy_import.go,
// legacy_export.go).

// Range of default-domain opsets whose operators the codec converts to IR
// nodes. Models importing another version keep every node opaque.
const (
	minLegacyOpset = 1
	minIROpset     = 9
	maxIROpset     = 21
)

// attrSince lists attributes added after opset 1: below the given opset
// the attribute must be absent, or equal to its schema default (which is
// what the older operator did), to be written.
var attrSince = map[string]map[string]int64{
	"ArgMax":             {"select_last_index": 12},
	"ArgMin":             {"select_last_index": 12},
	"AveragePool":        {"ceil_mode": 10, "dilations": 19, "count_include_pad": 7},
	"MaxPool":            {"ceil_mode": 10, "dilations": 10, "storage_order": 8},
	"LpPool":             {"ceil_mode": 18, "dilations": 18},
	"BatchNormalization": {"training_mode": 14},
	"Cast":               {"saturate": 19},
	"CastLike":           {"saturate": 19},
	"Constant": {"value_float": 12, "value_floats": 12, "value_int": 12, "value_ints": 12,
		"value_string": 12, "value_strings": 12},
	"DepthToSpace":       {"mode": 11},
	"Dropout":            {"seed": 12},
	"GatherND":           {"batch_dims": 12},
	"GroupNormalization": {"stash_type": 21},
	"QuantizeLinear":     {"axis": 13, "saturate": 19, "block_size": 21, "output_dtype": 21},
	"DequantizeLinear":   {"axis": 13, "block_size": 21},
	"ReduceSum":          {"noop_with_empty_axes": 13},
	"ReduceMean":         {"noop_with_empty_axes": 18},
	"ReduceMax":          {"noop_with_empty_axes": 18},
	"ReduceMin":          {"noop_with_empty_axes": 18},
	"ReduceProd":         {"noop_with_empty_axes": 18},
	"ReduceL1":           {"noop_with_empty_axes": 18},
	"ReduceL2":           {"noop_with_empty_axes": 18},
	"ReduceLogSum":       {"noop_with_empty_axes": 18},
	"ReduceLogSumExp":    {"noop_with_empty_axes": 18},
	"ReduceSumSquare":    {"noop_with_empty_axes": 18},
	"Reshape":            {"allowzero": 14},
	"Resize": {"cubic_coeff_a": 11, "exclude_outside": 11, "extrapolation_value": 11,
		"antialias": 18, "axes": 18, "keep_aspect_ratio_policy": 18},
	"ScatterElements": {"reduction": 16},
	"ScatterND":       {"reduction": 16},
	"Shape":           {"start": 15, "end": 15},
	"Split":           {"num_outputs": 18},
	"TopK":            {"largest": 11, "sorted": 11},
}

// inputSince lists inputs (by position) added after opset 9 that are not
// former attributes: below the given opset they must be absent.
var inputSince = map[string]map[int]int64{
	"Dropout": {2: 12},
	"Pad":     {3: 18},
	"Slice":   {4: 10},
}

// outputSince lists optional outputs (by position) that an operator has
// only from the given opset on; below it they must be absent. Dropout's
// mask had the input's type before opset 10 (the IR's mask is bool), and
// BatchNormalization's extra outputs meant training mode before opset 14.
var outputSince = map[string]map[int]int64{
	"MaxPool":            {1: 8},
	"Dropout":            {1: 10},
	"BatchNormalization": {1: 14, 2: 14, 3: 14, 4: 14},
}

// requiredBefore lists optional inputs that were required before an
// opset: below it an IR node without the input cannot be written.
var requiredBefore = map[string]map[int]int64{
	"Gemm": {2: 11},
}

// obsoleteAttrs lists attributes of operator versions before opset 9 that
// files still carry and that do not change the inference-time meaning of
// the IR operator; the codec drops them on import. keep reports whether
// the value is one the IR can ignore.
var obsoleteAttrs = map[string]map[string]func(a graph.Attr) bool{
	"Dropout":            {"is_test": func(a graph.Attr) bool { return a.Kind == graph.AttrInt && a.Int == 1 }},
	"BatchNormalization": {"spatial": func(a graph.Attr) bool { return a.Kind == graph.AttrInt && a.Int == 1 }},
}

// softmaxFamily are the operators whose axis meaning changed in opset 13:
// before it they flattened the input to 2-D at axis.
var softmaxFamily = map[string]bool{"Softmax": true, "LogSoftmax": true, "Hardmax": true}

// oldAttrKind returns the kind of the attribute an AttrInput replaced. Int64
// inputs replaced int lists and float inputs replaced single floats, except
// TopK's k, a single int written as a 1-element tensor.
func oldAttrKind(op string, ai graph.AttrInput) graph.AttrKind {
	if op == "TopK" && ai.Attr == "k" {
		return graph.AttrInt
	}
	if ai.DType == graph.Int64 || ai.DType == graph.Int32 {
		return graph.AttrInts
	}
	return graph.AttrFloat
}
