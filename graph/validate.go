package graph

import (
	"errors"
	"fmt"
)

// Validate checks that g is well formed and reports the first problem,
// naming the node or value involved. Checks, in order:
//
//   - no nil graph, input, output, initializer or node (nil node inputs and
//     outputs are allowed for omitted optional parameters);
//   - every value has a non-empty name, unique in the graph;
//   - every node input is a graph input, a constant, or a node output;
//   - every value is produced by at most one node and node outputs are not
//     graph inputs or constants;
//   - the graph is acyclic (a wrapped *CycleError otherwise);
//   - for nodes in the op-schema table: arity, attribute names and kinds,
//     required attributes (opaque nodes skip these checks);
//   - every graph output is produced by a node, is a graph input or is a
//     constant;
//   - when every graph input has a static shape, shape inference on a copy
//     of g agrees with the dtypes and shapes recorded on g's values.
func (g *Graph) Validate() error {
	if g == nil {
		return fmt.Errorf("graph is nil")
	}
	if err := g.checkNil(); err != nil {
		return err
	}
	if err := g.checkNames(); err != nil {
		return err
	}
	prodCount := make(map[*Value]int, len(g.Nodes))
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o != nil {
				prodCount[o]++
			}
		}
	}
	isInput := make(map[*Value]bool, len(g.Inputs))
	for _, v := range g.Inputs {
		isInput[v] = true
	}
	for _, n := range g.Nodes {
		for i, in := range n.AllInputs() {
			if in == nil || isInput[in] || in.Const != nil || prodCount[in] > 0 {
				continue
			}
			what := "input"
			if i >= len(n.Inputs) {
				what, i = "implicit input", i-len(n.Inputs)
			}
			return fmt.Errorf("%v: %s %d %q is not produced by any node, not a graph input and not an initializer", n, what, i, in.Name)
		}
	}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			switch {
			case o == nil:
			case prodCount[o] > 1:
				return fmt.Errorf("%v: output %q is produced by %d nodes", n, o.Name, prodCount[o])
			case isInput[o]:
				return fmt.Errorf("%v: output %q is also a graph input", n, o.Name)
			case o.Const != nil:
				return fmt.Errorf("%v: output %q is also a constant", n, o.Name)
			}
		}
	}
	if _, err := TopoOrder(g.Nodes); err != nil {
		return fmt.Errorf("invalid graph: %w", err)
	}
	for _, n := range g.Nodes {
		if err := validateNode(n); err != nil {
			return err
		}
	}
	for i, o := range g.Outputs {
		if !isInput[o] && o.Const == nil && prodCount[o] == 0 {
			return fmt.Errorf("graph output %d %q is not produced by any node, not a graph input and not a constant", i, o.Name)
		}
	}
	return g.checkInferred()
}

// checkNil reports nil pieces of the graph.
func (g *Graph) checkNil() error {
	for i, v := range g.Inputs {
		if v == nil {
			return fmt.Errorf("graph input %d is nil", i)
		}
	}
	for i, v := range g.Outputs {
		if v == nil {
			return fmt.Errorf("graph output %d is nil", i)
		}
	}
	for i, v := range g.Initializers {
		if v == nil {
			return fmt.Errorf("initializer %d is nil", i)
		}
		if v.Const == nil {
			return fmt.Errorf("initializer %d %q has no data", i, v.Name)
		}
	}
	for i, n := range g.Nodes {
		if n == nil {
			return fmt.Errorf("node %d is nil", i)
		}
		for j, v := range n.Implicit {
			if v == nil {
				return fmt.Errorf("%v: implicit input %d is nil", n, j)
			}
		}
	}
	return nil
}

