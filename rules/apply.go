package rules

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// Apply returns a copy of g in which the match m (found by FindMatches on
// g) is rewritten: the matched nodes are removed, the target's nodes are
// added, and every reader of a source output reads the corresponding
// target output instead. A graph output keeps its name (the new value is
// renamed, or an Identity is added when the replacement is an existing
// value). It is the reference semantics of a rewrite; it fails when the
// target cannot be built or the result would have a cycle.
func Apply(g *graph.Graph, m *Match) (*graph.Graph, error) {
	c, vm := g.CloneWithMap()
	nm := make(map[*graph.Node]*graph.Node, len(g.Nodes))
	for i, n := range g.Nodes {
		nm[n] = c.Nodes[i]
	}
	m2 := &Match{Rule: m.Rule, Nodes: make([]*graph.Node, len(m.Nodes)), Values: make([]*graph.Value, len(m.Values)), Attrs: m.Attrs}
	for i, n := range m.Nodes {
		if nm[n] == nil {
			return nil, fmt.Errorf("rule %s: match is not in the graph", m.Rule.Name)
		}
		m2.Nodes[i] = nm[n]
	}
	for i, v := range m.Values {
		if v != nil {
			if vm[v] == nil {
				return nil, fmt.Errorf("rule %s: matched value %q is not in the graph", m.Rule.Name, v.Name)
			}
			m2.Values[i] = vm[v]
		}
	}
	rep, err := m.Rule.Build(m2, graphNamer(c, m.Rule.Name))
	if err != nil {
		return nil, err
	}
	replace := map[*graph.Value]*graph.Value{}
	for i, o := range m2.Outputs() {
		replace[o] = rep.Outputs[i]
	}
	removed := map[*graph.Node]bool{}
	for _, n := range m2.Nodes {
		removed[n] = true
	}
	nodes := make([]*graph.Node, 0, len(c.Nodes)+len(rep.Nodes))
	for _, n := range c.Nodes {
		if !removed[n] {
			nodes = append(nodes, n)
		}
	}
	nodes = append(nodes, rep.Nodes...)
	for _, n := range nodes {
		for i, in := range n.Inputs {
			if r, ok := replace[in]; ok {
				n.Inputs[i] = r
			}
		}
	}
	keep := NewOutputKeeper(rep.Nodes)
	for i, o := range c.Outputs {
		nv, ok := replace[o]
		if !ok {
			continue
		}
		out, id, err := keep.Replace(o, nv, func() string { return o.Name + "_identity" })
		if err != nil {
			return nil, fmt.Errorf("rule %s: %w", m.Rule.Name, err)
		}
		if id != nil {
			nodes = append(nodes, id)
		}
		c.Outputs[i] = out
	}
	c.Nodes = nodes
	c.Initializers = append(c.Initializers, rep.Consts...)
	if err := c.Sort(); err != nil {
		return nil, fmt.Errorf("rule %s: rewrite would make a cycle: %w", m.Rule.Name, err)
	}
	return c, nil
}

// OutputKeeper keeps the names of the graph outputs a rewrite replaces.
type OutputKeeper struct {
	fresh map[*graph.Value]bool // outputs of the replacement's nodes not yet used
}

// NewOutputKeeper returns an OutputKeeper for a replacement made of nodes.
func NewOutputKeeper(nodes []*graph.Node) OutputKeeper {
	k := OutputKeeper{fresh: map[*graph.Value]bool{}}
	for _, n := range nodes {
		for _, o := range n.Outputs {
			if o != nil {
				k.fresh[o] = true
			}
		}
	}
	return k
}

// Replace returns the value that takes graph output o's place when nv
// replaces it. A value the replacement created stands in itself, renamed
// to o's name (once); any other value is copied by a new Identity node,
// named by idName and also returned, into a value named like o.
func (k OutputKeeper) Replace(o, nv *graph.Value, idName func() string) (*graph.Value, *graph.Node, error) {
	if k.fresh[nv] {
		nv.Name = o.Name
		delete(k.fresh, nv)
		return nv, nil, nil
	}
	out := &graph.Value{Name: o.Name}
	id := &graph.Node{Name: idName(), Op: "Identity", Inputs: []*graph.Value{nv}, Outputs: []*graph.Value{out}}
	if err := graph.InferNode(id); err != nil {
		return nil, nil, err
	}
	return out, id, nil
}

// graphNamer returns a Namer that avoids every node and value name of g.
func graphNamer(g *graph.Graph, prefix string) Namer {
	used := g.Names()
	count := 0
	return func(base string) string {
		for {
			count++
			name := fmt.Sprintf("%s/%s_%d", prefix, base, count)
			if !used[name] && !used[name+":0"] {
				used[name] = true
				return name
			}
		}
	}
}
