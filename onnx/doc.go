// Package onnx provides the lossless ONNX codec of xrl: it converts ONNX
// model files (ModelProto) to graph.Model and back, and single serialized
// tensors (TensorProto, as in the conformance test data sets) to
// graph.Tensor and back.
//
// # Import
//
// Decode and ReadFile map every default-domain operator that has an entry
// in the op-schema table (graph.Lookup) to an IR node in the newest
// operator form:
//
//   - attributes that later opsets turned into inputs (graph.AttrInput)
//     become constant inputs: new values with Const set, named after the
//     node and attribute, not listed in Graph.Initializers;
//   - Softmax, LogSoftmax and Hardmax below opset 13 keep their node when
//     axis is the last axis, and otherwise become Flatten(axis) ->
//     op(axis=-1) -> Reshape(original shape), which needs the input's rank
//     and at most one unknown dimension at import time;
//   - Resize of opset 10 (inputs X, scales) becomes Resize(X, nil, scales)
//     with coordinate_transformation_mode "asymmetric" and, for mode
//     nearest, nearest_mode "floor";
//   - Scatter of opsets 9 and 10 becomes ScatterElements with its axis
//     (written back as ScatterElements at opset 11);
//   - attributes of pre-opset-9 operator versions that do not change the
//     inference meaning (Dropout is_test=1, BatchNormalization spatial=1)
//     are dropped.
//
// Each converted node is written back at the model's opset and compared
// with the original; when that does not reproduce the node exactly (an
// attribute outside the schema or of another kind, a subgraph attribute,
// wrong arity, a lossy conversion) the node stays opaque instead:
// Node.Opaque holds its NodeProto without name, inputs and outputs, and
// Node.Implicit the outer values its subgraphs read. Nodes of other domains
// are always opaque. Models whose default-domain opset is outside 1..21
// (the range whose operator history the codec knows) are imported with
// every node opaque; they round-trip unchanged but cannot be rewritten.
//
// The bodies of If, Loop and Scan (opset 9 and later) are also decoded into
// IR graphs, Node.Bodies (see graph.Body; nested control flow likewise):
// formal inputs first, then one input per outer-scope name the body reads.
// On export a body is encoded again only when it was rewritten or its
// outer values are now written under other names; otherwise the opaque
// bytes are written, so an unedited model round-trips unchanged.
//
// # Opsets 1 to 8
//
// A node of a model below opset 9 is first restated as the node an opset-9
// model holds for the same computation, following the operator changelog
// (each op's graph.OpSchema.History, and legacy_tables.go for changes
// converted op by op), and then imported as above. The restatement drops
// consumed_inputs; requires is_test=1 on BatchNormalization and Dropout
// before opset 7 (the default was training mode); turns Cast-1's type
// name, Pad-1's paddings, Reshape-1's shape attribute (now a constant
// input) and Concat-1's default axis into their later forms; drops Gemm's
// broadcast; and restates the broadcast/axis attributes of Add, Sub, Mul,
// Div, Pow and Equal before opset 7 as numpy broadcasting, inserting an
// Unsqueeze of B when axis does not align B with A's trailing dimensions
// (which needs both ranks). Operators that did not exist yet, attributes
// and outputs the old version lacked, training-mode nodes, and legacy
// forms whose meaning depends on shapes the file does not give stay
// opaque.
//
// When such a model also has opaque default-domain nodes, its opset cannot
// be raised on export, so IR nodes will be written back in the old form:
// the import then keeps only IR nodes that survive being written at the
// model's opset and imported again (binary operators before opset 7 and
// Max/Min before 8 need their input shapes for that).
//
// Model and graph fields the IR does not model (functions, training info,
// sparse initializers, quantization annotations, unknown fields, and
// ValueInfoProtos the IR value cannot reproduce such as sequence types or
// dimension denotations) are kept verbatim in Model.Extra and Graph.Extra.
// Dropped on purpose: the names of tensors inside attributes and whether
// tensor data was stored raw, typed or external. Initializers carrying
// fields this ONNX version does not define are rejected. Node order in the
// file need not be topological; cyclic graphs decode and are reported by
// graph.Validate.
//
// # Export
//
// Encode and WriteFile write the model at its own default-domain opset,
// converting IR input forms back to attributes where that opset needs them
// (the inputs must then be constants), and raise the opset only when some
// node cannot be expressed in it, which is refused when an opaque
// default-domain node would be carried to the new opset. Models below
// opset 9 without opaque default-domain nodes are raised to opset 9 or
// later; the others are written in the forms of their own opset. The
// ir_version is raised as far as the written opset needs, and to 4 when
// initializers are not all listed as graph inputs. Models without an IR
// version get ir_version 8 and default-domain opset 17. Value names
// are made unique and non-empty, keeping the names subgraphs and sparse
// initializers refer to; intermediate values with a known type get
// value_info entries. WriteFile is atomic and moves large tensors to an
// external data file next to the model.
package onnx
