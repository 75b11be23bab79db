package graph

// Body is one graph-valued attribute of a control-flow node (the
// then_branch and else_branch of If, the body of Loop and Scan), decoded
// into an IR graph.
//
// The body graph is self-contained: it shares no Value with the enclosing
// graph. Its Inputs hold first the Formal inputs ONNX declares for the
// body (none for If; iteration number, condition and carried values for
// Loop; states and per-slice scan inputs for Scan), then one value per
// outer-scope name the body reads, holding the outer value's constant data
// when that value is a constant (so that rules and folding inside the body
// see outer weights as constants). Outer[k] is the index in the owning
// node's Implicit list of the enclosing value that Inputs[Formal+k] stands
// for; the body refers to it by that value's name. Outputs are matched to
// the ONNX body outputs by position.
type Body struct {
	// Attr is the attribute's name ("then_branch", "else_branch", "body").
	Attr   string
	Graph  *Graph
	Formal int
	Outer  []int
	// Edited records that Graph was rewritten; only then is the body
	// encoded again on export, otherwise the attribute is written verbatim
	// from the node's Opaque encoding.
	Edited bool
	// ShapesOK records that the last shape inference of the owning node
	// gave every value of Graph a static shape that holds on every
	// execution of the body (for Loop: the carried values keep their
	// shapes), so that Graph may be rewritten.
	ShapesOK bool
}

// FormalInputs returns the body's declared inputs.
func (b *Body) FormalInputs() []*Value { return b.Graph.Inputs[:b.Formal] }

// OuterInputs returns the values standing for outer-scope names.
func (b *Body) OuterInputs() []*Value { return b.Graph.Inputs[b.Formal:] }

// Clone returns a deep copy of b.
func (b *Body) Clone() *Body {
	c := *b
	c.Graph = b.Graph.Clone()
	c.Outer = append([]int(nil), b.Outer...)
	return &c
}

// WalkBodies calls f for every body of g's nodes, nested bodies after the
// body holding them.
func (g *Graph) WalkBodies(f func(n *Node, b *Body)) {
	for _, n := range g.Nodes {
		for _, b := range n.Bodies {
			f(n, b)
			b.Graph.WalkBodies(f)
		}
	}
}
