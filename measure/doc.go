// Package measure provides latency measurement over pluggable execution
// backends, and the scorers that optimisation minimises.
//
// A Backend loads a model into a Session; backends register themselves by
// name (the Go executor as "go" in measure/goexec, ONNX Runtime as "ort"
// in measure/ort), and RandomInputs makes the seeded inputs they run on.
// On top of them: Measure (warm-ups, repeated timed runs, robust
// statistics), Compare (interleaved A/B runs with a confidence interval
// of the latency ratio), DecideNotSlower (the measured choice of the
// model to write), BindShapes (shapes of opaque ops observed by running
// them) and LatencyModel (what the environment and the search consume:
// measured latency, cached by graph hash, the CostModel's per-operator
// estimate, or the ProfileModel's estimate from whole-session profiles of
// a Profiler such as ONNX Runtime, registered as "profile" by
// measure/ort).
//
// Units are kept in types: a LatencyModel reports time.Duration
// statistics, a MemoryModel reports Bytes. The memory and both objectives
// reach the searches through MemoryObjective and Combined, the one place
// where bytes become a score (MemoryScore).
//
// Checking that two models compute the same function is package verify's.
// The package does not import the executor: the environment and the
// search import it for the LatencyModel interface without the executor's
// kernels.
package measure
