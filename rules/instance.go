package rules

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// Instance fixes a rule's dimension symbols and attribute and record
// variables, so that its source and target become concrete graphs.
type Instance struct {
	// Dims holds each symbol's value: one entry for a dimension symbol,
	// the dimensions of a segment symbol (possibly none).
	Dims map[string][]int64
	// Attrs holds the value of each attribute and record variable; a
	// missing or unset one leaves the attribute absent in the source.
	Attrs map[string]Value
	// Seed seeds the data of constant variables.
	Seed uint64
	// Dist is the distribution the data of constant variables is drawn
	// from (the zero value is DistUnit).
	Dist Dist
}

// String formats the instance: "m=2 k=3 axis=1 c={strides=[2, 2]}".
func (in Instance) String() string {
	var parts []string
	names := make([]string, 0, len(in.Dims))
	for n := range in.Dims {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d := in.Dims[n]
		if len(d) == 1 {
			parts = append(parts, fmt.Sprintf("%s=%d", n, d[0]))
		} else {
			parts = append(parts, fmt.Sprintf("%s=%v", n, d))
		}
	}
	names = names[:0]
	for n := range in.Attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		parts = append(parts, n+"="+in.Attrs[n].String())
	}
	return strings.Join(parts, " ")
}

// ErrInvalidInstance is wrapped by Instantiate when the instance does not
// satisfy the rule (its source is not a valid graph, or a condition or a
// template fails): the instance proves nothing and samplers skip it.
var ErrInvalidInstance = errors.New("instance does not satisfy the rule")

