// Package inspect provides the description of an ONNX model that `xrl
// inspect` prints: its format, inputs and outputs, a histogram of its ops
// with the opaque ones (never rewritten nor run by the Go executor), its
// parameters, the nodes and parameters inside its control-flow bodies, its
// FLOPs once the input shapes are bound, and the rewrite candidates of its
// first step.
//
// Read returns a Report value and Report.Write prints it; CandidatesOf and
// Candidates.Write do the same for the candidates.
package inspect
