package runtime

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/xrl-dev/xrl/graph"
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
	e.plan()
	return e, nil
}

// compiler holds compile-time state.
type compiler struct {
	e      *Executor
	slotOf map[*graph.Value]int
}

// newSlot adds a slot for v after checking its shape and dtype.
func (c *compiler) newSlot(v *graph.Value, what string) (int, error) {
	shape, err := v.StaticShape()
	if err != nil {
		return 0, fmt.Errorf("executor: %s: %w (run InferShapes first)", what, err)
	}
	if !SupportsDType(v.DType) {
		return 0, fmt.Errorf("executor: %s: value %q has dtype %v, which the Go executor does not support", what, v.Name, v.DType)
	}
	s := slot{v: v, dt: c.e.opts.execDType(v.DType), shape: shape, n: graph.NumElements(shape), buf: -1, lastUse: -1}
	c.e.slots = append(c.e.slots, s)
	id := len(c.e.slots) - 1
	c.slotOf[v] = id
	return id, nil
}

// constSlot returns the slot of constant v, creating it on first use.
func (c *compiler) constSlot(v *graph.Value, what string) (int, error) {
	if id, ok := c.slotOf[v]; ok {
		return id, nil
	}
	if err := checkTensorData(v.Const); err != nil {
		return 0, fmt.Errorf("executor: %s: constant %q: %w", what, v.Name, err)
	}
	if !v.ShapeKnown {
		v = &graph.Value{Name: v.Name, Const: v.Const}
		v.SetStatic(v.Const.DType, v.Const.Shape)
	}
	id, err := c.newSlot(v, what)
	if err != nil {
		return 0, err
	}
	s := &c.e.slots[id]
	if !slices.Equal(s.shape, v.Const.Shape) || v.DType != v.Const.DType {
		return 0, fmt.Errorf("executor: %s: constant %q holds %v but the value is declared %v[%s]", what, v.Name, v.Const, v.DType, graph.ShapeString(s.shape))
	}
	s.kind = slotConst
	s.data = toExec(v.Const, s.dt).Data
	return id, nil
}

func (c *compiler) addInputs(g *graph.Graph) error {
	for _, v := range g.Inputs {
		if v == nil {
			return fmt.Errorf("executor: graph has a nil input")
		}
		if _, dup := c.e.inByKey[v.Name]; dup {
			return fmt.Errorf("executor: graph input %q is listed twice", v.Name)
		}
		if v.Const != nil {
			if err := checkTensorData(v.Const); err != nil {
				return fmt.Errorf("executor: default value of input %q: %w", v.Name, err)
			}
		}
		id, err := c.newSlot(v, fmt.Sprintf("graph input %q", v.Name))
		if err != nil {
			return err
		}
		c.e.slots[id].kind = slotInput
		c.e.inByKey[v.Name] = len(c.e.inputs)
		c.e.inputs = append(c.e.inputs, inputSpec{v: v, slot: id})
	}
	return nil
}

// valueSlot returns the slot of a node input.
func (c *compiler) valueSlot(n *graph.Node, v *graph.Value) (int, error) {
	if id, ok := c.slotOf[v]; ok {
		return id, nil
	}
	if v.Const != nil {
		return c.constSlot(v, n.String())
	}
	return 0, fmt.Errorf("executor: %v: input %q is neither a graph input, a constant nor the output of an earlier node", n, v.Name)
}