// Instantiate builds the source and target graphs of r for inst. Every
// tensor variable becomes a float32 graph input named after it (or, when a
// condition requires isConst(v), an initializer with seeded random data,
// or with the value a constant-value predicate such as isConstValue pins);
// the source ops are added with the instance's attributes; the source is
// matched with FindMatches (so templates and conditions are checked as
// they would be in a real graph) and the target is built from that match
// with Build. Both graphs share their inputs and initializers and list the
// rule's outputs in order. An error wrapping ErrInvalidInstance means the
// instance does not satisfy the rule; any other error is a fault of the
// rule (a target that cannot be built, for example).
func (r *Rule) Instantiate(inst Instance) (src, tgt *graph.Graph, err error) {
	syms := make([]Value, len(r.Symbols))
	for _, s := range r.Symbols {
		d, ok := inst.Dims[s.Name]
		switch {
		case s.IsSeg:
			syms[s.Index] = intsVal(d)
		case !ok || len(d) != 1:
			return nil, nil, fmt.Errorf("rule %s: instance gives no value for dimension %s", r.Name, s.Name)
		default:
			syms[s.Index] = intVal(d[0])
		}
	}
	en := &env{syms: syms}
	m := &Match{Rule: r, Nodes: make([]*graph.Node, len(r.Source.Nodes)), Values: make([]*graph.Value, len(r.Vars)), Attrs: make([]Value, len(r.Vars))}
	for _, v := range r.Vars {
		if v.Kind == TensorVar {
			continue
		}
		a, ok := inst.Attrs[v.Name]
		if !ok {
			a = unsetVal(v.Type)
		}
		m.Attrs[v.Index] = a
	}
	consts, pins := r.constVars(), r.constPins()
	rng := rand.New(rand.NewPCG(inst.Seed, NameHash(r.Name)))
	src = &graph.Graph{Name: r.Name + "/source"}
	var prefix []*graph.Node
	for _, v := range r.Vars {
		if v.Kind != TensorVar {
			continue
		}
		shape, err := evalTemplate(v.Template, en)
		if err != nil {
			return nil, nil, fmt.Errorf("rule %s: %s: %v: %w", r.Name, v.Name, err, ErrInvalidInstance)
		}
		gv := &graph.Value{Name: v.Name}
		gv.SetStatic(graph.Float32, shape)
		if v.Range == RangeNonNeg && !consts[v] {
			// The matcher proves nonneg from the producer: make the value
			// the output of Relu, which covers the whole range.
			raw := &graph.Value{Name: v.Name + "/raw"}
			raw.SetStatic(graph.Float32, shape)
			src.Inputs = append(src.Inputs, raw)
			relu := &graph.Node{Name: v.Name + "/relu", Op: "Relu", Inputs: []*graph.Value{raw}, Outputs: []*graph.Value{gv}}
			prefix = append(prefix, relu)
			src.Nodes = append(src.Nodes, relu)
			m.Values[v.Index] = gv
			continue
		}
		if consts[v] {
			t := graph.NewTensor(graph.Float32, shape...)
			FillDist(t, rng, inst.Dist, v.Range)
			gv.Const = t
			src.Initializers = append(src.Initializers, gv)
		} else {
			src.Inputs = append(src.Inputs, gv)
		}
		m.Values[v.Index] = gv
	}
	if err := r.fillPinned(pins, m, en, rng); err != nil {
		return nil, nil, fmt.Errorf("rule %s: %v: %w", r.Name, err, ErrInvalidInstance)
	}
	names := graphNamer(src, "src")
	for _, pn := range r.Source.Nodes {
		n, err := r.sourceNode(pn, m, en, names)
		if err != nil {
			return nil, nil, fmt.Errorf("rule %s: source %s at %v: %v: %w", r.Name, pn.Op, pn.Pos, err, ErrInvalidInstance)
		}
		src.Nodes = append(src.Nodes, n)
		m.Nodes[pn.Index] = n
		for _, a := range pn.Attrs {
			if a.Param {
				if in := n.Inputs[a.Input]; in != nil {
					src.Initializers = append(src.Initializers, in)
				}
			}
		}
	}
	src.Outputs = m.Outputs()
	found := r.findBuilt(src, m)
	if found == nil {
		return nil, nil, fmt.Errorf("rule %s: the source does not match its own instance (a condition or template fails): %w", r.Name, ErrInvalidInstance)
	}
	rep, err := r.Build(found, graphNamer(src, "tgt"))
	if err != nil {
		return nil, nil, err
	}
	tgt = &graph.Graph{Name: r.Name + "/target", Inputs: src.Inputs}
	tgt.Initializers = append(append([]*graph.Value(nil), src.Initializers...), rep.Consts...)
	tgt.Nodes = append(prefix, rep.Nodes...)
	fresh := map[*graph.Value]bool{}
	for _, n := range rep.Nodes {
		for _, o := range n.Outputs {
			fresh[o] = true
		}
	}
	for i, o := range rep.Outputs {
		if !fresh[o] {
			// An existing value (rules like Transpose(Transpose(x)) => x):
			// give the output its own node so every output is computed.
			out := &graph.Value{Name: fmt.Sprintf("%s/output_%d", r.Name, i)}
			id := &graph.Node{Name: out.Name, Op: "Identity", Inputs: []*graph.Value{o}, Outputs: []*graph.Value{out}}
			if err := graph.InferNode(id); err != nil {
				return nil, nil, err
			}
			tgt.Nodes = append(tgt.Nodes, id)
			o = out
		}
		delete(fresh, o)
		tgt.Outputs = append(tgt.Outputs, o)
	}
	if err := src.Validate(); err != nil {
		return nil, nil, fmt.Errorf("rule %s: source graph: %w", r.Name, err)
	}
	if err := tgt.Validate(); err != nil {
		return nil, nil, fmt.Errorf("rule %s: target graph: %w", r.Name, err)
	}
	return src, tgt, nil
}

// findBuilt matches r in its own instance graph and returns the match on
// the nodes that were built for the source.
func (r *Rule) findBuilt(src *graph.Graph, built *Match) *Match {
	for _, fm := range NewIndex(src).FindMatches(r) {
		same := true
		for i, n := range fm.Nodes {
			if n != built.Nodes[i] {
				same = false
				break
			}
		}
		if same {
			return fm
		}
	}
	return nil
}