// checkNames requires a non-empty, unique name on every distinct value.
func (g *Graph) checkNames() error {
	names := make(map[string]*Value)
	check := func(v *Value, where func() string) error {
		if v == nil {
			return nil
		}
		if v.Name == "" {
			return fmt.Errorf("%s has an empty name", where())
		}
		if p, ok := names[v.Name]; ok && p != v {
			return fmt.Errorf("%s: duplicate value name %q (two different values share it)", where(), v.Name)
		}
		names[v.Name] = v
		return nil
	}
	for i, v := range g.Inputs {
		if err := check(v, func() string { return fmt.Sprintf("graph input %d", i) }); err != nil {
			return err
		}
	}
	for i, v := range g.Initializers {
		if err := check(v, func() string { return fmt.Sprintf("initializer %d", i) }); err != nil {
			return err
		}
	}
	for _, n := range g.Nodes {
		for i, v := range n.AllInputs() {
			if err := check(v, func() string { return fmt.Sprintf("%v: input %d", n, i) }); err != nil {
				return err
			}
		}
		for i, v := range n.Outputs {
			if err := check(v, func() string { return fmt.Sprintf("%v: output %d", n, i) }); err != nil {
				return err
			}
		}
	}
	for i, v := range g.Outputs {
		if err := check(v, func() string { return fmt.Sprintf("graph output %d", i) }); err != nil {
			return err
		}
	}
	return nil
}

// checkedSchema returns n's schema after checking n's arity against it;
// suffix completes the message when n's op is not in the table.
func checkedSchema(n *Node, suffix string) (*OpSchema, error) {
	s := n.Schema()
	if s == nil {
		return nil, fmt.Errorf("%v: op %q (domain %q) is not in the op-schema table%s", n, n.Op, n.Domain, suffix)
	}
	if err := checkArity(n, s); err != nil {
		return nil, fmt.Errorf("%v: %w", n, err)
	}
	return s, nil
}

// validateNode checks a node against its schema.
func validateNode(n *Node) error {
	if n.IsOpaque() {
		return nil
	}
	s, err := checkedSchema(n, " and the node is not opaque")
	if err != nil {
		return err
	}
	for _, name := range n.Attrs.Names() {
		spec := s.Attr(name)
		if spec == nil {
			return fmt.Errorf("%v: unknown attribute %q", n, name)
		}
		if k := n.Attrs[name].Kind; k != spec.Kind {
			return fmt.Errorf("%v: attribute %q has kind %v, want %v", n, name, k, spec.Kind)
		}
	}
	for _, spec := range s.Attrs {
		if _, ok := n.Attrs[spec.Name]; spec.Required && !ok {
			return fmt.Errorf("%v: required attribute %q is missing", n, spec.Name)
		}
	}
	return nil
}

// checkInferred re-infers a copy of g whose inputs are static and compares
// the result with the types recorded on g. Nodes whose inputs have no static
// shape in the copy (behind an opaque node without recorded shapes) are
// skipped.
func (g *Graph) checkInferred() error {
	for _, in := range g.Inputs {
		if in.Const == nil && (!in.ShapeKnown || !in.Shape.Static()) {
			return nil
		}
	}
	c, vm := g.CloneWithMap()
	if err := c.Sort(); err != nil {
		return err
	}
	for _, v := range vm {
		if v.Const != nil {
			if v.ShapeKnown && !compatible(v.Shape, StaticShape(v.Const.Shape...)) {
				return fmt.Errorf("constant %q: shape mismatch: recorded %v, data has %v", v.Name, v.Shape, ShapeString(v.Const.Shape))
			}
			if v.DType != Undefined && v.DType != v.Const.DType {
				return fmt.Errorf("constant %q: dtype mismatch: recorded %v, data has %v", v.Name, v.DType, v.Const.DType)
			}
			v.SetStatic(v.Const.DType, v.Const.Shape)
		}
	}
nodes:
	for _, n := range c.Nodes {
		for _, in := range n.Inputs {
			if in != nil && (!in.ShapeKnown || !in.Shape.Static()) {
				continue nodes
			}
		}
		if n.IsOpaque() {
			continue
		}
		if err := inferChecked(n); err != nil {
			var dyn *DynamicValueError
			if errors.As(err, &dyn) {
				// Shapes depend on run-time values: keep what was
				// recorded and check the rest of the graph.
				continue
			}
			return err
		}
	}
	return nil
}