// addNode compiles n into a step, or folds it into constants when every
// input is constant.
func (c *compiler) addNode(n *graph.Node) error {
	if n.IsOpaque() || n.Schema() == nil {
		return fmt.Errorf("%v: op is not supported by the Go executor", n)
	}
	f := kernelTable[n.Op]
	if f == nil || (n.Domain != "" && n.Domain != "ai.onnx") {
		return fmt.Errorf("%v: op is not supported by the Go executor", n)
	}
	ni := &nodeInfo{node: n, threads: c.e.opts.Threads}
	st := step{node: n}
	foldable := true
	for _, v := range n.Inputs {
		if v == nil {
			ni.ins = append(ni.ins, nil)
			st.in = append(st.in, -1)
			continue
		}
		id, err := c.valueSlot(n, v)
		if err != nil {
			return err
		}
		s := &c.e.slots[id]
		vi := &valInfo{v: v, dt: s.dt, shape: s.shape, n: s.n}
		if s.kind == slotConst {
			vi.value = &graph.Tensor{DType: s.dt, Shape: s.shape, Data: s.data}
		} else {
			foldable = false
			if v.Known != nil && checkTensorData(v.Known) == nil && slices.Equal(v.Known.Shape, s.shape) {
				vi.value = toExec(v.Known, s.dt)
			}
		}
		ni.ins = append(ni.ins, vi)
		st.in = append(st.in, id)
	}
	for _, v := range n.Outputs {
		if v == nil {
			ni.outs = append(ni.outs, nil)
			st.out = append(st.out, -1)
			continue
		}
		if _, dup := c.slotOf[v]; dup {
			return fmt.Errorf("executor: %v: output %q is produced twice", n, v.Name)
		}
		id, err := c.newSlot(v, n.String())
		if err != nil {
			return err
		}
		s := &c.e.slots[id]
		ni.outs = append(ni.outs, &valInfo{v: v, dt: s.dt, shape: s.shape, n: s.n})
		st.out = append(st.out, id)
	}
	k, err := f(ni)
	if err != nil {
		return fmt.Errorf("%v: %w", n, err)
	}
	st.k = k
	if _, ok := k.(aliasKernel); ok {
		st.alias = true
	}
	if foldable || n.Op == "Shape" || n.Op == "Constant" {
		return c.fold(&st)
	}
	st.ins = make([]any, len(st.in))
	st.outs = make([]any, len(st.out))
	c.e.steps = append(c.e.steps, st)
	return nil
}

// fold runs a node whose inputs are all constant at compile time and makes
// its outputs constants.
func (c *compiler) fold(st *step) error {
	ins := make([]any, len(st.in))
	for i, id := range st.in {
		if id >= 0 {
			ins[i] = c.e.slots[id].data
		}
	}
	outs := make([]any, len(st.out))
	for i, id := range st.out {
		if id >= 0 {
			s := &c.e.slots[id]
			outs[i] = makeData(s.dt, s.n)
		}
	}
	rc := &runCtx{threads: c.e.opts.Threads}
	if sc, ok := st.k.(scratcher); ok {
		rc.scratch = make([]uint64, words8(sc.scratchBytes()))
	}
	if err := runKernel(rc, st, ins, outs); err != nil {
		return err
	}
	for i, id := range st.out {
		if id >= 0 {
			c.e.slots[id].kind = slotConst
			c.e.slots[id].data = outs[i]
		}
	}
	return nil
}

func (c *compiler) addOutputs(g *graph.Graph) error {
	for _, v := range g.Outputs {
		if v == nil {
			return fmt.Errorf("executor: graph has a nil output")
		}
		id, ok := c.slotOf[v]
		if !ok {
			if v.Const == nil {
				return fmt.Errorf("executor: graph output %q is not produced by any node", v.Name)
			}
			var err error
			if id, err = c.constSlot(v, fmt.Sprintf("graph output %q", v.Name)); err != nil {
				return err
			}
		}
		c.e.slots[id].isOutput = true
		c.e.outputs = append(c.e.outputs, outputSpec{name: v.Name, slot: id})
	}
	return nil
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
	rc := &runCtx{threads: e.opts.Threads, scratch: e.scratch}
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
	taken := make(map[int]bool, len(e.outputs))
	for _, o := range e.outputs {
		s := &e.slots[o.slot]
		data := s.data
		if s.kind != slotFresh || taken[o.slot] {
			data = cloneData(s.dt, data)
		}
		taken[o.slot] = true
		out[o.name] = &graph.Tensor{DType: s.dt, Shape: append([]int(nil), s.shape...), Data: data}
	}
	e.releaseRun()
	return out, nil
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

// opsWithoutKernel lists schema ops missing from the kernel table (used by
// tests).
func opsWithoutKernel() []string {
	var missing []string
	for _, s := range graph.Schemas() {
		if kernelTable[s.Op] == nil {
			missing = append(missing, s.Op)
		}
	}
	sort.Strings(missing)
	return missing
}
