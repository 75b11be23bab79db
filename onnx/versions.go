package onnx

import "github.com/xrl-dev/xrl/graph"

// Operator history. The IR uses the newest form of each operator; each
// row of the op-schema table says what older default-domain opsets lacked
// or had (graph.OpSchema.History, AttrInputs, MinOpset), and this file and
// legacy_*.go convert by those facts. Opsets 9 and later are written in
// each operator's form of that opset; opsets 1 to 8 are handled by
// converting nodes to their opset-9 form first (legacy_tables.go,
// legacy_import.go, legacy_export.go).

// Range of default-domain opsets whose operators the codec converts to IR
// nodes. Models importing another version keep every node opaque.
const (
	minLegacyOpset = 1
	minIROpset     = 9
	maxIROpset     = 21
)

// history returns the version history of default-domain op, the zero
// History for an op outside the table.
func history(op string) graph.History {
	if s := graph.Lookup("", op); s != nil {
		return s.History
	}
	return graph.History{}
}

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
