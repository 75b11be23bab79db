package verify_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
)

// A mutation is a small wrong edit of a model that only realistic inputs
// reveal. Its sites are found by a deterministic walk over the graph and
// its bodies, so that site k of a clone is site k of the original.
type mutation struct {
	name string
	// sites returns the places of g where the mutation applies.
	sites func(g *graph.Graph) []site
	// apply edits one site (of a clone).
	apply func(s site)
}

// site is a node (or, for inputs, an input index) in graph g, reached
// through the bodies chain (outermost first), which must be marked
// edited when g changes.
type site struct {
	g     *graph.Graph
	n     *graph.Node
	input int
	chain []*graph.Body
}

// String names the site in messages.
func (s site) String() string {
	switch {
	case s.n == nil:
		return fmt.Sprintf("input %q", s.g.Inputs[s.input].Name)
	case s.n.Op == "If":
		return fmt.Sprintf("%s of If %q", s.n.Bodies[s.input].Attr, s.n.Name)
	}
	where := ""
	for _, b := range s.chain {
		where += b.Attr + "/"
	}
	return fmt.Sprintf("%s%s %q", where, s.n.Op, s.n.Name)
}

// edited marks the bodies that lead to the site as rewritten, so that
// export encodes them again.
func (s site) edited() {
	for _, b := range s.chain {
		b.Edited = true
	}
}

// mutations are the edits of the mutation check.
var mutations = []mutation{
	{"integer input offset by 2", intInputs, offsetInput},
	{"the other If branch in place of one", ifBranches, otherBranch},
	{"a Loop's second iteration changed", nodesWhere(isLoopWithFloatState), changeSecondIteration},
	{"Gather index off by one above 1", nodesWhere(isGatherOfInputIndices), gatherOffByOne},
}

// walkGraphs calls f on g and on every body graph within, with the chain
// of bodies leading to it.
func walkGraphs(g *graph.Graph, chain []*graph.Body, f func(g *graph.Graph, chain []*graph.Body)) {
	f(g, chain)
	for _, n := range g.Nodes {
		for _, b := range n.Bodies {
			walkGraphs(b.Graph, append(append([]*graph.Body(nil), chain...), b), f)
		}
	}
}

// nodesWhere returns the sites of the nodes, anywhere, that ok accepts.
func nodesWhere(ok func(n *graph.Node) bool) func(g *graph.Graph) []site {
	return func(g *graph.Graph) []site {
		var out []site
		walkGraphs(g, nil, func(g *graph.Graph, chain []*graph.Body) {
			for _, n := range g.Nodes {
				if ok(n) {
					out = append(out, site{g: g, n: n, chain: chain})
				}
			}
		})
		return out
	}
}

// intInputs returns the integer inputs of the model.
func intInputs(g *graph.Graph) []site {
	var out []site
	for i, v := range g.Inputs {
		if v.Const == nil && (v.DType == graph.Int64 || v.DType == graph.Int32) {
			out = append(out, site{g: g, input: i})
		}
	}
	return out
}

// scalarOf returns a scalar constant of dtype dt holding v, named after
// base as g does not name anything yet.
func scalarOf(g *graph.Graph, base string, dt graph.DType, v float64) *graph.Value {
	t := graph.NewTensor(dt)
	switch d := t.Data.(type) {
	case []int64:
		d[0] = int64(v)
	case []int32:
		d[0] = int32(v)
	case []float32:
		d[0] = float32(v)
	case []float64:
		d[0] = v
	}
	c := fresh(g, base, dt, graph.StaticShape())
	c.Const = t
	return c
}

