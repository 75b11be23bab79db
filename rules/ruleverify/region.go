package ruleverify

import (
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// RegionMaxShare is the largest share of the rewritten graph's nodes that
// a check runs on its own (Reference.Regions); a rewrite that changed more
// is checked on the whole graphs. On ViT-B/16 the fusion passes change 36
// and 48 of 423 and 267 nodes.
const RegionMaxShare = 0.5

// changed is what a rewrite changed: the nodes of a that b lacks and the
// nodes of b that a lacks, each as a graph from the values they read (the
// boundary's inputs, left as they were) to the values read after them
// (the boundary's outputs, which both compute).
type changed struct {
	// a and b are the changed nodes of each graph, as graphs whose inputs
	// are the values they read and whose outputs are the boundary's.
	a, b *graph.Graph
	// reads names the values of a that either side reads and neither
	// computes: graph inputs and outputs of the nodes left as they were.
	reads []string
}

// boundary returns the values both sides compute and the rest of the
// graphs read (a's side's outputs; b's side gives them first).
func (c *changed) boundary() []*graph.Value { return c.a.Outputs }

// nodeKey identifies a node by what it computes and by the names and
// types of the values it reads and writes: a node of b with the key of a
// node of a is that node, left as it was by the rewrite.
func nodeKey(n *graph.Node) string {
	e := graph.HashEnc(nil).NodePrefix(n)
	value := func(v *graph.Value) {
		if v == nil {
			e = e.Str("")
			return
		}
		e = e.Str(v.Name).ValueType(v)
		if v.Const != nil {
			e = e.Tensor(v.Const)
		}
	}
	e = e.U64(uint64(len(n.Inputs)))
	for _, v := range n.Inputs {
		value(v)
	}
	e = e.U64(uint64(len(n.Implicit)))
	for _, v := range n.Implicit {
		value(v)
	}
	e = e.U64(uint64(len(n.Outputs)))
	for _, v := range n.Outputs {
		value(v)
	}
	return string(e)
}

// reads returns the non-constant values n reads, its implicit
// outer-scope values included.
func reads(n *graph.Node) []*graph.Value {
	var out []*graph.Value
	for _, v := range slices.Concat(n.Inputs, n.Implicit) {
		if v != nil && v.Const == nil {
			out = append(out, v)
		}
	}
	return out
}

// splitChanged returns what the rewrite of a into b changed, or false
// when the check should run on the whole graphs: the signatures differ by
// name, the change is larger than RegionMaxShare of b, or its boundary is
// not one both graphs share (a value read on one side that the other
// computes, a boundary value one side does not compute).
func splitChanged(a, b *graph.Graph) (*changed, bool) {
	if len(a.Inputs) != len(b.Inputs) || len(a.Outputs) != len(b.Outputs) {
		return nil, false
	}
	same := func(x, y *graph.Value) bool {
		return x != nil && y != nil && x.Name == y.Name && string(graph.HashEnc(nil).ValueType(x)) == string(graph.HashEnc(nil).ValueType(y))
	}
	for i := range a.Inputs {
		if !same(a.Inputs[i], b.Inputs[i]) || a.Inputs[i].Const != nil {
			return nil, false
		}
	}
	for i := range a.Outputs {
		if !same(a.Outputs[i], b.Outputs[i]) {
			return nil, false
		}
	}
	keysA, keysB := map[string]bool{}, map[string]bool{}
	for _, n := range a.Nodes {
		keysA[nodeKey(n)] = true
	}
	for _, n := range b.Nodes {
		keysB[nodeKey(n)] = true
	}
	var ra, rb []*graph.Node
	for _, n := range a.Nodes {
		if !keysB[nodeKey(n)] {
			ra = append(ra, n)
		}
	}
	for _, n := range b.Nodes {
		if !keysA[nodeKey(n)] {
			rb = append(rb, n)
		}
	}
	if len(rb) == 0 || float64(len(rb)) > RegionMaxShare*float64(len(b.Nodes)) {
		return nil, false
	}
	valuesA := map[string]*graph.Value{}
	for _, v := range a.Inputs {
		valuesA[v.Name] = v
	}
	for _, n := range a.Nodes {
		for _, o := range n.Outputs {
			if o != nil {
				valuesA[o.Name] = o
			}
		}
	}
	c := &changed{}
	readSet := map[string]bool{}
	side := func(region []*graph.Node) (made map[string]*graph.Value, ins []*graph.Value, ok bool) {
		made = map[string]*graph.Value{}
		for _, n := range region {
			for _, o := range n.Outputs {
				if o != nil {
					made[o.Name] = o
				}
			}
		}
		taken := map[string]bool{}
		for _, n := range region {
			for _, v := range reads(n) {
				if made[v.Name] != nil || taken[v.Name] {
					continue
				}
				// A value read from outside the change is a's value of
				// that name, computed by a node both graphs keep.
				w := valuesA[v.Name]
				if !same(v, w) {
					return nil, nil, false
				}
				taken[v.Name] = true
				ins = append(ins, v)
				if !readSet[v.Name] {
					readSet[v.Name] = true
					c.reads = append(c.reads, v.Name)
				}
			}
		}
		return made, ins, true
	}
	madeA, insA, okA := side(ra)
	madeB, insB, okB := side(rb)
	if !okA || !okB {
		return nil, false
	}
	for _, name := range c.reads {
		if madeA[name] != nil || madeB[name] != nil {
			return nil, false
		}
	}
	// The boundary's outputs: values a change computes that the rest of
	// its graph, or the graph's outputs, read.
	var outs []string
	seen := map[string]bool{}
	boundary := func(g *graph.Graph, made map[string]*graph.Value, region []*graph.Node) {
		in := map[*graph.Node]bool{}
		for _, n := range region {
			in[n] = true
		}
		add := func(v *graph.Value) {
			if v != nil && made[v.Name] == v && !seen[v.Name] {
				seen[v.Name] = true
				outs = append(outs, v.Name)
			}
		}
		for _, n := range g.Nodes {
			if !in[n] {
				for _, v := range reads(n) {
					add(v)
				}
			}
		}
		for _, v := range g.Outputs {
			add(v)
		}
	}
	boundary(a, madeA, ra)
	boundary(b, madeB, rb)
	var outA, outB []*graph.Value
	for _, name := range outs {
		x, y := madeA[name], madeB[name]
		if x == nil || y == nil {
			return nil, false
		}
		outA, outB = append(outA, x), append(outB, y)
	}
	if len(outs) == 0 {
		return nil, false
	}
	c.a = &graph.Graph{Name: "changed (before)", Inputs: insA, Nodes: ra, Outputs: outA}
	// b's side also gives every value it computes: they, with a's other
	// values, are b's values for the next change checked on b.
	for _, n := range rb {
		for _, o := range n.Outputs {
			if o != nil && !seen[o.Name] {
				outB = append(outB, o)
			}
		}
	}
	c.b = &graph.Graph{Name: "changed (after)", Inputs: insB, Nodes: rb, Outputs: outB}
	return c, true
}
