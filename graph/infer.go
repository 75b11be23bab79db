package graph

import (
	"errors"
	"fmt"
)

// maxRank is the largest tensor rank inference supports (axis sets are
// kept in 64-bit masks).
const maxRank = 64

// errOpaqueUnknown marks an opaque node whose output shapes are unknown.
var errOpaqueUnknown = errors.New("opaque op's output shapes are unknown (value_info missing)")

// InferNode computes the dtypes and static shapes of n's outputs (and, for
// small integer or float results computed from constants, their values in
// Value.Known) by running the schema's Infer function. Every present input
// must have a static shape. Errors name the node. For opaque nodes it
// returns nil when every output already has a static shape (recorded on
// import) and an error otherwise.
func InferNode(n *Node) error {
	if n.IsOpaque() {
		if IsRecurrent(n) {
			return inferRecurrent(n)
		}
		if len(n.Bodies) > 0 {
			// Bodies are inferred even when the outputs were recorded,
			// so that they can be rewritten.
			if err := inferControlFlow(n); err == nil {
				return nil
			} else if !hasStaticOutputs(n) {
				return err
			}
		}
		for _, o := range n.Outputs {
			if o != nil && (!o.ShapeKnown || !o.Shape.Static() || !o.DType.Valid()) {
				return fmt.Errorf("%v: output %q: %w", n, o.Name, errOpaqueUnknown)
			}
		}
		return nil
	}
	s, err := checkedSchema(n, "")
	if err != nil {
		return err
	}
	for i, in := range n.Inputs {
		if in == nil {
			continue
		}
		if in.Const != nil {
			if !in.ShapeKnown {
				in.SetStatic(in.Const.DType, in.Const.Shape)
			} else if !sameDims(in.Shape, in.Const.Shape) || in.DType != in.Const.DType {
				return fmt.Errorf("%v: input %d %q is recorded as %v[%v] but its constant data is %v", n, i, in.Name, in.DType, in.Shape, in.Const)
			}
		}
		if !in.ShapeKnown {
			return fmt.Errorf("%v: input %d %q has no known shape", n, i, in.Name)
		}
		if !in.Shape.Static() {
			return fmt.Errorf("%v: input %d %q has non-static shape %v", n, i, in.Name, in.Shape)
		}
		if len(in.Shape) > maxRank {
			return fmt.Errorf("%v: input %d %q has rank %d, more than the supported %d", n, i, in.Name, len(in.Shape), maxRank)
		}
	}
	if s.Infer == nil {
		return fmt.Errorf("%v: no shape inference for op %s", n, n.Op)
	}
	if err := s.Infer(n); err != nil {
		return fmt.Errorf("%v: %w", n, err)
	}
	if err := checkOutputSizes(n); err != nil {
		return err
	}
	inferSymbolic(n)
	return nil
}

// checkArity checks the number of inputs and outputs against the schema and
// that required inputs and outputs are present.
func checkArity(n *Node, s *OpSchema) error {
	if min := s.MinInputs(); len(n.Inputs) < min {
		return fmt.Errorf("has %d inputs, want at least %d", len(n.Inputs), min)
	}
	if max := s.MaxInputs(); max >= 0 && len(n.Inputs) > max {
		return fmt.Errorf("has %d inputs, want at most %d", len(n.Inputs), max)
	}
	if err := checkPresent(n.Inputs, s.Inputs, "input"); err != nil {
		return err
	}
	if min := s.MinOutputs(); len(n.Outputs) < min {
		return fmt.Errorf("has %d outputs, want at least %d", len(n.Outputs), min)
	}
	if max := s.MaxOutputs(); max >= 0 && len(n.Outputs) > max {
		return fmt.Errorf("has %d outputs, want at most %d", len(n.Outputs), max)
	}
	return checkPresent(n.Outputs, s.Outputs, "output")
}

// checkPresent reports a nil entry in a required (non-optional) position.
func checkPresent(vs []*Value, specs []InputSpec, what string) error {
	for i, v := range vs {
		if v != nil {
			continue
		}
		k := i
		if k >= len(specs) {
			k = len(specs) - 1
		}
		if k < 0 || !specs[k].Optional {
			name := "?"
			if k >= 0 {
				name = specs[k].Name
			}
			return fmt.Errorf("required %s %d (%s) is missing", what, i, name)
		}
	}
	return nil
}

