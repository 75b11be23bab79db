package graph

import "fmt"

// Builder constructs a graph node by node, inferring each node's output
// shapes as it is added so that callers can read them (v.Shape) while
// building. The first error is kept and returned by Graph; later calls are
// no-ops, so building code need not check every step.
type Builder struct {
	g     *Graph
	names map[string]int
	err   error
	scope string
}

// NewBuilder starts an empty graph with the given name.
func NewBuilder(name string) *Builder {
	return &Builder{g: &Graph{Name: name}, names: make(map[string]int)}
}

// Err returns the first error recorded so far.
func (b *Builder) Err() error { return b.err }

// SetScope sets a prefix for generated node names ("layer3/attn"), and
// returns the previous one so callers can restore it.
func (b *Builder) SetScope(scope string) string {
	old := b.scope
	b.scope = scope
	return old
}

func (b *Builder) unique(base string) string {
	if b.scope != "" {
		base = b.scope + "/" + base
	}
	n := b.names[base]
	b.names[base] = n + 1
	if n == 0 {
		return base
	}
	return fmt.Sprintf("%s_%d", base, n)
}

// Input adds a graph input with a static shape.
func (b *Builder) Input(name string, dt DType, shape ...int) *Value {
	v := &Value{Name: b.unique(name)}
	v.SetStatic(dt, shape)
	b.g.Inputs = append(b.g.Inputs, v)
	return v
}

// Const adds an initializer holding t.
func (b *Builder) Const(name string, t *Tensor) *Value {
	v := &Value{Name: b.unique(name), Const: t}
	v.SetStatic(t.DType, t.Shape)
	b.g.Initializers = append(b.g.Initializers, v)
	return v
}

// Op adds a node with one output and returns that output.
func (b *Builder) Op(op string, inputs []*Value, attrs Attrs) *Value {
	outs := b.OpN(op, inputs, attrs, 1)
	return outs[0]
}

// OpN adds a node with nOut outputs and returns them.
func (b *Builder) OpN(op string, inputs []*Value, attrs Attrs, nOut int) []*Value {
	name := b.unique(op)
	n := &Node{Name: name, Op: op, Inputs: inputs, Attrs: attrs}
	n.Outputs = make([]*Value, nOut)
	for i := range n.Outputs {
		vn := name
		if nOut > 1 {
			vn = fmt.Sprintf("%s:%d", name, i)
		}
		n.Outputs[i] = &Value{Name: vn}
	}
	if b.err != nil {
		return n.Outputs
	}
	if n.Schema() == nil {
		b.err = fmt.Errorf("builder: op %q is not in the op-schema table", op)
		return n.Outputs
	}
	for i, in := range inputs {
		if in == nil {
			continue
		}
		if !in.ShapeKnown {
			b.err = fmt.Errorf("builder: %v input %d (%q) has no known shape", n, i, in.Name)
			return n.Outputs
		}
	}
	if err := InferNode(n); err != nil {
		b.err = fmt.Errorf("builder: %w", err)
		return n.Outputs
	}
	b.g.Nodes = append(b.g.Nodes, n)
	return n.Outputs
}

// Output marks values as graph outputs.
func (b *Builder) Output(vs ...*Value) {
	b.g.Outputs = append(b.g.Outputs, vs...)
}

// Graph returns the built graph after validating it.
func (b *Builder) Graph() (*Graph, error) {
	if b.err != nil {
		return nil, b.err
	}
	if err := b.g.Sort(); err != nil {
		return nil, err
	}
	if err := b.g.Validate(); err != nil {
		return nil, err
	}
	return b.g, nil
}
