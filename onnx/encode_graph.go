package onnx

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// graphEncoder writes one graph.
type graphEncoder struct {
	g     *graph.Graph
	opset int64
	ext   externalPolicy

	gp    *onnxpb.GraphProto
	extra *onnxpb.GraphProto
	names map[*graph.Value]string
	used  map[string]bool
	fixed map[string]bool // names that must not change (read by subgraphs, sparse initializers)
	// outer maps the inputs of a body graph that stand for outer-scope
	// values to the names they are written as; they are not listed as
	// inputs. reserved holds the enclosing graphs' names, which the
	// body's own values must not take.
	outer    map[*graph.Value]string
	reserved map[string]bool
	inits    map[*graph.Value]bool
	inputs   map[*graph.Value]bool
	produced map[*graph.Value]*graph.Node
	pending  []*graph.Value // initializers in emission order
	external []externalTensor
}

// name returns the exported name of v (assigned by assignNames, or a
// fresh one for values first seen while writing nodes).
func (e *graphEncoder) name(v *graph.Value) string {
	if n, ok := e.names[v]; ok {
		return n
	}
	return e.assign(v, "")
}

// newConst adds a constant the written form of a node needs.
func (e *graphEncoder) newConst(t *graph.Tensor, hint string) string {
	v := &graph.Value{Name: hint, Const: t}
	v.SetStatic(t.DType, t.Shape)
	name := e.assign(v, "const")
	e.addInitializer(v)
	return name
}

// assign gives v a unique non-empty name, preferring v.Name, then
// fallback.
func (e *graphEncoder) assign(v *graph.Value, fallback string) string {
	base := v.Name
	if base == "" {
		base = fallback
	}
	if base == "" {
		base = "value"
	}
	name := base
	for i := 1; e.used[name] || e.fixed[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	e.used[name] = true
	e.names[v] = name
	return name
}

func (e *graphEncoder) encode() (*onnxpb.GraphProto, error) {
	g := e.g
	// ONNX requires a graph name.
	e.gp = &onnxpb.GraphProto{Name: proto.String(g.Name)}
	if g.Name == "" {
		e.gp.Name = proto.String("graph")
	}
	e.gp.DocString = optString(g.Doc)
	e.extra = new(onnxpb.GraphProto)
	if len(g.Extra) > 0 {
		if err := proto.Unmarshal(g.Extra, e.extra); err != nil {
			return nil, fmt.Errorf("graph %q: Extra is corrupt: %v", g.Name, err)
		}
	}
	order, err := graph.TopoOrder(g.Nodes)
	if err != nil {
		return nil, fmt.Errorf("graph %q: %w", g.Name, err)
	}
	e.names = map[*graph.Value]string{}
	e.used = map[string]bool{}
	e.fixed = map[string]bool{}
	for name := range e.reserved {
		e.fixed[name] = true
	}
	e.inits = map[*graph.Value]bool{}
	e.inputs = map[*graph.Value]bool{}
	e.produced = map[*graph.Value]*graph.Node{}
	for i, v := range g.Inputs {
		if v == nil {
			return nil, fmt.Errorf("graph %q: input %d is nil", g.Name, i)
		}
		e.inputs[v] = true
	}
	for i, v := range g.Outputs {
		if v == nil {
			return nil, fmt.Errorf("graph %q: output %d is nil", g.Name, i)
		}
	}
	for i, v := range g.Initializers {
		if v == nil {
			return nil, fmt.Errorf("graph %q: initializer %d is nil", g.Name, i)
		}
	}
	for _, n := range order {
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			if p := e.produced[o]; p != nil {
				return nil, fmt.Errorf("graph %q: value %q is produced by both %v and %v", g.Name, o.Name, p, n)
			}
			if e.inputs[o] || o.Const != nil {
				return nil, fmt.Errorf("graph %q: %v produces %q, which is a graph input or constant", g.Name, n, o.Name)
			}
			e.produced[o] = n
		}
	}
	if err := e.assignNames(order); err != nil {
		return nil, fmt.Errorf("graph %q: %w", g.Name, err)
	}
	for _, v := range g.Initializers {
		if v.Const == nil {
			return nil, fmt.Errorf("graph %q: initializer %q has no constant data", g.Name, v.Name)
		}
		e.addInitializer(v)
	}
	for _, n := range order {
		np, err := e.node(n)
		if err != nil {
			return nil, fmt.Errorf("graph %q: %w", g.Name, err)
		}
		e.gp.Node = append(e.gp.Node, np)
	}
	for _, v := range g.Inputs {
		if _, ok := e.outer[v]; ok {
			continue
		}
		if v.Const != nil {
			e.addInitializer(v)
		}
		e.gp.Input = append(e.gp.Input, override(e.extra.Input, valueInfoProto(e.names[v], v)))
	}
	for _, v := range g.Outputs {
		if err := e.reference(v, "graph output"); err != nil {
			return nil, fmt.Errorf("graph %q: %w", g.Name, err)
		}
		e.gp.Output = append(e.gp.Output, override(e.extra.Output, valueInfoProto(e.names[v], v)))
	}
	e.valueInfo(order)
	if err := e.initializers(); err != nil {
		return nil, fmt.Errorf("graph %q: %w", g.Name, err)
	}
	e.extra.Input, e.extra.Output, e.extra.ValueInfo = nil, nil, nil
	proto.Merge(e.gp, e.extra)
	return e.gp, nil
}

