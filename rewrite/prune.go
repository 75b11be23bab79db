package rewrite

import (
	"fmt"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// PruneDead removes computation whose results are never read: when a
// consumer reads only part of a tensor (a classifier or pooler that
// Gathers the first token, a Slice of some rows), the producers of that
// tensor compute only that part, and so on upwards through the ops that
// work row by row: elementwise ops (with broadcasting), MatMul and Gemm
// (rows of A, columns of B), Softmax, LayerNormalization and reductions
// over other axes, Transpose, reshapes that keep the cut axis intact,
// Slice and Gather. In attention this keeps only the query rows that are
// read while keys and values stay whole, because the key and value
// branches ask for every row.
//
// The demand of a value is the bounding box of what its readers need
// (graph outputs need everything); a node is rebuilt over the demanded box
// of its output, reading the boxes it needs of its inputs (cut with Slice
// from what their producers compute). Rebuilt reshapes get explicit
// shapes. It reports whether anything changed. g must have static inferred
// shapes; it is not modified (the result shares g's unchanged nodes).
// Constants cut by the result are left as Slice nodes for Fold.
func PruneDead(g *graph.Graph) (*graph.Graph, bool, error) {
	if g == nil {
		return nil, false, fmt.Errorf("rewrite: PruneDead: nil graph")
	}
	if !hasDefaultOp(g, "Slice", "Gather") {
		// Only a Slice or a Gather reads part of a tensor; without one
		// every box is whole and nothing is pruned.
		return g, false, nil
	}
	return pruneDead(g)
}

// pruneDead is PruneDead on a graph that may narrow a demand.
func pruneDead(g *graph.Graph) (*graph.Graph, bool, error) {
	demand, err := demandRegions(g)
	if err != nil {
		return nil, false, err
	}
	p := &pruner{g: g, demand: demand, have: map[*graph.Value]*graph.Value{}, names: map[string]bool{}}
	for _, v := range g.Inputs {
		p.names[v.Name] = true
	}
	for _, n := range g.Nodes {
		for _, v := range n.Outputs {
			if v != nil {
				p.names[v.Name] = true
			}
		}
	}
	for _, v := range g.Constants() {
		p.names[v.Name] = true
	}
	for _, n := range g.Nodes {
		if err := p.node(n); err != nil {
			return nil, false, fmt.Errorf("rewrite: PruneDead: %v: %w", n, err)
		}
	}
	if !p.changed {
		return g, false, nil
	}
	out := *g
	out.Nodes = p.nodes
	out.Outputs = make([]*graph.Value, len(g.Outputs))
	for i, v := range g.Outputs {
		out.Outputs[i] = p.value(v)
	}
	if err := out.Sort(); err != nil {
		return nil, false, fmt.Errorf("rewrite: PruneDead: %w", err)
	}
	if err := out.Validate(); err != nil {
		return nil, false, fmt.Errorf("rewrite: PruneDead: %w", err)
	}
	return &out, true, nil
}

// demandRegions computes, in reverse topological order, the box of each
// node output that the rest of the graph reads.
func demandRegions(g *graph.Graph) (map[*graph.Value]region, error) {
	demand := map[*graph.Value]region{}
	for _, v := range g.Outputs {
		s, err := v.StaticShape()
		if err != nil {
			return nil, fmt.Errorf("rewrite: PruneDead: %w", err)
		}
		demand[v] = fullRegion(s)
	}
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		var ins []region
		var out region
		if len(n.Outputs) == 1 && n.Outputs[0] != nil {
			out = demand[n.Outputs[0]]
		}
		if out != nil {
			ins, _ = needs(n, out)
		}
		if ins == nil {
			// Several outputs, or an output nobody reads: all inputs whole.
			ins = make([]region, len(n.Inputs))
			for j, v := range n.Inputs {
				if v != nil {
					s, err := v.StaticShape()
					if err != nil {
						return nil, fmt.Errorf("rewrite: PruneDead: %v: %w", n, err)
					}
					ins[j] = fullRegion(s)
				}
			}
		}
		for j, v := range n.Inputs {
			if v != nil {
				demand[v] = demand[v].union(ins[j])
			}
		}
		for _, v := range n.Implicit {
			s, err := v.StaticShape()
			if err == nil {
				demand[v] = demand[v].union(fullRegion(s))
			}
		}
	}
	return demand, nil
}

// pruner rebuilds a graph node by node over the demanded boxes.
type pruner struct {
	g       *graph.Graph
	demand  map[*graph.Value]region
	have    map[*graph.Value]*graph.Value // original value -> value computing its demanded box
	names   map[string]bool
	nodes   []*graph.Node
	changed bool
}

// value returns the value that holds v's demanded box.
func (p *pruner) value(v *graph.Value) *graph.Value {
	if w, ok := p.have[v]; ok {
		return w
	}
	return v
}

// avail returns the box of v that p.value(v) holds.
func (p *pruner) avail(v *graph.Value) region {
	s, _ := v.StaticShape()
	if _, ok := p.have[v]; ok {
		return p.demand[v]
	}
	return fullRegion(s)
}