// fresh returns a value of dtype dt and the given shape, named after base
// as g does not name anything yet.
func fresh(g *graph.Graph, base string, dt graph.DType, shape graph.Shape) *graph.Value {
	used := g.Names()
	name := base
	for i := 1; used[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return &graph.Value{Name: name, DType: dt, Shape: shape.Clone(), ShapeKnown: true}
}

// insert adds node op(ins) with output out to s's graph and marks the
// site's bodies edited.
func (s site) insert(op string, attrs graph.Attrs, out *graph.Value, ins ...*graph.Value) *graph.Value {
	s.g.Nodes = append(s.g.Nodes, &graph.Node{Name: out.Name, Op: op, Inputs: ins, Outputs: []*graph.Value{out}, Attrs: attrs})
	s.edited()
	return out
}

// offsetInput makes the model read input+2 where it read the input: the
// input value becomes the output of an Add of a new input.
func offsetInput(s site) {
	v := s.g.Inputs[s.input]
	raw := fresh(s.g, v.Name+"_raw", v.DType, v.Shape)
	s.g.Inputs[s.input] = raw
	s.insert("Add", nil, v, raw, scalarOf(s.g, v.Name+"_plus", v.DType, 2))
}

// ifBranches returns two sites per If whose branches differ: its then
// branch (input 0) and its else branch (input 1).
func ifBranches(g *graph.Graph) []site {
	var out []site
	for _, s := range nodesWhere(isIfWithDistinctBranches)(g) {
		for j := range 2 {
			s.input = j
			out = append(out, s)
		}
	}
	return out
}

// isIfWithDistinctBranches reports an If whose branches differ.
func isIfWithDistinctBranches(n *graph.Node) bool {
	return n.Op == "If" && len(n.Bodies) == 2 &&
		n.Bodies[0].Graph.CanonicalHash() != n.Bodies[1].Graph.CanonicalHash()
}

// otherBranch puts a copy of the If's other branch in place of branch
// s.input: the If computes the same on inputs that take the other way.
func otherBranch(s site) {
	j := s.input
	c := s.n.Bodies[1-j].Clone()
	c.Attr, c.Edited = s.n.Bodies[j].Attr, true
	s.n.Bodies[j] = c
	s.edited()
}

// isLoopWithFloatState reports a Loop whose first carried value is float.
func isLoopWithFloatState(n *graph.Node) bool {
	if n.Op != "Loop" || len(n.Bodies) != 1 {
		return false
	}
	b := n.Bodies[0].Graph
	return len(b.Outputs) > 1 && b.Outputs[1].DType.IsFloat() && b.Outputs[1].ShapeKnown
}

// changeSecondIteration adds 0.5 to the Loop's first carried value on the
// iteration numbered 1 only.
func changeSecondIteration(s site) {
	body := s.n.Bodies[0]
	s = site{g: body.Graph, chain: append(append([]*graph.Body(nil), s.chain...), body)}
	out := body.Graph.Outputs[1]
	iter := body.Graph.Inputs[0]
	scalar := graph.StaticShape()
	second := s.insert("Equal", nil, fresh(s.g, "second_iteration", graph.Bool, scalar), iter, scalarOf(s.g, "iteration_one", iter.DType, 1))
	flag := s.insert("Cast", graph.Attrs{"to": graph.IntAttr(int64(out.DType))}, fresh(s.g, "second_iteration_f", out.DType, scalar), second)
	bump := s.insert("Mul", nil, fresh(s.g, "second_iteration_bump", out.DType, scalar), flag, scalarOf(s.g, "half", out.DType, 0.5))
	body.Graph.Outputs[1] = s.insert("Add", nil, fresh(s.g, out.Name+"_changed", out.DType, out.Shape), out, bump)
}

// isGatherOfInputIndices reports a Gather whose indices are computed at
// run time (not a constant, not known to shape inference).
func isGatherOfInputIndices(n *graph.Node) bool {
	idx := n.Input(1)
	return n.Op == "Gather" && idx != nil && idx.Const == nil && idx.Known == nil && idx.ShapeKnown
}

// gatherOffByOne makes the Gather read index i-1 for every index i above 1.
func gatherOffByOne(s site) {
	idx := s.n.Inputs[1]
	above := s.insert("Greater", nil, fresh(s.g, idx.Name+"_above_one", graph.Bool, idx.Shape), idx, scalarOf(s.g, idx.Name+"_one", idx.DType, 1))
	less := s.insert("Sub", nil, fresh(s.g, idx.Name+"_less", idx.DType, idx.Shape), idx, scalarOf(s.g, idx.Name+"_one_off", idx.DType, 1))
	s.n.Inputs[1] = s.insert("Where", nil, fresh(s.g, idx.Name+"_off_by_one", idx.DType, idx.Shape), above, less, idx)
}

// mutants returns, for each mutation, its mutants of m (one per site,
// each a clone with that site edited, its nodes sorted and shapes
// inferred again) and the site names.
func mutants(m *graph.Model, mu mutation) ([]*graph.Model, []string, error) {
	var out []*graph.Model
	var names []string
	for k := range mu.sites(m.Graph) {
		c := m.Clone()
		s := mu.sites(c.Graph)[k]
		names = append(names, s.String())
		mu.apply(s)
		var err error
		walkGraphs(c.Graph, nil, func(g *graph.Graph, _ []*graph.Body) {
			if e := g.Sort(); e != nil && err == nil {
				err = e
			}
		})
		if err == nil {
			err = c.Graph.InferShapes()
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s at %s: %w", mu.name, s, err)
		}
		out = append(out, c)
	}
	return out, names, nil
}

// zeroOneInputs draws inputs as verification did before integers were
// drawn over their ranges: an integer input a Gather reads as indices is
// uniform below the indexed axis, any other integer is 0 or 1.
func zeroOneInputs(g *graph.Graph, seed uint64) (map[string]*graph.Tensor, error) {
	in, err := inputs.Random(g, seed)
	if err != nil {
		return nil, err
	}
	gathered := map[*graph.Value]bool{}
	for _, n := range g.Nodes {
		if n.Op == "Gather" && len(n.Inputs) > 1 {
			gathered[n.Inputs[1]] = true
		}
	}
	r := rand.New(rand.NewPCG(seed, 1))
	for _, v := range g.Inputs {
		t := in[v.Name]
		if t == nil || gathered[v] {
			continue
		}
		switch d := t.Data.(type) {
		case []int64:
			for i := range d {
				d[i] = int64(r.IntN(2))
			}
		case []int32:
			for i := range d {
				d[i] = int32(r.IntN(2))
			}
		}
	}
	return in, nil
}
