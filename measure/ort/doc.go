// Package ort provides the "ort" runtime backend: models are executed by
// ONNX Runtime's CPU provider through github.com/yalue/onnxruntime_go.
//
// The shared library (libonnxruntime.so.1) is found, in order, through the
// XRL_ORT_LIB environment variable, next to the xrl binary
// (../third_party/onnxruntime/), and in third_party/onnxruntime/ of the
// current directory or any parent (the layout scripts/setup creates).
// Importing the package registers the backend with package measure, and
// the "profile" latency model: measure.ProfileModel over the backend's
// Profile (ONNX Runtime's per-node profiler).
package ort
