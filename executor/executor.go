package executor

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/sysmem"
)

// Executor runs one compiled graph on the CPU. Run may be called
// repeatedly; concurrent calls are serialised.
type Executor struct {
	mu      sync.Mutex
	opts    ExecOptions
	slots   []slot
	steps   []step
	inputs  []inputSpec
	inByKey map[string]int
	outputs []outputSpec
	bufs    [][]uint64 // planned intermediate buffers
	scratch []uint64
	peak    int64
	rc      runCtx
}

// slotKind says where a value's data lives.
type slotKind uint8

const (
	slotNode  slotKind = iota // node output not yet planned
	slotConst                 // compile-time data (initializer, folded node)
	slotInput                 // the caller's tensor (read only)
	slotFresh                 // graph output: allocated anew on every run
	slotPool                  // a planned buffer (or empty for zero-size values)
	slotAlias                 // the storage of another slot (shape-only ops)
)

// slot is the run-time home of one graph value.
type slot struct {
	v     *graph.Value
	dt    graph.DType // execution dtype
	shape []int
	n     int
	kind  slotKind
	alias int // aliased slot (slotAlias)
	buf   int // planned buffer (slotPool); -1 for zero-size values
	data  any // current data: fixed for const and pool slots, set per run otherwise
	// isOutput marks graph outputs; lastUse is the index of the last step
	// that reads the slot (-1 when none).
	isOutput bool
	lastUse  int
}

// step is one node to run.
type step struct {
	node      *graph.Node
	k         kernel
	in, out   []int // slot indices; -1 for absent
	alias     bool  // output 0 shares input 0's storage
	ins, outs []any // reused argument arrays
}

type inputSpec struct {
	v    *graph.Value
	slot int
}

type outputSpec struct {
	name string
	slot int
}

// NewExecutor compiles g for the Go executor. g must have static inferred
// shapes on every value (run InferShapes, after BindShapes if needed, on a
// Clone); the executor keeps references to g's constants but not to g.
// Opaque nodes, ops without a kernel and unsupported dtypes are errors that
// name the node.
func NewExecutor(g *graph.Graph, opts ExecOptions) (*Executor, error) {
	if g == nil {
		return nil, fmt.Errorf("executor: nil graph")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	nodes, err := graph.TopoOrder(g.Nodes)
	if err != nil {
		return nil, fmt.Errorf("executor: %w", err)
	}
	if err := sysmem.CheckGraph(g); err != nil {
		return nil, fmt.Errorf("executor: %w", err)
	}
	e := &Executor{opts: opts, inByKey: make(map[string]int)}
	c := &compiler{e: e, slotOf: make(map[*graph.Value]int)}
	if err := c.addInputs(g); err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if err := c.addNode(n); err != nil {
			return nil, err
		}
	}
	if err := c.addOutputs(g); err != nil {
		return nil, err
	}
	if err := e.plan(); err != nil {
		return nil, err
	}
	return e, nil
}

// runKernel calls the step's kernel (copying for alias kernels), turning a
// panic into an error that names the node.
func runKernel(rc *runCtx, st *step, ins, outs []any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v: internal error in Go kernel: %v", st.node, r)
		}
	}()
	if err := st.k.run(rc, ins, outs); err != nil {
		return fmt.Errorf("%v: %w", st.node, err)
	}
	return nil
}

// PeakBytes returns the memory the executor holds for intermediate values
// and kernel scratch space: the size of its planned buffers, which bounds
// the peak of simultaneously live intermediates. Graph inputs, outputs and
// constants are not included.
func (e *Executor) PeakBytes() int64 { return e.peak }

// ConstBytes returns the bytes of the constants the executor holds: the
// graph's constants that nodes read and the values it folded when
// compiling, in execution dtypes.
func (e *Executor) ConstBytes() int64 {
	var n int64
	for i := range e.slots {
		if s := &e.slots[i]; s.kind == slotConst {
			n += int64(s.n) * int64(max(s.dt.Size(), 1))
		}
	}
	return n
}