// override returns the entry of list named like vi, or vi.
func override(list []*onnxpb.ValueInfoProto, vi *onnxpb.ValueInfoProto) *onnxpb.ValueInfoProto {
	for _, x := range list {
		if x.GetName() == vi.GetName() {
			return x
		}
	}
	return vi
}

// assignNames names values in a fixed order: names read by subgraphs and
// sparse initializers first (they cannot change), then inputs,
// initializers, node outputs in order, then constants only nodes use.
func (e *graphEncoder) assignNames(order []*graph.Node) error {
	for _, sp := range e.extra.SparseInitializer {
		e.fixed[sp.GetValues().GetName()] = true
	}
	for v, name := range e.outer {
		e.names[v] = name
		e.used[name] = true
	}
	for _, n := range order {
		for _, b := range n.Bodies {
			if b.Edited {
				for name := range b.Graph.Names() {
					e.fixed[name] = true
				}
			}
		}
	}
	for _, n := range order {
		if !n.IsOpaque() {
			continue
		}
		np := new(onnxpb.NodeProto)
		if err := proto.Unmarshal(n.Opaque, np); err != nil {
			return fmt.Errorf("%v: opaque encoding is corrupt: %v", n, err)
		}
		for _, a := range np.Attribute {
			for _, sg := range append([]*onnxpb.GraphProto{a.G}, a.Graphs...) {
				if sg != nil {
					subgraphNames(sg, e.fixed)
				}
			}
		}
		for _, v := range n.Implicit {
			e.fixed[v.Name] = true
		}
	}
	for _, n := range order {
		for _, v := range n.Implicit {
			if _, done := e.names[v]; done {
				continue
			}
			if e.used[v.Name] {
				return fmt.Errorf("%v: subgraphs read %q, a name two values share", n, v.Name)
			}
			e.used[v.Name] = true
			e.names[v] = v.Name
		}
	}
	for _, v := range e.g.Inputs {
		if _, done := e.names[v]; !done {
			e.assign(v, "input")
		}
	}
	for _, v := range e.g.Initializers {
		if _, done := e.names[v]; !done {
			e.assign(v, "const")
		}
	}
	for _, n := range order {
		for i, o := range n.Outputs {
			if o == nil {
				continue
			}
			if _, done := e.names[o]; !done {
				fallback := n.Op
				if n.Name != "" {
					fallback = n.Name
				}
				if len(n.Outputs) > 1 {
					fallback = fmt.Sprintf("%s_out%d", fallback, i)
				}
				e.assign(o, fallback)
			}
		}
	}
	return nil
}

// subgraphNames adds every name g and its nested subgraphs define or read.
func subgraphNames(g *onnxpb.GraphProto, out map[string]bool) {
	for _, v := range g.Input {
		out[v.GetName()] = true
	}
	for _, t := range g.Initializer {
		out[t.GetName()] = true
	}
	for _, n := range g.Node {
		for _, o := range n.Output {
			out[o] = true
		}
		for _, a := range n.Attribute {
			for _, sg := range append([]*onnxpb.GraphProto{a.G}, a.Graphs...) {
				if sg != nil {
					subgraphNames(sg, out)
				}
			}
		}
	}
	delete(out, "")
}

