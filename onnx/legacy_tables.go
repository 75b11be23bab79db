package onnx

import "github.com/xrl-dev/xrl/graph"

// Operator history before opset 9 (the ONNX operator changelog) that is
// not a fact of one row of the op-schema table (graph.History holds
// those): the opsets of changes that the codec converts op by op, and
// Cast-1's type names. Models of opsets 1 to 8 are imported by restating
// each node in its opset-9 form (legacy_import.go) and exported, when
// their opset cannot be raised, by restating IR nodes in the old form
// (legacy_export.go).

// preluBroadcastSince is the opset from which PRelu's slope broadcasts
// to X; before it the slope had one element or X's shape.
const preluBroadcastSince = 7

// numpyBroadcastSince is the opset from which the binary operators marked
// graph.History.LegacyBroadcast use numpy broadcasting.
const numpyBroadcastSince = 7

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
	extra := s.History.LegacyAttrInputs
	if len(extra) == 0 {
		return s.AttrInputs
	}
	return append(append([]graph.AttrInput(nil), s.AttrInputs...), extra...)
}
