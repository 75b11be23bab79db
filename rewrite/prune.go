package rewrite

import (
	"fmt"
	"math"

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
// branches ask for every row; when one query row is left, its products
// with the keys and values are computed from the layer's input without
// projecting the keys and values of every row (oneQueryAttention).
//
// The demand of a value is the bounding box of what its readers need
// (graph outputs need everything); a node is rebuilt over the demanded box
// of its output, reading the boxes it needs of its inputs (cut with Slice
// from what their producers compute). Rebuilt reshapes get explicit
// shapes. On a graph bound with symbols, boxes are expressions of the
// symbols (the first token of every sequence of a batch is rows [0,
// batch) of a [batch*seq, D] value) and every shape and bound the result
// holds is valid at every binding (shapeSource). It reports whether
// anything changed. g must have static inferred shapes; it is not
// modified (the result shares g's unchanged nodes). Constants cut by the
// result are left as Slice nodes for Fold.
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
	out, changed, err := pruneRows(g)
	if err != nil {
		return nil, false, err
	}
	// A layer cut to one query row no longer projects its keys and
	// values for that row (prune_query.go).
	q, one, err := oneQueryAttention(out)
	if err != nil {
		return nil, false, err
	}
	return q, changed || one, nil
}

// pruneRows is pruneDead without oneQueryAttention.
func pruneRows(g *graph.Graph) (*graph.Graph, bool, error) {
	demand, err := demandRegions(g)
	if err != nil {
		return nil, false, err
	}
	// A packed projection whose column Slices need different rows is
	// split first, so that each part is cut to its own rows.
	s, split, err := splitUneven(g, demand)
	if err != nil {
		return nil, false, err
	}
	if split {
		g = s
		if demand, err = demandRegions(g); err != nil {
			return nil, false, err
		}
	}
	return pruneWith(g, demand, split)
}

// pruneWhole is pruneDead without splitting packed projections.
func pruneWhole(g *graph.Graph) (*graph.Graph, bool, error) {
	demand, err := demandRegions(g)
	if err != nil {
		return nil, false, err
	}
	return pruneWith(g, demand, false)
}

