// Package onnxpb holds Go bindings for ONNX's onnx.proto (proto2), generated
// by protoc and protoc-gen-go from the copy of the schema in this directory
// (taken from Debian's /usr/include/onnx/onnx.proto, ONNX 1.12).
//
// Regenerate with `go generate ./onnx/onnxpb` (needs protoc and
// protoc-gen-go v1.36.6 on PATH).
package onnxpb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go_opt=Monnx.proto=github.com/xrl-dev/xrl/onnx/onnxpb;onnxpb onnx.proto
