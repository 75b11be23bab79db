package onnx

// ConformanceModels gives the external tests (package onnx_test) the
// conformance models that the internal ones use.
var ConformanceModels = conformanceModels