// InputNames returns the names of the graph inputs in order.
func (e *Executor) InputNames() []string {
	out := make([]string, len(e.inputs))
	for i, in := range e.inputs {
		out[i] = in.v.Name
	}
	return out
}

// Run executes the graph. inputs maps graph input names to tensors whose
// dtype and shape must match the graph's (inputs with a default value may
// be omitted). The returned output tensors are fresh and owned by the
// caller; the inputs are not modified.
func (e *Executor) Run(inputs map[string]*graph.Tensor) (map[string]*graph.Tensor, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.bindInputs(inputs); err != nil {
		return nil, err
	}
	rc := &e.rc
	for i := range e.steps {
		st := &e.steps[i]
		for j, id := range st.in {
			if id >= 0 {
				st.ins[j] = e.slots[id].data
			} else {
				st.ins[j] = nil
			}
		}
		if st.alias && e.slots[st.out[0]].kind == slotAlias {
			e.slots[st.out[0]].data = st.ins[0]
			continue
		}
		for j, id := range st.out {
			if id < 0 {
				st.outs[j] = nil
				continue
			}
			s := &e.slots[id]
			if s.kind == slotFresh {
				s.data = makeData(s.dt, s.n)
			}
			st.outs[j] = s.data
		}
		if err := runKernel(rc, st, st.ins, st.outs); err != nil {
			e.releaseRun()
			return nil, err
		}
	}
	out := make(map[string]*graph.Tensor, len(e.outputs))
	for i, o := range e.outputs {
		s := &e.slots[o.slot]
		data := s.data
		if s.kind != slotFresh || e.outputSeen(i) {
			data = cloneData(s.dt, data)
		}
		out[o.name] = &graph.Tensor{DType: s.dt, Shape: append([]int(nil), s.shape...), Data: data}
	}
	e.releaseRun()
	return out, nil
}

// outputSeen reports whether graph output i repeats an earlier output's
// value (which then needs its own copy).
func (e *Executor) outputSeen(i int) bool {
	for _, o := range e.outputs[:i] {
		if o.slot == e.outputs[i].slot {
			return true
		}
	}
	return false
}

// bindInputs checks the caller's tensors and points the input slots at
// their data.
func (e *Executor) bindInputs(inputs map[string]*graph.Tensor) error {
	for name := range inputs {
		if _, ok := e.inByKey[name]; !ok {
			return fmt.Errorf("executor: unknown input %q (graph inputs: %s)", name, strings.Join(e.InputNames(), ", "))
		}
	}
	for _, in := range e.inputs {
		s := &e.slots[in.slot]
		t := inputs[in.v.Name]
		if t == nil {
			if in.v.Const == nil {
				return fmt.Errorf("executor: missing input %q (%v[%s])", in.v.Name, in.v.DType, graph.ShapeString(s.shape))
			}
			t = in.v.Const
		}
		if err := checkTensorData(t); err != nil {
			return fmt.Errorf("executor: input %q: %w", in.v.Name, err)
		}
		if t.DType != in.v.DType && !(t.DType == s.dt && isFloatDT(t.DType)) {
			return fmt.Errorf("executor: input %q has dtype %v, want %v", in.v.Name, t.DType, in.v.DType)
		}
		if !slices.Equal(t.Shape, s.shape) {
			return fmt.Errorf("executor: input %q has shape %s, want %s", in.v.Name, graph.ShapeString(t.Shape), graph.ShapeString(s.shape))
		}
		s.data = toExec(t, s.dt).Data
	}
	return nil
}

// releaseRun drops references to caller data so that the executor does not
// keep inputs and outputs alive between runs.
func (e *Executor) releaseRun() {
	for i := range e.slots {
		switch e.slots[i].kind {
		case slotInput, slotFresh, slotAlias:
			e.slots[i].data = nil
		}
	}
	for i := range e.steps {
		clear(e.steps[i].ins)
		clear(e.steps[i].outs)
	}
}
