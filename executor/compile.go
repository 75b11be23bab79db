package executor

import (
	"fmt"
	"slices"
	"sort"

	"github.com/xrl-dev/xrl/graph"
)

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
	orig := v
	if !v.ShapeKnown {
		v = &graph.Value{Name: v.Name, Const: v.Const}
		v.SetStatic(v.Const.DType, v.Const.Shape)
	}
	id, err := c.newSlot(v, what)
	if err != nil {
		return 0, err
	}
	c.slotOf[orig] = id
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
	control, recurrent := isControlFlow(n), graph.IsRecurrent(n)
	if !control && !recurrent && (n.IsOpaque() || n.Schema() == nil) {
		return &graph.UnsupportedOpError{Node: n, Runtime: "Go executor"}
	}
	f := kernelFor(n.Domain, n.Op)
	if recurrent {
		f = newRecurrentKernel
	}
	inputs := n.Inputs
	if control {
		opts := c.e.opts
		f = func(ni *nodeInfo) (kernel, error) { return newControlKernel(ni, opts) }
		inputs = n.AllInputs()
	}
	if f == nil {
		return &graph.UnsupportedOpError{Node: n, Runtime: "Go executor"}
	}
	ni := &nodeInfo{node: n, threads: c.e.opts.Threads}
	st := step{node: n}
	foldable := !control
	for _, v := range inputs {
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

// opsWithoutKernel lists schema ops missing from the kernel table (used by
// tests).
func opsWithoutKernel() []string {
	var missing []string
	for _, s := range graph.Schemas() {
		if kernelFor(s.Domain, s.Op) == nil {
			missing = append(missing, s.Op)
		}
	}
	sort.Strings(missing)
	return missing
}
