package onnx

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx/onnxpb"
)

// decoder converts one GraphProto.
type decoder struct {
	opset  int64 // default-domain opset of the model (0 when not imported)
	irOK   bool  // opset is one whose operators the codec converts
	legacy bool  // opset is below 9: nodes are upgraded first (legacy_import.go)
	strict bool  // legacy nodes must also be writable at opset (the export cannot raise it)
	ext    externalReader

	g      *graph.Graph
	values map[string]*graph.Value // by ONNX name
	names  map[string]bool         // every name in use, for synthetic names
	typed  map[*graph.Value]bool   // type already set from a ValueInfoProto
	kind   map[*graph.Value]string // "input", "initializer", "node output", "sparse initializer"
	extra  *onnxpb.GraphProto
	// ranks holds ranks learnt by probeRanks, by value name; needRank
	// collects the inputs of old-opset Softmax nodes left opaque for
	// want of a rank.
	ranks    map[string]int
	needRank []string
}

// graph converts gp. The graph-level fields the IR does not model go to
// Graph.Extra.
func (d *decoder) graph(gp *onnxpb.GraphProto) (*graph.Graph, error) {
	return d.graphWith(gp, nil)
}

// graphWith is graph for a subgraph that reads the outer-scope values
// outer (by name): each becomes an input of the decoded graph, after the
// declared inputs, typed like the outer value.
func (d *decoder) graphWith(gp *onnxpb.GraphProto, outer []*graph.Value) (*graph.Graph, error) {
	d.g = &graph.Graph{Name: gp.GetName(), Doc: gp.GetDocString()}
	d.values = map[string]*graph.Value{}
	d.names = map[string]bool{}
	d.typed = map[*graph.Value]bool{}
	d.kind = map[*graph.Value]string{}
	var outerVals []*graph.Value
	for _, o := range outer {
		v := d.newValue(o.Name, "outer-scope value")
		v.DType, v.Shape, v.ShapeKnown, v.Const = o.DType, o.Shape.Clone(), o.ShapeKnown, o.Const
		outerVals = append(outerVals, v)
	}
	d.extra = &onnxpb.GraphProto{
		SparseInitializer:      gp.SparseInitializer,
		QuantizationAnnotation: gp.QuantizationAnnotation,
	}
	d.extra.ProtoReflect().SetUnknown(gp.ProtoReflect().GetUnknown())
	if err := d.define(gp); err != nil {
		return nil, fmt.Errorf("graph %q: %w", gp.GetName(), err)
	}
	d.g.Inputs = append(d.g.Inputs, outerVals...)
	for _, np := range gp.Node {
		if err := d.node(np); err != nil {
			return nil, fmt.Errorf("graph %q: %w", gp.GetName(), err)
		}
	}
	b, err := marshal(d.extra)
	if err != nil {
		return nil, err
	}
	if len(b) > 0 {
		d.g.Extra = b
	}
	// File order need not be topological; a cyclic graph keeps file order
	// and is reported by graph.Validate.
	if err := d.g.Sort(); err != nil {
		var ce *graph.CycleError
		if !errors.As(err, &ce) {
			return nil, err
		}
	}
	return d.g, nil
}

// newValue registers a value named name.
func (d *decoder) newValue(name, kind string) *graph.Value {
	v := &graph.Value{Name: name}
	d.values[name] = v
	d.names[name] = true
	d.kind[v] = kind
	return v
}

// uniqueName returns base, or base with a numeric suffix, unused so far.
func (d *decoder) uniqueName(base string) string {
	return graph.UniqueName(d.names, base)
}

// define creates the values of initializers, inputs, node outputs and
// records the types of outputs and value_info.
func (d *decoder) define(gp *onnxpb.GraphProto) error {
	for i, tp := range gp.Initializer {
		name := tp.GetName()
		if name == "" {
			return fmt.Errorf("initializer %d has no name", i)
		}
		if d.values[name] != nil {
			return fmt.Errorf("initializer %q is defined twice", name)
		}
		if len(tp.ProtoReflect().GetUnknown()) > 0 {
			return fmt.Errorf("initializer %q has fields this codec does not know (written by a newer ONNX?)", name)
		}
		t, err := tensorFromProto(tp, d.ext)
		if err != nil {
			return fmt.Errorf("initializer %q: %w", name, err)
		}
		v := d.newValue(name, "initializer")
		v.Const = t
		v.SetStatic(t.DType, t.Shape)
		v.Doc = tp.GetDocString()
		d.g.Initializers = append(d.g.Initializers, v)
	}
	for _, sp := range gp.SparseInitializer {
		name := sp.GetValues().GetName()
		if name == "" || d.values[name] != nil {
			return fmt.Errorf("sparse initializer %q has no name or is defined twice", name)
		}
		v := d.newValue(name, "sparse initializer")
		v.DType = graph.DType(sp.GetValues().GetDataType())
		shape, _, err := tensorShape(sp.Dims)
		if err != nil {
			return fmt.Errorf("sparse initializer %q: %w", name, err)
		}
		v.SetStatic(v.DType, shape)
	}
	for _, vi := range gp.Input {
		name := vi.GetName()
		if name == "" {
			return errors.New("a graph input has no name")
		}
		v := d.values[name]
		switch {
		case v == nil:
			v = d.newValue(name, "input")
		case d.kind[v] == "initializer":
			d.kind[v] = "input"
		default:
			return fmt.Errorf("graph input %q is listed twice", name)
		}
		d.setType(v, vi)
		d.g.Inputs = append(d.g.Inputs, v)
		if !proto.Equal(vi, valueInfoProto(name, v)) {
			d.extra.Input = append(d.extra.Input, vi)
		}
	}
	for _, np := range gp.Node {
		for _, name := range np.Output {
			if name == "" {
				continue
			}
			if v := d.values[name]; v != nil {
				return fmt.Errorf("node %q (%s): output %q is already defined (as %s)", np.GetName(), np.GetOpType(), name, d.kind[v])
			}
			d.newValue(name, "node output")
		}
	}
	for _, vi := range gp.Output {
		name := vi.GetName()
		v := d.values[name]
		if v == nil {
			return fmt.Errorf("graph output %q is not produced by any node, input or initializer", name)
		}
		if d.kind[v] == "node output" && !d.typed[v] {
			d.setType(v, vi)
		}
		d.g.Outputs = append(d.g.Outputs, v)
		if !proto.Equal(vi, valueInfoProto(name, v)) {
			d.extra.Output = append(d.extra.Output, vi)
		}
	}
	for _, vi := range gp.ValueInfo {
		v := d.values[vi.GetName()]
		if v != nil && d.kind[v] == "node output" && !d.typed[v] {
			d.setType(v, vi)
			if proto.Equal(vi, valueInfoProto(vi.GetName(), v)) {
				continue
			}
		}
		d.extra.ValueInfo = append(d.extra.ValueInfo, vi)
	}
	return nil
}

