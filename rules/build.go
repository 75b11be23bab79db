package rules

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// Namer returns a fresh, graph-unique name; base is a hint ("Conv").
type Namer func(base string) string

// Replacement is a rule's target built for one match.
type Replacement struct {
	// Nodes are the new nodes in topological order, with inferred output
	// dtypes and shapes. They read matched values, new constants and each
	// other; nothing in the graph reads them yet.
	Nodes []*graph.Node
	// Consts are the new constants (bracketed inputs, const(...)).
	Consts []*graph.Value
	// Outputs holds, for each source output, the value replacing it: a new
	// node's output or a value bound by the match (a rule such as
	// Transpose(Transpose(x)) => x replaces by an existing value).
	Outputs []*graph.Value
}

// Build constructs r's target for m: it evaluates computed attributes and
// constants and infers every new node's output shapes. It fails (with an
// error naming the rule and the target op) when the target is not valid
// for the matched shapes; a caller then discards the match.
func (r *Rule) Build(m *Match, name Namer) (*Replacement, error) {
	rep := &Replacement{}
	en := &env{m: m, tgt: make([]*graph.Node, len(r.Target.Nodes))}
	for _, pn := range r.Target.Nodes {
		n, consts, err := r.buildNode(pn, m, en, name)
		if err != nil {
			return nil, fmt.Errorf("rule %s: target %s at %v: %w", r.Name, pn.Op, pn.Pos, err)
		}
		en.tgt[pn.Index] = n
		rep.Nodes = append(rep.Nodes, n)
		rep.Consts = append(rep.Consts, consts...)
	}
	for _, o := range r.Target.Outputs {
		switch o.Kind {
		case RefVar:
			rep.Outputs = append(rep.Outputs, m.Values[o.Var.Index])
		case RefNode:
			rep.Outputs = append(rep.Outputs, en.tgt[o.Node.Index].Outputs[o.Output])
		}
	}
	return rep, nil
}

// buildNode creates one target node.
func (r *Rule) buildNode(pn *PNode, m *Match, en *env, name Namer) (*graph.Node, []*graph.Value, error) {
	var consts []*graph.Value
	// Tensor arguments first: computed constants take the dtype of the
	// node's first other tensor argument.
	inputs := pn.tensorInputs(m.Values, en.tgt)
	dt := graph.Undefined
	for i := range pn.Args {
		if v := inputs[pn.ArgInput[i]]; v != nil && dt == graph.Undefined {
			dt = v.DType
		}
	}
	if dt == graph.Undefined {
		dt = graph.Float32
	}
	for i, a := range pn.Args {
		if a.Kind != RefConst {
			continue
		}
		v, err := en.eval(a.Const)
		if err != nil {
			return nil, nil, err
		}
		t, err := constTensor(v, dt)
		if err != nil {
			return nil, nil, err
		}
		if a.ConstShape != nil {
			sv, err := en.eval(a.ConstShape)
			if err != nil {
				return nil, nil, err
			}
			shape := make([]int, len(sv.Ints))
			for i, d := range sv.Ints {
				shape[i] = int(d)
			}
			if graph.NumElements(shape) != t.Len() || t.Len() == 0 && len(shape) == 0 {
				return nil, nil, fmt.Errorf("const shape %v does not hold %d values", sv.Ints, t.Len())
			}
			t.Shape = shape
		}
		c := newConst(name(pn.Op+"_const"), t)
		consts = append(consts, c)
		inputs[pn.ArgInput[i]] = c
	}
	attrs := graph.Attrs{}
	if pn.Rest != nil {
		for k, a := range m.Attrs[pn.Rest.Index].Rec {
			attrs[k] = a.Clone()
		}
	}
	var splitLen int
	for _, a := range pn.Attrs {
		v, err := en.eval(a.Value)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", a.Name, err)
		}
		if !a.Param {
			if v.Unset {
				delete(attrs, a.Name)
				continue
			}
			spec := pn.Schema.Attr(a.Name)
			at, err := valueToAttr(v, spec.Kind)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", a.Name, err)
			}
			if spec.Default != nil && attrToValue(*spec.Default).Equal(v) {
				// Written defaults are left out, as exporters do.
				delete(attrs, a.Name)
				continue
			}
			attrs[a.Name] = at
			continue
		}
		if v.Unset {
			continue
		}
		ps := paramSpecs(pn.Schema)[a.Name]
		pdt := ps.DType
		if pdt == graph.FromInputDType {
			pdt = graph.Float32
			if inputs[0] != nil {
				pdt = inputs[0].DType
			}
		}
		if a.Type == KInts {
			splitLen = len(v.Ints)
		}
		t, err := constTensor(v, pdt)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", a.Name, err)
		}
		c := newConst(name(pn.Op+"_"+a.Name), t)
		consts = append(consts, c)
		inputs[a.Input] = c
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	nOut := pn.NumOutputs
	if pn.Schema.MaxOutputs() < 0 && pn.Op == "Split" && splitLen > nOut {
		nOut = splitLen
	}
	n, err := newNode(name(pn.Op), pn.Op, inputs, attrs, nOut)
	if err != nil {
		return nil, nil, err
	}
	return n, consts, nil
}

// newNode returns a node of op with nOut outputs (named like the node, with
// ":k" appended when there are several), their types inferred.
func newNode(name, op string, inputs []*graph.Value, attrs graph.Attrs, nOut int) (*graph.Node, error) {
	n := &graph.Node{Name: name, Op: op, Inputs: inputs, Attrs: attrs, Outputs: make([]*graph.Value, nOut)}
	for k := range n.Outputs {
		vn := n.Name
		if nOut > 1 {
			vn = fmt.Sprintf("%s:%d", n.Name, k)
		}
		n.Outputs[k] = &graph.Value{Name: vn}
	}
	if err := graph.InferNode(n); err != nil {
		return nil, err
	}
	return n, nil
}

// newConst wraps t in a constant value.
func newConst(name string, t *graph.Tensor) *graph.Value {
	v := &graph.Value{Name: name, Const: t}
	v.SetStatic(t.DType, t.Shape)
	return v
}

// constTensor converts a number (a scalar) or a list (1-D) to a tensor of
// dtype dt.
func constTensor(v Value, dt graph.DType) (*graph.Tensor, error) {
	var vals []float64
	var shape []int
	switch v.Kind {
	case KInt, KFloat:
		vals = []float64{v.asFloat()}
	case KInts, KFloats:
		vals = v.asFloats()
		shape = []int{len(vals)}
	default:
		return nil, fmt.Errorf("a %v value cannot be a constant tensor", v.Kind)
	}
	t := graph.NewTensor(dt, shape...)
	switch d := t.Data.(type) {
	case []float32:
		for i, x := range vals {
			d[i] = float32(x)
		}
	case []float64:
		copy(d, vals)
	case []int64:
		if v.Kind == KInts {
			copy(d, v.Ints)
		} else if v.Kind == KInt {
			d[0] = v.Int
		} else {
			for i, x := range vals {
				d[i] = int64(x)
			}
		}
	case []int32:
		for i, x := range vals {
			d[i] = int32(x)
		}
	default:
		return nil, fmt.Errorf("cannot build a constant of dtype %v", dt)
	}
	return t, nil
}
