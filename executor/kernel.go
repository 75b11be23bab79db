package executor

import (
	"errors"
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// kernel executes one compiled node. ins holds the typed data slices of
// the node's inputs (nil for an omitted optional input) and outs the
// slices to write the outputs to; shapes were fixed at compile time. A
// kernel must overwrite every output element: output buffers are recycled
// and hold stale data.
type kernel interface {
	run(rc *runCtx, ins, outs []any) error
}

// inPlacer is implemented by kernels whose output 0 may share memory with
// some inputs (element i of the output depends only on element i of those
// inputs).
type inPlacer interface {
	inPlace() []int
}

// scratcher is implemented by kernels that need temporary memory during
// run; the executor provides one shared scratch area of the largest size
// requested.
type scratcher interface {
	scratchBytes() int
}

// aliasKernel marks ops whose output 0 is input 0 with another shape
// (Reshape, Flatten, Squeeze, Unsqueeze, Identity, inference Dropout). The
// executor shares the buffer instead of calling run, unless the output is
// a graph output, in which case run copies.
type aliasKernel struct{}

func (aliasKernel) run(rc *runCtx, ins, outs []any) error {
	copyData(outs[0], ins[0])
	return nil
}

// runCtx carries per-run resources to kernels.
type runCtx struct {
	threads int
	scratch []uint64
}

// valInfo describes one input or output of a node at compile time.
type valInfo struct {
	v     *graph.Value
	dt    graph.DType // execution dtype (float32 becomes float64 in float64 precision)
	shape []int
	n     int
	// value is the constant (or inferred, or folded) value of an input,
	// converted to the execution dtype, or nil when known only at run time.
	value *graph.Tensor
}

// nodeInfo is what a kernel factory sees.
type nodeInfo struct {
	node    *graph.Node
	ins     []*valInfo // nil for omitted optional inputs
	outs    []*valInfo // nil for omitted optional outputs
	threads int
}

// kernelFactory compiles a kernel for one node. Its errors omit the node
// name, which the executor adds.
type kernelFactory func(ni *nodeInfo) (kernel, error)

// kernelTable maps each op of the op-schema table to its kernel factory,
// keyed by kernelKey; the kernel files fill it in init functions.
var kernelTable = map[string]kernelFactory{}

// kernelKey names an op in kernelTable: the op name for the default ONNX
// domain, "domain.op" for others.
func kernelKey(domain, op string) string {
	if domain == "" || domain == "ai.onnx" {
		return op
	}
	return domain + "." + op
}

// kernelFor returns the kernel factory of op: the one registered for it,
// else the generic kernel of the elementwise function its schema row
// states (graph.OpSchema.Unary, graph.OpSchema.Binary), else nil.
func kernelFor(domain, op string) kernelFactory {
	if f := kernelTable[kernelKey(domain, op)]; f != nil {
		return f
	}
	s := graph.Lookup(domain, op)
	switch {
	case s == nil:
		return nil
	case s.Unary != nil:
		return newMathKernel
	case s.Binary == graph.BinNone:
		return nil
	case s.Binary == graph.BinPow:
		return newPowKernel
	case s.Binary == graph.BinEqual:
		return newEqualKernel
	case s.Binary == graph.BinPRelu:
		return newPReluKernel
	case s.Binary.Compares(), s.Binary.Logic():
		return newCompareKernel
	}
	return newBinaryKernel
}

// registerKernel adds a factory to kernelTable for one or more ops.
func registerKernel(f kernelFactory, ops ...string) {
	for _, op := range ops {
		if _, dup := kernelTable[op]; dup {
			panic("runtime: kernel for " + op + " registered twice")
		}
		kernelTable[op] = f
	}
}

// in returns input i's info, or nil when absent.
func (ni *nodeInfo) in(i int) *valInfo {
	if i < len(ni.ins) {
		return ni.ins[i]
	}
	return nil
}

// out returns output i's info, or nil when absent.
func (ni *nodeInfo) out(i int) *valInfo {
	if i < len(ni.outs) {
		return ni.outs[i]
	}
	return nil
}

// inputName names input i for messages: `input 1 "shape"`.
func (ni *nodeInfo) inputName(i int) string {
	if v := ni.in(i); v != nil {
		return fmt.Sprintf("input %d %q", i, v.v.Name)
	}
	return fmt.Sprintf("input %d", i)
}

// constInts returns the value of integer input i, which must be known at
// compile time. ok is false when the input is absent or an empty
// placeholder.
func (ni *nodeInfo) constInts(i int) (vals []int64, ok bool, err error) {
	return constInput(ni, i, (*graph.Tensor).AsInt64)
}

// constFloats is constInts for numeric inputs read as float64.
func (ni *nodeInfo) constFloats(i int) (vals []float64, ok bool, err error) {
	return constInput(ni, i, (*graph.Tensor).AsFloat64)
}

// constInput is constInts and constFloats: input i's constant value, read
// with as.
func constInput[T any](ni *nodeInfo, i int, as func(*graph.Tensor) ([]T, error)) (vals []T, ok bool, err error) {
	v := ni.in(i)
	if v == nil {
		return nil, false, nil
	}
	if v.value == nil {
		return nil, true, fmt.Errorf("%s must be a constant (or computable from constants) for the Go executor", ni.inputName(i))
	}
	vals, err = as(v.value)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", ni.inputName(i), err)
	}
	return vals, true, nil
}

// errDType reports an element type a kernel does not implement.
func errDType(what string, dt graph.DType) error {
	return fmt.Errorf("%s of dtype %v is not supported by the Go executor", what, dt)
}

// isFloatDT reports whether dt is an executor float type.
func isFloatDT(dt graph.DType) bool { return dt == graph.Float32 || dt == graph.Float64 }

// ErrTrainingDropout is returned (wrapped) by Run for a Dropout whose
// training_mode input is true with a non-zero ratio: its output is random,
// and the executor runs inference only.
var ErrTrainingDropout = errors.New("training-mode Dropout with ratio > 0 is random; the Go executor runs inference only")

// optIn returns ins[i], or nil when the optional input is absent.
func optIn(ins []any, i int) any {
	if i < len(ins) {
		return ins[i]
	}
	return nil
}

// isNumericDT reports whether dt is an executor number type (not bool).
func isNumericDT(dt graph.DType) bool { return SupportsDType(dt) && dt != graph.Bool }

// dtOf returns v's execution dtype, or Undefined for an absent value.
func dtOf(v *valInfo) graph.DType {
	if v == nil {
		return graph.Undefined
	}
	return v.dt
}
