// Package measure provides latency measurement and model verification
// over pluggable execution backends.
//
// A Backend loads a model into a Session; backends register themselves by
// name (the Go executor as "go" in measure/goexec, ONNX Runtime as "ort"
// in measure/ort). On top of them: Measure (warm-ups, repeated timed runs,
// robust statistics), Compare (interleaved A/B runs with a confidence
// interval of the latency ratio), LatencyModel (what the environment and
// the search consume: measured latency, cached by graph hash, the
// CostModel's per-operator estimate, or the ProfileModel's estimate from
// whole-session profiles of a Profiler such as ONNX Runtime, registered as
// "profile" by measure/ort) and Verify (two models computing the same
// function on random inputs).
//
// The package depends on graph only: the environment and the search
// import it for the LatencyModel interface without the executor's kernels.
package measure