// reference checks that v is defined in the exported graph and, for
// constants, emits its initializer.
func (e *graphEncoder) reference(v *graph.Value, what string) error {
	if _, ok := e.outer[v]; ok {
		return nil // defined by an enclosing graph
	}
	switch {
	case v.Const != nil:
		e.name(v)
		e.addInitializer(v)
	case e.inputs[v] || e.produced[v] != nil:
	case e.fixed[v.Name] && e.isSparse(v.Name):
		e.names[v] = v.Name
	default:
		return fmt.Errorf("%s %q is not produced by any node and is neither a graph input nor a constant", what, v.Name)
	}
	return nil
}

func (e *graphEncoder) isSparse(name string) bool {
	for _, sp := range e.extra.SparseInitializer {
		if sp.GetValues().GetName() == name {
			return true
		}
	}
	return false
}

// addInitializer emits v's tensor once.
func (e *graphEncoder) addInitializer(v *graph.Value) {
	if e.inits[v] {
		return
	}
	e.inits[v] = true
	e.name(v)
	e.pending = append(e.pending, v)
}

// initializers converts the emitted constants, moving those the external
// policy selects out of line.
func (e *graphEncoder) initializers() error {
	for _, v := range e.pending {
		tp, err := tensorToProto(v.Const, e.names[v])
		if err != nil {
			return err
		}
		if v.Doc != "" && !e.inputs[v] {
			tp.DocString = proto.String(v.Doc)
		}
		if e.ext != nil && tp.RawData != nil && e.ext(tp.RawData) {
			e.external = append(e.external, externalTensor{tp: tp, data: tp.RawData})
			tp.RawData = nil
		}
		e.gp.Initializer = append(e.gp.Initializer, tp)
	}
	return nil
}

// nodeRefs names the values one node reads, checking each and emitting
// constants as initializers; only inputs the written node keeps are named
// (inputs turned into attributes for an old opset are not).
type nodeRefs struct {
	e    *graphEncoder
	node *graph.Node
	err  error
}

func (r *nodeRefs) name(v *graph.Value) string {
	if err := r.e.reference(v, fmt.Sprintf("%v: input", r.node)); err != nil && r.err == nil {
		r.err = err
	}
	return r.e.name(v)
}

func (r *nodeRefs) newConst(t *graph.Tensor, hint string) string { return r.e.newConst(t, hint) }

// node writes n.
func (e *graphEncoder) node(n *graph.Node) (*onnxpb.NodeProto, error) {
	refs := &nodeRefs{e: e, node: n}
	for _, in := range n.Implicit {
		refs.name(in)
	}
	var np *onnxpb.NodeProto
	if n.IsOpaque() {
		np = new(onnxpb.NodeProto)
		if err := proto.Unmarshal(n.Opaque, np); err != nil {
			return nil, fmt.Errorf("%v: opaque encoding is corrupt: %v", n, err)
		}
		if n.Name != "" {
			np.Name = proto.String(n.Name)
		}
		if err := e.bodies(n, np); err != nil {
			return nil, err
		}
		for _, in := range n.Inputs {
			if in == nil {
				np.Input = append(np.Input, "")
			} else {
				np.Input = append(np.Input, refs.name(in))
			}
		}
		for _, o := range n.Outputs {
			if o == nil {
				np.Output = append(np.Output, "")
			} else {
				np.Output = append(np.Output, e.name(o))
			}
		}
	} else {
		var err error
		if np, err = irNodeProto(n, e.opset, refs); err != nil {
			return nil, err
		}
	}
	if refs.err != nil {
		return nil, refs.err
	}
	return np, nil
}

// valueInfo writes the types of intermediate values, then the value_info
// entries kept verbatim in Extra for names still present.
func (e *graphEncoder) valueInfo(order []*graph.Node) {
	outputs := map[*graph.Value]bool{}
	for _, v := range e.g.Outputs {
		outputs[v] = true
	}
	at := map[string]int{}
	for _, n := range order {
		for _, o := range n.Outputs {
			if o == nil || outputs[o] || !hasType(o) {
				continue
			}
			name := e.names[o]
			at[name] = len(e.gp.ValueInfo)
			e.gp.ValueInfo = append(e.gp.ValueInfo, valueInfoProto(name, o))
		}
	}
	for _, vi := range e.extra.ValueInfo {
		if i, ok := at[vi.GetName()]; ok {
			e.gp.ValueInfo[i] = vi
			continue
		}
		if e.used[vi.GetName()] {
			e.gp.ValueInfo = append(e.gp.ValueInfo, vi)
		}
	}
}