// node copies n, or rebuilds it over its output's demanded box.
func (p *pruner) node(n *graph.Node) error {
	shrunkIn := false
	for _, v := range n.Inputs {
		if v != nil {
			if _, ok := p.have[v]; ok {
				shrunkIn = true
			}
		}
	}
	var out region
	var outShape []int
	if len(n.Outputs) == 1 && n.Outputs[0] != nil {
		outShape, _ = n.Outputs[0].StaticShape()
		out = p.demand[n.Outputs[0]]
	}
	cut := out != nil && !out.isFull(outShape)
	var ins []region
	ok := false
	if out != nil {
		ins, ok = needs(n, out)
	}
	if !ok || (!cut && !shrunkIn) {
		if shrunkIn {
			return fmt.Errorf("internal: an input was cut but the op is not understood")
		}
		p.nodes = append(p.nodes, n)
		return nil
	}
	p.changed = true
	if n.Op == "Slice" || n.Op == "Gather" {
		// A selector becomes a cut of what its input holds, reshaped to
		// the (possibly lower-rank) output box.
		x := p.cutTo(n.Inputs[0], ins[0])
		p.finish(n, x, out, outShape, cut)
		return nil
	}
	c := &graph.Node{Name: p.unique(n.Name + "_rows"), Op: n.Op, Domain: n.Domain, Attrs: n.Attrs.Clone(), Doc: n.Doc}
	c.Inputs = make([]*graph.Value, len(n.Inputs))
	for i, v := range n.Inputs {
		switch {
		case v == nil:
		case isParamInput(n, i):
			c.Inputs[i] = v
		default:
			c.Inputs[i] = p.cutTo(v, ins[i])
		}
	}
	switch n.Op {
	case "Reshape", "Squeeze", "Unsqueeze", "Flatten":
		c.Op, c.Attrs = "Reshape", nil
		c.Inputs = []*graph.Value{c.Inputs[0], p.intConst(n.Name+"_shape", sizesInt64(out.sizes()))}
	}
	c.Outputs = []*graph.Value{p.newOutput(n.Outputs[0], out, outShape, cut)}
	p.nodes = append(p.nodes, c)
	if cut {
		p.have[n.Outputs[0]] = c.Outputs[0]
	}
	return nil
}

// finish emits x (holding box out of n's output) as n's output, through a
// Reshape when its shape is not out's extent.
func (p *pruner) finish(n *graph.Node, x *graph.Value, out region, outShape []int, cut bool) {
	want := out.sizes()
	if xs, _ := x.StaticShape(); slices.Equal(xs, want) && cut {
		p.have[n.Outputs[0]] = x
		return
	}
	r := &graph.Node{Name: p.unique(n.Name + "_rows"), Op: "Reshape",
		Inputs: []*graph.Value{x, p.intConst(n.Name+"_shape", sizesInt64(want))}}
	r.Outputs = []*graph.Value{p.newOutput(n.Outputs[0], out, outShape, cut)}
	p.nodes = append(p.nodes, r)
	if cut {
		p.have[n.Outputs[0]] = r.Outputs[0]
	}
}

// newOutput returns the output value of a rebuilt node: the original value
// when the whole output is computed, else a new value of the box's shape.
func (p *pruner) newOutput(v *graph.Value, out region, shape []int, cut bool) *graph.Value {
	if !cut {
		return v
	}
	w := &graph.Value{Name: p.unique(v.Name + "_rows"), Doc: v.Doc}
	w.SetStatic(v.DType, out.sizes())
	return w
}

// cutTo returns a value holding box want of original value v, slicing what
// p holds of v when that is more.
func (p *pruner) cutTo(v *graph.Value, want region) *graph.Value {
	have := p.avail(v)
	x := p.value(v)
	var starts, ends, axes []int64
	for a := range want {
		if want[a] != have[a] {
			starts = append(starts, int64(want[a].lo-have[a].lo))
			ends = append(ends, int64(want[a].hi-have[a].lo))
			axes = append(axes, int64(a))
		}
	}
	if len(axes) == 0 {
		return x
	}
	s := &graph.Node{Name: p.unique(v.Name + "_cut"), Op: "Slice", Inputs: []*graph.Value{x,
		p.intConst(v.Name+"_starts", starts), p.intConst(v.Name+"_ends", ends), p.intConst(v.Name+"_axes", axes)}}
	o := &graph.Value{Name: p.unique(v.Name + "_cut")}
	o.SetStatic(v.DType, want.sizes())
	s.Outputs = []*graph.Value{o}
	p.nodes = append(p.nodes, s)
	return o
}

// intConst returns a new int64 constant.
func (p *pruner) intConst(base string, data []int64) *graph.Value {
	v := &graph.Value{Name: p.unique(base), Const: graph.FromInt64(data, len(data))}
	v.SetStatic(graph.Int64, []int{len(data)})
	return v
}

// unique returns base, or base with a numeric suffix, unused in the graph.
func (p *pruner) unique(base string) string {
	return graph.UniqueName(p.names, base)
}

// isParamInput reports whether input i of n is a Param input (shape,
// axes, bounds) that is kept as it is.
func isParamInput(n *graph.Node, i int) bool {
	sc := n.Schema()
	if sc == nil {
		return false
	}
	for _, j := range sc.ParamInputs() {
		if j == i {
			return true
		}
	}
	return false
}

func sizesInt64(s []int) []int64 {
	out := make([]int64, len(s))
	for i, d := range s {
		out[i] = int64(d)
	}
	return out
}
