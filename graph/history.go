package graph

// History states how an operator's versions before the IR's form, in the
// default ONNX domain, differ from that form: the facts the codec needs
// to import models of older opsets and to write a model at its own opset.
// OpSchema.MinOpset and OpSchema.AttrInputs state the rest; conversions
// particular to one operator (Cast's string type names, Pad's paddings,
// Gemm's and PRelu's broadcasting, Split-1, Concat's optional axis,
// Resize-10, Upsample) are the codec's own code. A zero field means no
// such change.
type History struct {
	// First is the opset that introduced the operator, for the operators
	// the codec imports from models below opset 9 (0: such nodes stay
	// opaque there).
	First int64
	// AttrSince lists attributes added after opset 1 with the opset that
	// added each: below it the attribute must be absent, or equal to its
	// default (what the older operator did), to be written.
	AttrSince map[string]int64
	// InputSince lists inputs (by position) added after opset 9 that are
	// not former attributes: below the opset they must be absent.
	InputSince map[int]int64
	// OutputSince lists optional outputs (by position) that exist only
	// from the given opset on; below it they must be absent.
	OutputSince map[int]int64
	// RequiredBefore lists optional inputs that were required before the
	// given opset: below it a node without the input cannot be written.
	RequiredBefore map[int]int64
	// Obsolete lists attributes of versions before opset 9 that files
	// still carry, with the int value under which they do not change the
	// IR operator's inference-time meaning; import drops them then.
	Obsolete map[string]int64
	// ConsumedBefore is the opset that removed the consumed_inputs
	// attribute, an in-place hint for training frameworks that does not
	// change results; ConsumedRequired marks it required before then
	// (export writes all zeros: no input is updated in place).
	ConsumedBefore   int64
	ConsumedRequired bool
	// TestModeBefore is the opset before which the operator had an
	// is_test attribute defaulting to training mode; only is_test=1 is the
	// inference operator the IR describes.
	TestModeBefore int64
	// LegacyBroadcast marks binary operators that before opset 7
	// broadcast only when broadcast=1, aligning B with A at axis (or with
	// A's trailing dimensions), the result having A's shape.
	LegacyBroadcast bool
	// SameShapeBefore is the opset before which the inputs of a variadic
	// operator had to share one shape (no broadcasting).
	SameShapeBefore int64
	// FlattenBefore is the opset before which axis flattened the input to
	// 2-D (the Softmax family until opset 13).
	FlattenBefore int64
	// LegacyAttrInputs lists attributes that became inputs before opset 9
	// (AttrInputs lists the later ones).
	LegacyAttrInputs []AttrInput
}

// Histories that many rows share.
var (
	// opset1 is an operator of opset 1 none of whose later changes the
	// codec has to convert.
	opset1 = History{First: 1}
	// opset1Consumed is an operator of opset 1 that carried
	// consumed_inputs until opset 6 (most early elementwise operators).
	opset1Consumed = History{First: 1, ConsumedBefore: 6}
	// opset1Broadcast is a binary operator of opset 1 that broadcast only
	// with broadcast=1 until opset 7.
	opset1Broadcast = History{First: 1, LegacyBroadcast: true}
	// opset7 is an operator introduced in opset 7.
	opset7 = History{First: 7}
)
