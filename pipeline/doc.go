// Package pipeline provides the optimise flow that the command line and the
// tests share: load an ONNX model and bind its input shapes, build the rule
// engine, fold constants, improve the graph by search or with a trained
// policy, fold again, verify the result against the original on the Go
// executor and on ONNX Runtime when installed, write it atomically and
// report what happened.
//
// Each step is also exported on its own (Prepare, Start.Export,
// ReportMeasured), so that commands which only need part of the flow, such
// as training or environment rollouts, use the same code.
package pipeline