// tensorInputs returns the node's inputs with its variable and node arguments
// filled in from vars and nodes (indexed by Var.Index and Node.Index);
// constant arguments are left nil.
func (pn *PNode) tensorInputs(vars []*graph.Value, nodes []*graph.Node) []*graph.Value {
	inputs := make([]*graph.Value, pn.NumInputs)
	for i, a := range pn.Args {
		switch a.Kind {
		case RefVar:
			inputs[pn.ArgInput[i]] = vars[a.Var.Index]
		case RefNode:
			inputs[pn.ArgInput[i]] = nodes[a.Node.Index].Outputs[a.Output]
		}
	}
	return inputs
}

// sourceNode builds one source node of an instance.
func (r *Rule) sourceNode(pn *PNode, m *Match, en *env, name Namer) (*graph.Node, error) {
	inputs := pn.tensorInputs(m.Values, m.Nodes)
	em := &env{m: m, syms: en.syms}
	attrs := graph.Attrs{}
	if pn.Rest != nil {
		for k, a := range m.Attrs[pn.Rest.Index].Rec {
			attrs[k] = a.Clone()
		}
	}
	splitLen := 0
	for _, a := range pn.Attrs {
		v, err := em.eval(a.Value)
		if err != nil {
			return nil, err
		}
		if v.Unset {
			continue
		}
		if !a.Param {
			spec := pn.Schema.Attr(a.Name)
			at, err := valueToAttr(v, spec.Kind)
			if err != nil {
				return nil, err
			}
			if spec.Default != nil && attrToValue(*spec.Default).Equal(v) {
				continue
			}
			attrs[a.Name] = at
			continue
		}
		ps := paramSpecs(pn.Schema)[a.Name]
		dt := ps.DType
		if dt == graph.FromInputDType {
			dt = graph.Float32
		}
		if a.Type == KInts {
			splitLen = len(v.Ints)
		}
		t, err := constTensor(v, dt)
		if err != nil {
			return nil, err
		}
		inputs[a.Input] = newConst(name(pn.Op+"_"+a.Name), t)
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	nOut := pn.NumOutputs
	if pn.Op == "Split" && splitLen > nOut {
		nOut = splitLen
	}
	n, err := newNode(name(pn.Op), pn.Op, inputs, attrs, nOut)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// constVars returns the tensor variables some condition requires to be
// constants (isConst(v), or a constant-value predicate such as
// isConstValue(v, 0.5), possibly inside && or !... only plain calls
// count).
func (r *Rule) constVars() map[*Var]bool {
	out := map[*Var]bool{}
	for _, c := range r.Conds {
		if c.Op == ECall && c.Name == "isConst" && len(c.Args) == 1 && c.Args[0].Var != nil {
			out[c.Args[0].Var] = true
		}
	}
	for v := range r.constPins() {
		out[v] = true
	}
	return out
}

// evalTemplate computes a template's concrete shape.
func evalTemplate(t *Template, en *env) ([]int, error) {
	var shape []int
	for _, d := range t.Dims {
		if d.Seg != nil {
			for _, x := range en.syms[d.Seg.Index].Ints {
				shape = append(shape, int(x))
			}
			continue
		}
		v, err := en.eval(d.Expr)
		if err != nil {
			return nil, err
		}
		if v.Int < 1 {
			return nil, fmt.Errorf("dimension %s is %d", d.Expr, v.Int)
		}
		shape = append(shape, int(v.Int))
	}
	return shape, nil
}

// FillRandom fills a float tensor with uniform values in [-1, 1), or in
// [0.5, 1.5) when positive.
func FillRandom(t *graph.Tensor, rng *rand.Rand, positive bool) {
	lo, span := -1.0, 2.0
	if positive {
		lo, span = 0.5, 1.0
	}
	switch d := t.Data.(type) {
	case []float32:
		for i := range d {
			d[i] = float32(lo + span*rng.Float64())
		}
	case []float64:
		for i := range d {
			d[i] = lo + span*rng.Float64()
		}
	}
}

// NameHash returns the FNV-1a hash of s: the per-rule part of the seeds
// from which instances and verification inputs are drawn.
func NameHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
