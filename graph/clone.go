package graph

// Clone returns a deep copy of g. Values and nodes are new objects; constant
// tensors are shared, because tensors held by a graph are never modified in
// place (a rewrite that changes a constant creates a new Tensor).
func (g *Graph) Clone() *Graph {
	c, _ := g.CloneWithMap()
	return c
}

// CloneWithMap is Clone that also returns the mapping from g's values to
// the copy's values.
func (g *Graph) CloneWithMap() (*Graph, map[*Value]*Value) {
	vm := make(map[*Value]*Value)
	mv := func(v *Value) *Value {
		if v == nil {
			return nil
		}
		if c, ok := vm[v]; ok {
			return c
		}
		c := *v
		c.Shape = v.Shape.Clone()
		vm[v] = &c
		return &c
	}
	mvs := func(vs []*Value) []*Value {
		if vs == nil {
			return nil
		}
		out := make([]*Value, len(vs))
		for i, v := range vs {
			out[i] = mv(v)
		}
		return out
	}
	c := &Graph{Name: g.Name, Doc: g.Doc, Extra: append([]byte(nil), g.Extra...)}
	c.Inputs = mvs(g.Inputs)
	c.Initializers = mvs(g.Initializers)
	c.Nodes = make([]*Node, len(g.Nodes))
	for i, n := range g.Nodes {
		cn := &Node{
			Name: n.Name, Op: n.Op, Domain: n.Domain, Doc: n.Doc,
			Inputs: mvs(n.Inputs), Outputs: mvs(n.Outputs), Implicit: mvs(n.Implicit),
			Attrs: n.Attrs.Clone(), Opaque: n.Opaque,
		}
		for _, b := range n.Bodies {
			cn.Bodies = append(cn.Bodies, b.Clone())
		}
		c.Nodes[i] = cn
	}
	c.Outputs = mvs(g.Outputs)
	return c, vm
}
