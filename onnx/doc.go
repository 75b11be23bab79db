// Package onnx provides the lossless ONNX codec of xrl: it converts ONNX
// model files (ModelProto) to graph.Model and back, and single serialized
// tensors (TensorProto, as in the conformance test data sets) to
// graph.Tensor and back.
//
// Import (Decode, ReadFile) maps every operator that has an entry in the
// op-schema table (graph.Lookup) to an IR node in the newest operator form:
// attributes that later opsets turned into inputs become constant inputs,
// and Softmax/LogSoftmax/Hardmax below opset 13 are rewritten to their
// opset-13 meaning. Operators outside the table, operators of other
// domains, and nodes that carry anything the table does not describe are
// kept as opaque nodes holding their NodeProto bytes. Model and graph fields
// the IR does not model are kept verbatim in Model.Extra and Graph.Extra.
//
// Models whose default-domain opset is outside 9..21 (the range the IR's
// conversions cover) are imported with every node opaque; they round-trip
// unchanged but cannot be rewritten.
//
// Export (Encode, WriteFile) writes the model at its own default-domain
// opset, converting IR input forms back to attributes where that opset
// needs them, and raises the opset only when a node cannot be expressed in
// it. WriteFile is atomic and moves large tensors to an external data file
// next to the model.
package onnx
