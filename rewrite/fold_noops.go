package rewrite

import (
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// No-op nodes. Exporters write data movement for the general case that at
// a model's own sizes moves nothing: torchvision's Swin pads each window
// stage to a multiple of the window (zero pads at sizes that divide it)
// and crops back with Slices that keep every element, and inference
// graphs keep their Dropouts. ONNX Runtime runs each such Pad and Slice
// as a copy. dropNoOps removes the nodes that return their first input
// unchanged at every binding: a Pad whose pads are all zero, a Slice with
// unit steps whose output has its input's shape (then it starts at 0 and
// ends at the end on every axis), Identity, and a Dropout in inference
// or of ratio 0 (torchvision's Swin exports those in training mode) whose
// mask nobody reads.

// dropNoOps rewires the readers of every live no-op node of d to its
// input and removes it; it returns the inputs of the removed nodes (for
// removeDead) and how many were removed. A node producing a graph output
// stays.
func (d *draft) dropNoOps() (seeds []*graph.Value, dropped int) {
	for p := range d.slot {
		n := d.slot[p]
		if n == nil || !defaultDomain(n) || !isNoOp(n) {
			continue
		}
		out := n.Outputs[0]
		if slices.Contains(d.outputs, out) || slices.ContainsFunc(n.Outputs[1:], func(o *graph.Value) bool { return o != nil && d.isRead(o) }) {
			continue // a Dropout's mask is not its input
		}
		d.rewire([]*graph.Value{out}, []*graph.Value{n.Inputs[0]})
		d.setSlot(int32(p), nil)
		seeds = append(seeds, n.AllInputs()...)
		dropped++
	}
	return seeds, dropped
}

// isNoOp reports whether n returns its first input unchanged at every
// binding (see dropNoOps).
func isNoOp(n *graph.Node) bool {
	if len(n.Inputs) == 0 || n.Inputs[0] == nil || len(n.Outputs) == 0 || n.Outputs[0] == nil {
		return false
	}
	x, out := n.Inputs[0], n.Outputs[0]
	if x.DType != out.DType {
		return false
	}
	switch n.Op {
	case "Identity":
		return true
	case "Dropout":
		// Inference (no training_mode input, or a constant false one),
		// or a ratio of 0 (no input: the default 0.5).
		return constScalarIs(n.Input(2), 0, true) || constScalarIs(n.Input(1), 0, false)
	case "Pad":
		pads := intsOf(n, 1, "pads")
		return pads != nil && !slices.ContainsFunc(pads, func(v int64) bool { return v != 0 })
	case "Slice":
		if steps := intsOf(n, 4, "steps"); n.Input(4) != nil && (steps == nil || slices.ContainsFunc(steps, func(v int64) bool { return v != 1 })) {
			return false
		}
		in, o := dims(x), dims(out)
		return in != nil && o != nil && slices.Equal(in, o)
	}
	return false
}

// constScalarIs reports whether v is a one-element constant equal to x,
// or absent when absent is set.
func constScalarIs(v *graph.Value, x float64, absent bool) bool {
	if v == nil {
		return absent
	}
	if v.Const == nil {
		return false
	}
	e, err := v.Const.AsFloat64()
	return err == nil && len(e) == 1 && e[0] == x
}

// intsOf returns the integer values of n's input i when it is a constant,
// else of its attribute attr (older opsets), else nil.
func intsOf(n *graph.Node, i int, attr string) []int64 {
	if n.Input(i) != nil {
		v, _ := constInts(n, i)
		return v
	}
	if _, ok := n.Attrs[attr]; ok {
		return attrInts(n, attr)
	}
	return nil
}
