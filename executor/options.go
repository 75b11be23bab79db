package executor

import (
	"fmt"
	goruntime "runtime"

	"github.com/xrl-dev/xrl/graph"
)

// ExecOptions configures the Go executor.
type ExecOptions struct {
	// Precision is the float type computations use: graph.Float32 (the
	// default when zero) or graph.Float64, which computes every float32
	// input, constant and intermediate in float64 — the reference mode used
	// to verify rewrite rules. In Float64 mode the float32 outputs come back
	// as float64 tensors, float32 inputs may be given as float32 or float64
	// tensors, and a Cast to float32 yields float64 values without rounding.
	Precision graph.DType
	// Threads bounds the goroutines a kernel uses; 0 means NumCPU().
	Threads int
	// Branch, when set, is called each time an If node runs, in the graph
	// or in a control-flow body, with the node and whether it took its
	// then_branch: verification uses it to find input sets that take each
	// If both ways.
	Branch func(n *graph.Node, then bool)
}

// NumCPU returns the number of logical CPUs usable by the process, the
// default for ExecOptions.Threads.
func NumCPU() int { return goruntime.NumCPU() }

// withDefaults fills zero fields and checks the others.
func (o ExecOptions) withDefaults() (ExecOptions, error) {
	switch o.Precision {
	case graph.Undefined:
		o.Precision = graph.Float32
	case graph.Float32, graph.Float64:
	default:
		return o, fmt.Errorf("executor precision %v is not supported (use float32 or float64)", o.Precision)
	}
	if o.Threads < 0 {
		return o, fmt.Errorf("executor threads must not be negative (got %d)", o.Threads)
	}
	if o.Threads == 0 {
		o.Threads = NumCPU()
	}
	return o, nil
}

// execDType maps a value's dtype to the dtype the executor computes in.
func (o ExecOptions) execDType(dt graph.DType) graph.DType {
	if dt == graph.Float32 && o.Precision == graph.Float64 {
		return graph.Float64
	}
	return dt
}
