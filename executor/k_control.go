package executor

import (
	"fmt"
	"unsafe"

	"github.com/xrl-dev/xrl/graph"
)

// isControlFlow reports whether n is an If, Loop or Scan whose bodies
// were decoded and have static shapes, which the executor runs by
// executing the body graphs.
func isControlFlow(n *graph.Node) bool {
	if !n.IsOpaque() || len(n.Bodies) == 0 || (n.Domain != "" && n.Domain != "ai.onnx") {
		return false
	}
	switch n.Op {
	case "If", "Loop", "Scan":
	default:
		return false
	}
	for _, b := range n.Bodies {
		if !b.ShapesOK {
			return false
		}
	}
	return true
}

// controlKernel runs If, Loop and Scan: each body is compiled into an
// executor of its own (same precision) that is run once per branch taken
// or iteration, on the body's formal inputs and the outer-scope values it
// reads (the node's implicit inputs, which follow its inputs in ins).
type controlKernel struct {
	n      *graph.Node
	ni     *nodeInfo
	bodies []*Executor
	nIn    int // len(n.Inputs); implicit inputs follow
	opts   ExecOptions
}

func newControlKernel(ni *nodeInfo, opts ExecOptions) (kernel, error) {
	k := &controlKernel{n: ni.node, ni: ni, nIn: len(ni.node.Inputs), opts: opts}
	for _, b := range ni.node.Bodies {
		e, err := NewExecutor(b.Graph, opts)
		if err != nil {
			return nil, fmt.Errorf("body %s: %w", b.Attr, err)
		}
		k.bodies = append(k.bodies, e)
	}
	for i, o := range ni.outs {
		if o == nil {
			return nil, fmt.Errorf("output %d is omitted, which the Go executor does not support for %s", i, ni.node.Op)
		}
	}
	return k, nil
}

// tensorIn returns node input i (inputs, then implicit inputs) as a
// tensor over ins[i].
func (k *controlKernel) tensorIn(ins []any, i int) *graph.Tensor {
	vi := k.ni.ins[i]
	if vi == nil || ins[i] == nil {
		return nil
	}
	return &graph.Tensor{DType: vi.dt, Shape: vi.shape, Data: ins[i]}
}

// runBody runs body j on its formal inputs and the outer values it reads,
// returning its outputs in order.
func (k *controlKernel) runBody(j int, ins []any, formal []*graph.Tensor) ([]*graph.Tensor, error) {
	b := k.n.Bodies[j]
	feed := map[string]*graph.Tensor{}
	for i, v := range b.FormalInputs() {
		feed[v.Name] = formal[i]
	}
	for i, v := range b.OuterInputs() {
		feed[v.Name] = k.tensorIn(ins, k.nIn+b.Outer[i])
	}
	res, err := k.bodies[j].Run(feed)
	if err != nil {
		return nil, fmt.Errorf("body %s: %w", b.Attr, err)
	}
	out := make([]*graph.Tensor, len(b.Graph.Outputs))
	for i, v := range b.Graph.Outputs {
		out[i] = res[v.Name]
	}
	return out, nil
}

// setOut copies t into output i after checking its size.
func (k *controlKernel) setOut(outs []any, i int, t *graph.Tensor) error {
	if want := k.ni.outs[i].n; t.Len() != want {
		return fmt.Errorf("output %d has %d elements at run time, but its static shape %v holds %d", i, t.Len(), k.ni.outs[i].shape, want)
	}
	copyData(outs[i], t.Data)
	return nil
}

func (k *controlKernel) run(_ *runCtx, ins, outs []any) error {
	switch k.n.Op {
	case "If":
		return k.runIf(ins, outs)
	case "Loop":
		return k.runLoop(ins, outs)
	}
	return k.runScan(ins, outs)
}

func (k *controlKernel) runIf(ins, outs []any) error {
	cond, ok := ins[0].([]bool)
	if !ok || len(cond) != 1 {
		return fmt.Errorf("If: the condition must be one bool")
	}
	if k.opts.Branch != nil {
		k.opts.Branch(k.n, cond[0])
	}
	j := 1
	if cond[0] {
		j = 0
	}
	if k.n.Bodies[0].Attr != "then_branch" {
		j = 1 - j
	}
	res, err := k.runBody(j, ins, nil)
	if err != nil {
		return err
	}
	for i := range outs {
		if err := k.setOut(outs, i, res[i]); err != nil {
			return err
		}
	}
	return nil
}

func (k *controlKernel) runLoop(ins, outs []any) error {
	trip, hasTrip := int64(0), false
	if m := k.tensorIn(ins, 0); m != nil {
		trip, hasTrip = m.Int64s()[0], true
	}
	cond := true
	if c := k.tensorIn(ins, 1); c != nil {
		cond = c.Data.([]bool)[0]
	}
	carried := make([]*graph.Tensor, k.nIn-2)
	for i := range carried {
		carried[i] = k.tensorIn(ins, 2+i)
	}
	scans := make([][]*graph.Tensor, len(outs)-len(carried))
	for it := int64(0); (!hasTrip || it < trip) && cond; it++ {
		if len(scans) > 0 && it >= int64(k.ni.outs[len(carried)].shape[0]) {
			return fmt.Errorf("Loop runs more than the %d iterations its scan outputs' static shape holds", k.ni.outs[len(carried)].shape[0])
		}
		formal := append([]*graph.Tensor{graph.FromInt64([]int64{it}), {DType: graph.Bool, Shape: []int{}, Data: []bool{true}}}, carried...)
		res, err := k.runBody(0, ins, formal)
		if err != nil {
			return fmt.Errorf("iteration %d: %w", it, err)
		}
		cond = res[0].Data.([]bool)[0]
		copy(carried, res[1:1+len(carried)])
		for j := range scans {
			scans[j] = append(scans[j], res[1+len(carried)+j])
		}
	}
	for i, t := range carried {
		if err := k.setOut(outs, i, t); err != nil {
			return err
		}
	}
	for j, ts := range scans {
		if err := k.stack(outs, len(carried)+j, ts, 0, false); err != nil {
			return err
		}
	}
	return nil
}

