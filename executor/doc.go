// Package executor provides xrl's pure-Go CPU executor for graphs of the
// op-schema table.
//
// The executor (NewExecutor, Executor.Run) runs a graph with static,
// inferred shapes. At compile time it resolves one kernel per node from the
// kernel table (one entry per op of graph's op-schema table), converts
// constants once to the execution precision, and plans intermediate buffers
// by tensor liveness: a buffer is handed to later nodes after its value's
// last consumer has run, and shape-only ops (Reshape, Squeeze, Unsqueeze,
// Flatten, Identity, inference Dropout) alias their input. Kernels are
// specialised per element type with generics; Conv runs as im2col + GEMM,
// MatMul and Gemm call gonum's BLAS, and large loops are split over a small
// pool of worker goroutines.
//
// ExecOptions.Precision set to graph.Float64 computes every float32 value in
// float64: the reference mode used to verify rewrite rules numerically.
//
// The package also provides Evaluate, the evaluator constant folding uses,
// and PlannedMemory, the memory a graph's compiled plan holds. It depends
// on graph only: package measure/goexec makes it a measurement backend
// ("go") and a memory scorer. A node it does not implement fails
// compilation with *graph.UnsupportedOpError.
package executor