// InferShapes sorts g topologically and infers the dtype and static shape
// of every node output. Every graph input must have a static shape (see
// BindShapes). Shapes recorded earlier on node outputs (for example from an
// imported value_info) are overwritten; a recorded static shape or dtype that
// disagrees with inference is an error ("shape mismatch"); to re-infer after
// changing input shapes by hand, clear ShapeKnown and DType on node outputs
// first.
func (g *Graph) InferShapes() error {
	return g.inferAll(nil)
}

// inferAll is InferShapes; when fallback is not nil, a node whose inference
// fails is handed to it with the error, and inference goes on when it
// returns nil (having set the node's output types).
func (g *Graph) inferAll(fallback func(*Node, error) error) error {
	for i, n := range g.Nodes {
		if n == nil {
			return fmt.Errorf("node %d is nil", i)
		}
	}
	if err := g.Sort(); err != nil {
		return err
	}
	for _, in := range g.Inputs {
		if in == nil {
			return fmt.Errorf("graph has a nil input")
		}
		if in.Const != nil {
			in.SetStatic(in.Const.DType, in.Const.Shape)
		}
		if !in.ShapeKnown {
			return fmt.Errorf("graph input %q has no known shape; bind it with BindShapes (--shape %s=...)", in.Name, in.Name)
		}
		for i, d := range in.Shape {
			if !d.Known() {
				return fmt.Errorf("graph input %q dimension %d (%s) is not static; bind it with BindShapes (--shape %s=...)", in.Name, i, d, in.Name)
			}
		}
		if _, err := ElementCount(in.Shape); err != nil {
			return fmt.Errorf("graph input %q: %w", in.Name, err)
		}
	}
	for _, v := range g.Initializers {
		if v != nil && v.Const != nil {
			v.SetStatic(v.Const.DType, v.Const.Shape)
		}
	}
	for _, n := range g.Nodes {
		if err := inferChecked(n); err != nil {
			if fallback == nil {
				return err
			}
			if err := fallback(n, err); err != nil {
				return err
			}
		}
	}
	return nil
}

// recorded is a node output's type before re-inference.
type recorded struct {
	dt    DType
	shape Shape
	known bool
}

// inferChecked runs InferNode and compares each output's result with the
// static type recorded before, if any.
func inferChecked(n *Node) error {
	var buf [4]recorded
	old := buf[:0]
	for _, o := range n.Outputs {
		if o == nil {
			old = append(old, recorded{})
			continue
		}
		old = append(old, recorded{o.DType, o.Shape, o.ShapeKnown})
	}
	if err := InferNode(n); err != nil {
		return err
	}
	if n.IsOpaque() {
		return nil
	}
	for i, o := range n.Outputs {
		if o == nil {
			continue
		}
		r := old[i]
		if r.known && !compatible(r.shape, o.Shape) {
			return fmt.Errorf("%v: shape mismatch for output %q: recorded %v, inferred %v", n, o.Name, r.shape, o.Shape)
		}
		if r.dt != Undefined && r.dt != o.DType {
			return fmt.Errorf("%v: dtype mismatch for output %q: recorded %v, inferred %v", n, o.Name, r.dt, o.DType)
		}
	}
	return nil
}

// compatible reports whether a recorded (possibly symbolic) shape agrees
// with an inferred static one: same rank and equal known dimensions.
func compatible(rec, inferred Shape) bool {
	if len(rec) != len(inferred) {
		return false
	}
	for i, d := range rec {
		if d.Known() && d.Value != inferred[i].Value {
			return false
		}
	}
	return true
}

// sameDims reports whether s is the static shape dims.
func sameDims(s Shape, dims []int) bool {
	if len(s) != len(dims) {
		return false
	}
	for i, d := range s {
		if d.Value != int64(dims[i]) {
			return false
		}
	}
	return true
}

// hasStaticOutputs reports whether every present output of n has a valid
// dtype and a static shape.
func hasStaticOutputs(n *Node) bool {
	for _, o := range n.Outputs {
		if o != nil && (!o.ShapeKnown || !o.Shape.Static() || !o.DType.Valid()) {
			return false
		}
	}
	return true
}