func (k *controlKernel) runScan(ins, outs []any) error {
	m := int(k.n.AttrInt("num_scan_inputs"))
	states := k.nIn - m
	inAxes, outAxes := k.n.AttrInts("scan_input_axes"), k.n.AttrInts("scan_output_axes")
	inDirs, outDirs := k.n.AttrInts("scan_input_directions"), k.n.AttrInts("scan_output_directions")
	at := func(list []int64, i int) int64 {
		if i < len(list) {
			return list[i]
		}
		return 0
	}
	carried := make([]*graph.Tensor, states)
	for i := range carried {
		carried[i] = k.tensorIn(ins, i)
	}
	seq := -1
	scanIn := make([]*graph.Tensor, m)
	axes := make([]int, m)
	for j := range scanIn {
		scanIn[j] = k.tensorIn(ins, states+j)
		ax, err := graph.NormAxis(at(inAxes, j), len(scanIn[j].Shape))
		if err != nil {
			return err
		}
		axes[j], seq = ax, scanIn[j].Shape[ax]
	}
	scans := make([][]*graph.Tensor, len(outs)-states)
	for t := 0; t < seq; t++ {
		formal := append([]*graph.Tensor(nil), carried...)
		for j, x := range scanIn {
			pos := t
			if at(inDirs, j) == 1 {
				pos = seq - 1 - t
			}
			formal = append(formal, sliceAxis(x, axes[j], pos))
		}
		res, err := k.runBody(0, ins, formal)
		if err != nil {
			return fmt.Errorf("iteration %d: %w", t, err)
		}
		copy(carried, res[:states])
		for j := range scans {
			scans[j] = append(scans[j], res[states+j])
		}
	}
	for i, t := range carried {
		if err := k.setOut(outs, i, t); err != nil {
			return err
		}
	}
	for j, ts := range scans {
		if len(ts) == 0 {
			continue
		}
		ax, err := graph.NormAxis(at(outAxes, j), len(ts[0].Shape)+1)
		if err != nil {
			return err
		}
		if err := k.stack(outs, states+j, ts, ax, at(outDirs, j) == 1); err != nil {
			return err
		}
	}
	return nil
}

// stack writes the per-iteration tensors ts, stacked along a new axis
// (reversed when reverse is set), into output i.
func (k *controlKernel) stack(outs []any, i int, ts []*graph.Tensor, axis int, reverse bool) error {
	per := 0
	if len(ts) > 0 {
		per = ts[0].Len()
	}
	if want := k.ni.outs[i].n; len(ts)*per != want {
		return fmt.Errorf("scan output %d has %d elements at run time (%d iterations), but its static shape %v holds %d", i, len(ts)*per, len(ts), k.ni.outs[i].shape, want)
	}
	if len(ts) == 0 {
		return nil
	}
	outer := graph.NumElements(ts[0].Shape[:axis])
	inner := per / max(outer, 1)
	for t, x := range ts {
		pos := t
		if reverse {
			pos = len(ts) - 1 - t
		}
		for o := 0; o < outer; o++ {
			copyElems(outs[i], (o*len(ts)+pos)*inner, x.Data, o*inner, inner)
		}
	}
	return nil
}

// sliceAxis returns x[..., pos, ...] along axis (the axis removed).
func sliceAxis(x *graph.Tensor, axis, pos int) *graph.Tensor {
	shape := append(append([]int(nil), x.Shape[:axis]...), x.Shape[axis+1:]...)
	outer := graph.NumElements(x.Shape[:axis])
	inner := graph.NumElements(x.Shape[axis+1:])
	n := x.Shape[axis]
	data := makeData(x.DType, outer*inner)
	for o := 0; o < outer; o++ {
		copyElems(data, o*inner, x.Data, (o*n+pos)*inner, inner)
	}
	return &graph.Tensor{DType: x.DType, Shape: shape, Data: data}
}

// copyElems copies n elements from src[so:] to dst[do:] (same types).
func copyElems(dst any, do int, src any, so, n int) {
	if n == 0 {
		return
	}
	pd, nd, sz := rawPtr(dst)
	ps, ns, _ := rawPtr(src)
	if do < 0 || so < 0 || do+n > nd || so+n > ns {
		panic(fmt.Sprintf("executor: copying %d elements from %d of %d to %d of %d", n, so, ns, do, nd))
	}
	d := unsafe.Slice((*byte)(unsafe.Add(pd, do*sz)), n*sz)
	s := unsafe.Slice((*byte)(unsafe.Add(ps, so*sz)), n*sz)
	copy(d, s)
}
