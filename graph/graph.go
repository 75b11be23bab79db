package graph

import "fmt"

// Value is a tensor flowing along the edges of a graph: a graph input, a
// constant (Const != nil), or the output of exactly one node.
type Value struct {
	Name  string
	DType DType
	// Shape is valid only when ShapeKnown; after InferShapes on a bound
	// graph every value has a known static shape.
	Shape      Shape
	ShapeKnown bool
	// Const holds the data of an initializer or folded constant.
	Const *Tensor
	// Known optionally holds the value of a small computed tensor (typically
	// an int64 shape computation) discovered by shape inference. It is not
	// part of the graph's structure and is never exported.
	Known *Tensor
	// KnownDims, when not nil, is Known (an integer tensor) element by
	// element as dimensions that depend on the model's symbolic input
	// dimensions: element i's Value is Known's element i and its Param
	// the expression over the symbols (see Dim.Symbolic). It is set by
	// inference on a graph bound with BindOptions.KeepSymbols, only where
	// some element is symbolic; nil means Known is the same for every
	// binding.
	KnownDims []Dim
	Doc       string
}

// IsConst reports whether v is a constant.
func (v *Value) IsConst() bool { return v != nil && v.Const != nil }

// StaticShape returns v's shape as ints, or an error naming v when the shape
// is unknown or symbolic.
func (v *Value) StaticShape() ([]int, error) {
	if !v.ShapeKnown {
		return nil, fmt.Errorf("value %q has no known shape", v.Name)
	}
	if !v.Shape.Static() {
		return nil, fmt.Errorf("value %q has non-static shape %v", v.Name, v.Shape)
	}
	return v.Shape.Ints(), nil
}

// SetStatic sets v's dtype and concrete shape.
func (v *Value) SetStatic(dt DType, shape []int) {
	v.DType = dt
	v.Shape = StaticShape(shape...)
	v.ShapeKnown = true
}

// Node is one operator application.
type Node struct {
	Name   string
	Op     string
	Domain string // "" (or "ai.onnx") for the default ONNX domain
	// Inputs may contain nil for omitted optional inputs.
	Inputs []*Value
	// Outputs may contain nil for omitted optional outputs.
	Outputs []*Value
	Attrs   Attrs
	Doc     string
	// Implicit lists outer-scope values read by subgraph attributes of an
	// opaque node (If, Loop, Scan bodies). They order the node after their
	// producers and keep them alive, but are not exported as inputs.
	Implicit []*Value
	// Bodies holds the decoded graph attributes of an opaque If, Loop or
	// Scan node (see Body); empty when they were not decoded.
	Bodies []*Body
	// Opaque holds the serialized ONNX NodeProto of an operator outside the
	// schema table, with its name, input and output fields cleared (so the
	// bytes do not depend on naming) and serialized deterministically; such
	// nodes are exported verbatim with those fields filled back in, and are
	// never rewritten or executed.
	Opaque []byte
}

// IsOpaque reports whether n is an operator outside the schema table.
func (n *Node) IsOpaque() bool { return n.Opaque != nil }

// Schema returns n's entry in the op-schema table, or nil for opaque nodes.
func (n *Node) Schema() *OpSchema {
	if n.IsOpaque() {
		return nil
	}
	return Lookup(n.Domain, n.Op)
}

// Input returns input i, or nil when absent (or i is negative).
func (n *Node) Input(i int) *Value {
	if i >= 0 && i < len(n.Inputs) {
		return n.Inputs[i]
	}
	return nil
}

// AllInputs returns n's inputs followed by its implicit (subgraph) inputs.
func (n *Node) AllInputs() []*Value {
	if len(n.Implicit) == 0 {
		return n.Inputs
	}
	return append(append([]*Value(nil), n.Inputs...), n.Implicit...)
}

// Output returns output i, or nil when absent.
func (n *Node) Output(i int) *Value {
	if i < len(n.Outputs) {
		return n.Outputs[i]
	}
	return nil
}

// String names the node for messages: `node "conv1" (Conv)`.
func (n *Node) String() string {
	return fmt.Sprintf("node %q (%s)", n.Name, n.Op)
}

// Graph is a computation graph.
type Graph struct {
	Name string
	Doc  string
	// Inputs are the values the caller supplies. An input with Const set is
	// an ONNX input that has an initializer as default value.
	Inputs  []*Value
	Outputs []*Value
	// Initializers lists constants in file order (all have Const set). Other
	// constants may be referenced by nodes without appearing here (e.g.
	// attributes of old opsets converted to inputs); Constants returns all.
	Initializers []*Value
	// Nodes are kept in topological order by Sort.
	Nodes []*Node
	// Extra holds ONNX GraphProto fields the IR does not model (sparse
	// initializers, quantization annotations), serialized verbatim.
	Extra []byte
}

// OpsetID is one entry of a model's opset imports.
type OpsetID struct {
	Domain  string
	Version int64
}

// StringPair is one metadata entry.
type StringPair struct {
	Key, Value string
}

// Model is a graph plus the model-level metadata of an ONNX file.
type Model struct {
	Graph           *Graph
	IRVersion       int64
	Opsets          []OpsetID
	ProducerName    string
	ProducerVersion string
	Domain          string
	ModelVersion    int64
	Doc             string
	Metadata        []StringPair
	// Extra holds ModelProto fields the IR does not model (functions,
	// training info), serialized verbatim.
	Extra []byte
}

// Opset returns the imported version of domain ("" = default ONNX domain),
// or 0 when not imported.
func (m *Model) Opset(domain string) int64 {
	if domain == "ai.onnx" {
		domain = ""
	}
	for _, o := range m.Opsets {
		d := o.Domain
		if d == "ai.onnx" {
			d = ""
		}
		if d == domain {
			return o.Version
		}
	}
	return 0
}

// Clone returns a deep copy of m.
func (m *Model) Clone() *Model {
	c := *m
	c.Graph = m.Graph.Clone()
	c.Opsets = append([]OpsetID(nil), m.Opsets...)
	c.Metadata = append([]StringPair(nil), m.Metadata...)
	c.Extra = append([]byte(nil), m.Extra...)
	return &c
}

// Names returns every node name and value name of g (inputs,
// initializers, outputs and every node's inputs and outputs), for
// choosing fresh names.
func (g *Graph) Names() map[string]bool {
	used := make(map[string]bool, 3*len(g.Nodes)+len(g.Inputs)+len(g.Initializers))
	for _, vs := range [][]*Value{g.Inputs, g.Initializers, g.Outputs} {
		for _, v := range vs {
			used[v.Name] = true
		}
	}
	for _, n := range g.Nodes {
		used[n.Name] = true
		for _, vs := range [][]*Value{n.Inputs, n.Outputs} {
			for _, v := range vs {
				if v != nil {
					used[v.Name] = true
				}
			}
		}
	}
	return used
}

// UniqueName returns base, or base with the first numeric suffix ("_1",
// "_2", ...) that used does not hold, and adds it to used.
func UniqueName(used map[string]bool, base string) string {
	name := base
	for i := 1; used[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	used[name] = true
	return name
}
