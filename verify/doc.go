// Package verify provides the numerical check that two models compute the
// same function: both run on the same seeded random inputs
// (measure.RandomInputs) over several seeds, on one backend (Models), on
// two (Pair: a runtime against another) or on each of several named
// runtimes (Runtimes, which skips a runtime that cannot run an op,
// *graph.UnsupportedOpError). Outputs are compared element by element
// under numpy.allclose's rule, with the absolute tolerance in units of
// the output's scale, and as a whole by their relative L2 error (Result).
//
// Backends come from package measure's registry: import measure/goexec
// (the Go executor, "go") or measure/ort (ONNX Runtime, "ort") to make
// them available by name.
package verify
