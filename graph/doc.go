// Package graph provides xrl's tensor-graph intermediate representation.
//
// A Model wraps a Graph plus the model-level metadata an ONNX file carries.
// A Graph is a list of Nodes connected by Values: every Value is produced by
// exactly one Node, or is a graph input, or is a constant (initializer).
// Nodes are kept in topological order by Sort.
//
// Every supported operator is described once, in the op-schema table
// (Schemas / Lookup). The table states each op's arity, attributes,
// attributes that later opsets turned into inputs, commutativity and shape
// inference; the ONNX codec, the executors and the rewrite engine all read
// it. Operators outside the table are kept as opaque nodes that carry their
// original ONNX encoding verbatim.
//
// Shapes may be symbolic after import (Dim.Param). BindShapes fixes input
// dimensions and InferShapes propagates static shapes and dtypes through the
// graph; most consumers (executors, rewriting) need a bound graph.
package graph