// pruneWith rebuilds g over the demanded boxes; changed reports a change
// made before (a split).
func pruneWith(g *graph.Graph, demand map[*graph.Value]region, changed bool) (*graph.Graph, bool, error) {
	p := &pruner{g: g, demand: demand, have: map[*graph.Value]*graph.Value{}, names: map[string]bool{}, changed: changed}
	p.src = newShapeSource(g, p.names, func(n *graph.Node) { p.nodes = append(p.nodes, n) })
	for _, v := range g.Inputs {
		p.names[v.Name] = true
	}
	for _, n := range g.Nodes {
		p.names[n.Name] = true // node names share the namespace: ONNX Runtime rejects duplicates
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
	whole := func(v *graph.Value) (region, error) {
		s := dims(v)
		if s == nil {
			return nil, fmt.Errorf("rewrite: PruneDead: value %q has no static shape", v.Name)
		}
		return fullRegion(s), nil
	}
	for _, v := range g.Outputs {
		r, err := whole(v)
		if err != nil {
			return nil, err
		}
		demand[v] = r
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
					r, err := whole(v)
					if err != nil {
						return nil, fmt.Errorf("%v: %w", n, err)
					}
					ins[j] = r
				}
			}
		}
		for j, v := range n.Inputs {
			if v != nil {
				demand[v] = demand[v].union(ins[j], v.Shape)
			}
		}
		for _, v := range n.Implicit {
			if r, err := whole(v); err == nil {
				demand[v] = demand[v].union(r, v.Shape)
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
	src     *shapeSource
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
	if _, ok := p.have[v]; ok {
		return p.demand[v]
	}
	return fullRegion(v.Shape)
}

// node copies n, or rebuilds it over its output's demanded box.
func (p *pruner) node(n *graph.Node) error {
	if isShapeOp(n) {
		if _, cutIn := p.have[n.Inputs[0]]; cutIn {
			// It read a value now computed only in part: from the symbols.
			p.changed = true
			return p.src.replaceShape(n)
		}
		p.nodes = append(p.nodes, n)
		return nil
	}
	shrunkIn := false
	for _, v := range n.Inputs {
		if v != nil {
			if _, ok := p.have[v]; ok {
				shrunkIn = true
			}
		}
	}
	var out region
	var outShape graph.Shape
	if len(n.Outputs) == 1 && n.Outputs[0] != nil {
		outShape = dims(n.Outputs[0])
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
		x, err := p.cutTo(n.Inputs[0], ins[0])
		if err != nil {
			return err
		}
		return p.finish(n, x, out, cut)
	}
	c := &graph.Node{Name: p.unique(n.Name + "_rows"), Op: n.Op, Domain: n.Domain, Attrs: n.Attrs.Clone(), Doc: n.Doc}
	c.Inputs = make([]*graph.Value, len(n.Inputs))
	for i, v := range n.Inputs {
		switch {
		case v == nil:
		case isParamInput(n, i):
			c.Inputs[i] = v
		default:
			x, err := p.cutTo(v, ins[i])
			if err != nil {
				return err
			}
			c.Inputs[i] = x
		}
	}
	switch n.Op {
	case "Reshape", "Squeeze", "Unsqueeze", "Flatten":
		t, err := p.src.reshapeTo(c.Inputs[0], out.sizes(), n.Name+"_shape")
		if err != nil {
			return err
		}
		c.Op, c.Attrs = "Reshape", nil
		c.Inputs = []*graph.Value{c.Inputs[0], t}
	}
	if err := p.output(c, n.Outputs[0], out, cut); err != nil {
		return err
	}
	p.nodes = append(p.nodes, c)
	return nil
}

// finish emits x (holding box out of n's output) as n's output, through a
// Reshape when its shape is not out's extent.
func (p *pruner) finish(n *graph.Node, x *graph.Value, out region, cut bool) error {
	want := out.sizes()
	if x.Shape.Equal(want) && cut {
		p.have[n.Outputs[0]] = x
		return nil
	}
	r := &graph.Node{Name: p.unique(n.Name + "_rows"), Op: "Reshape"}
	t, err := p.src.reshapeTo(x, want, n.Name+"_shape")
	if err != nil {
		return err
	}
	r.Inputs = []*graph.Value{x, t}
	if err := p.output(r, n.Outputs[0], out, cut); err != nil {
		return err
	}
	p.nodes = append(p.nodes, r)
	return nil
}

// output gives the rebuilt node c its output: the original value v when
// the whole of it is computed, else a new value of the box's shape, which
// then holds v's demanded box. Either is checked by inference.
func (p *pruner) output(c *graph.Node, v *graph.Value, out region, cut bool) error {
	if !cut {
		return inferInto(c, v)
	}
	c.Outputs = []*graph.Value{{Name: p.unique(v.Name + "_rows"), Doc: v.Doc}}
	if err := inferAs(c, out.sizes()); err != nil {
		return err
	}
	p.have[v] = c.Outputs[0]
	return nil
}

// cutTo returns a value holding box want of original value v, slicing what
// p holds of v when that is more.
func (p *pruner) cutTo(v *graph.Value, want region) (*graph.Value, error) {
	have := p.avail(v)
	x := p.value(v)
	var starts, ends []graph.Dim
	var axes []int64
	for a := range want {
		if want[a] == have[a] {
			continue
		}
		st := dimSub(want[a].lo, have[a].lo)
		en := dimSub(want[a].hi, have[a].lo)
		if en.Param != "" && want[a].hi == have[a].hi {
			en = fixedDim(math.MaxInt64) // to the end, whatever its size
		}
		starts, ends, axes = append(starts, st), append(ends, en), append(axes, int64(a))
	}
	if len(axes) == 0 {
		return x, nil
	}
	s := &graph.Node{Name: p.unique(v.Name + "_cut"), Op: "Slice"}
	st, err := p.src.vector(starts, v.Name+"_starts")
	if err != nil {
		return nil, err
	}
	en, err := p.src.vector(ends, v.Name+"_ends")
	if err != nil {
		return nil, err
	}
	s.Inputs = []*graph.Value{x, st, en, p.intConst(v.Name+"_axes", axes)}
	s.Outputs = []*graph.Value{{Name: p.unique(v.Name + "_cut")}}
	if err := inferAs(s, want.sizes()); err != nil {
		return nil, err
	}
	p.nodes = append(p.nodes, s)
	return s.Outputs[0], nil
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
