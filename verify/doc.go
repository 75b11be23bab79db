// Package verify provides the numerical check that two models compute the
// same function: both run on the same input sets, on one backend
// (Models), on two (Pair: a runtime against another) or on each of several
// named runtimes (Runtimes, which skips a runtime that cannot run an op,
// *graph.UnsupportedOpError). The sets are seeded random ones drawn to
// exercise the model (inputs.Random: integers over their meaningful
// ranges, Loop trip counts above 1), extra random sets drawn until each If
// whose condition depends on the inputs has been taken both ways (watched
// on the Go executor), and the user's own sets (Options.Sets). Outputs
// are compared element by element under numpy.allclose's rule, with the
// absolute tolerance in units of the output's scale, and as a whole by
// their relative L2 error; an output that is NaN or infinite everywhere,
// in both models, fails, since it compares nothing (Result).
//
// Backends come from package measure's registry: import measure/goexec
// (the Go executor, "go") or measure/ort (ONNX Runtime, "ort") to make
// them available by name.
package verify