// setType sets v's type and doc from vi.
func (d *decoder) setType(v *graph.Value, vi *onnxpb.ValueInfoProto) {
	setTypeFromProto(v, vi.GetType())
	v.Doc = vi.GetDocString()
	d.typed[v] = true
}

// node converts one NodeProto to an IR node (or several, for the opset-13
// softmax rewrite) or to an opaque node.
func (d *decoder) node(np *onnxpb.NodeProto) error {
	ins := make([]*graph.Value, len(np.Input))
	for i, name := range np.Input {
		if name == "" {
			continue
		}
		v := d.values[name]
		if v == nil {
			return fmt.Errorf("node %q (%s): input %q is not defined", np.GetName(), np.GetOpType(), name)
		}
		ins[i] = v
	}
	outs := make([]*graph.Value, len(np.Output))
	for i, name := range np.Output {
		if name != "" {
			outs[i] = d.values[name]
		}
	}
	if d.irOK && (isDefaultDomain(np.GetDomain()) || contribIR(np)) {
		var nodes []*graph.Node
		var err error
		if d.legacy {
			nodes, err = d.legacyNodes(np, ins, outs)
		} else {
			nodes, err = d.irNodes(np, ins, outs, d.opset)
		}
		if err != nil {
			return fmt.Errorf("node %q (%s): %w", np.GetName(), np.GetOpType(), err)
		}
		if nodes != nil {
			d.g.Nodes = append(d.g.Nodes, nodes...)
			return nil
		}
	}
	b, err := opaqueBytes(np)
	if err != nil {
		return fmt.Errorf("node %q (%s): %w", np.GetName(), np.GetOpType(), err)
	}
	n := &graph.Node{
		Name: np.GetName(), Op: np.GetOpType(), Domain: np.GetDomain(), Doc: np.GetDocString(),
		Inputs: ins, Outputs: outs, Opaque: b,
	}
	for _, name := range nodeFreeNames(np) {
		v := d.values[name]
		if v == nil {
			return fmt.Errorf("node %q (%s): a subgraph reads %q, which is not defined", np.GetName(), np.GetOpType(), name)
		}
		n.Implicit = append(n.Implicit, v)
	}
	if err := d.bodies(n, np); err != nil {
		return fmt.Errorf("node %q (%s): %w", np.GetName(), np.GetOpType(), err)
	}
	if err := d.recurrentAttrs(n, np); err != nil {
		return fmt.Errorf("node %q (%s): %w", np.GetName(), np.GetOpType(), err)
	}
	d.g.Nodes = append(d.g.Nodes, n)
	return nil
}

// isDefaultDomain reports whether domain names the default ONNX domain.
func isDefaultDomain(domain string) bool { return domain == "" || domain == "ai.onnx" }

// contribIR reports whether np is an ONNX Runtime contributed operator
// that the op-schema table has, in a form the table implements: no more
// inputs or outputs than its row lists, every required input given, and
// no past or present state (the inputs named past..., the outputs named
// present...). Masks, attention_bias and unidirectional masking are
// implemented (graph.AttentionShape, graph.MultiHeadAttentionShape).
// irNodes then checks the attributes against the row; other forms stay
// opaque, with shapes observed in ONNX Runtime.
func contribIR(np *onnxpb.NodeProto) bool {
	s := graph.Lookup(np.GetDomain(), np.GetOpType())
	if np.GetDomain() != graph.MicrosoftDomain || s == nil || len(np.Input) > len(s.Inputs) || len(np.Output) > len(s.Outputs) {
		return false
	}
	for i, spec := range s.Inputs {
		given := i < len(np.Input) && np.Input[i] != ""
		if spec.Variadic || !given && !spec.Optional || given && strings.HasPrefix(spec.Name, "past") {
			return false
		}
	}
	for i, name := range np.Output {
		if name != "" && strings.HasPrefix(s.Outputs[i].Name, "present") {
			return false
		}
	}
	return true
}
