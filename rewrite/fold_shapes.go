package rewrite

import (
	"maps"

	"github.com/xrl-dev/xrl/graph"
)

// Shape arguments of dynamic exports. An exporter tracing a model with
// dynamic axes writes every Reshape and Expand with a shape computed at
// run time: Shape, Gather, Unsqueeze and Concat (and, for expand(-1),
// Equal, Where and ConstantOfShape), a dozen small kernels per head
// split or merge that ONNX Runtime runs at every call. On a graph bound
// with graph.BindOptions.KeepSymbols the output shape of such a node is
// known for every binding, and most such shapes can be said by a
// constant: Reshape's 0 copies the input dimension at the same position
// and -1 stands for one dimension left, Expand's 1 keeps the input's
// dimension. constShapeArgs gives those nodes that constant; the shape
// computation then has no reader left and removeDead drops it. A node
// whose shape cannot be said so (two symbolic dimensions that are not
// copies, a dimension of 0, Reshape with allowzero) keeps its input.

// constShapeArgs replaces the computed shape inputs of the live Reshape
// and Expand nodes of d by constants where one says the same shape at
// every binding; it returns the inputs replaced (for removeDead) and how
// many.
func (d *draft) constShapeArgs() (seeds []*graph.Value, replaced int) {
	var names map[string]bool
	for p := range d.slot {
		n := d.slot[p]
		if n == nil || !defaultDomain(n) || len(n.Inputs) != 2 || len(n.Outputs) != 1 {
			continue
		}
		x, shape, out := n.Inputs[0], n.Inputs[1], n.Outputs[0]
		if x == nil || shape == nil || shape.Const != nil || out == nil {
			continue
		}
		var spec []int64
		switch n.Op {
		case "Reshape":
			if attrInt(n, "allowzero", 0) != 0 {
				continue
			}
			spec = reshapeSpec(dims(x), dims(out))
		case "Expand":
			spec = expandSpec(dims(x), dims(out))
		}
		if spec == nil {
			continue
		}
		if names == nil {
			names = maps.Clone(d.gx.usedNames())
		}
		c := &graph.Value{Name: graph.UniqueName(names, shape.Name+"_const"), Const: graph.FromInt64(spec, len(spec))}
		c.SetStatic(graph.Int64, []int{len(spec)})
		d.addConst(c)
		d.private(int32(p)).Inputs[1] = c
		seeds = append(seeds, shape)
		replaced++
	}
	return seeds, replaced
}

// reshapeSpec returns reshapeConstant's shape for a Reshape of a value of
// shape in to want, or nil when there is none (or when either shape is
// unknown, or both are fixed: folding handles those).
func reshapeSpec(in, want graph.Shape) []int64 {
	if in == nil || want == nil || want.Fixed() && in.Fixed() {
		return nil
	}
	spec, err := reshapeConstant(in, want)
	if err != nil {
		return nil
	}
	return spec
}

// expandSpec returns a constant shape input that expands a value of shape
// in to want at every binding: 1 where want keeps in's dimension (aligned
// from the right), the size where want's dimension is fixed. It returns
// nil when a symbolic dimension of want is not in's, or a shape is
// unknown or wholly fixed.
func expandSpec(in, want graph.Shape) []int64 {
	if in == nil || want == nil || len(want) < len(in) || want.Fixed() && in.Fixed() {
		return nil
	}
	spec := make([]int64, len(want))
	lead := len(want) - len(in)
	for i, d := range want {
		switch {
		case i >= lead && in[i-lead] == d:
			spec[i] = 1
		case d.Param == "" && d.Value > 0:
			spec[i] = d.Value
		default:
			return nil
		}
	}
	return spec
}
