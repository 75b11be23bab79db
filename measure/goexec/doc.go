// Package goexec provides xrl's pure-Go executor (package executor) to
// measurement: importing it registers the executor as the backend "go"
// (Backend), which measure.NewBackend and measure.NewLatencyModel then
// find by name, and MemoryModel scores models by the executor's planned
// peak memory for the memory objective.
//
// The executor itself depends on graph only; this package is the
// adapter between it and measure, as measure/ort is for ONNX Runtime.
package goexec
