package inputs

import (
	"fmt"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// Set is one input set of a model: a tensor per input.
type Set struct {
	// Name names the set in reports: "seed 3" for a random set, the file
	// or directory for a user's set.
	Name string
	// Tensors holds the data by input name; in a user's set read without
	// names (positional .pb files, an .npz of arr_0 ...), by the names
	// "#0", "#1" ... of the positions among the model's non-constant
	// inputs.
	Tensors map[string]*graph.Tensor
}

// Positional returns the key Set.Tensors uses for the tensor of the
// model's i-th non-constant input when the set does not name it.
func Positional(i int) string { return fmt.Sprintf("#%d", i) }

// Match returns s's tensors keyed by the names of g's non-constant
// inputs: by name, or else by position. It is an error when an input has
// no tensor, a tensor matches no input, or a tensor's element type or
// shape differs from its input's (when the input's shape is known; a
// dimension not bound to a size takes any).
func (s Set) Match(g *graph.Graph) (map[string]*graph.Tensor, error) {
	var free []*graph.Value
	for _, v := range g.Inputs {
		if v.Const == nil {
			free = append(free, v)
		}
	}
	out := make(map[string]*graph.Tensor, len(free))
	used := make(map[string]bool, len(s.Tensors))
	for i, v := range free {
		key := v.Name
		t, ok := s.Tensors[key]
		if !ok {
			key = Positional(i)
			t, ok = s.Tensors[key]
		}
		if !ok {
			return nil, fmt.Errorf("input set %s: no tensor for input %q (it holds %s)", s.Name, v.Name, s.names())
		}
		if err := fits(v, t); err != nil {
			return nil, fmt.Errorf("input set %s: %w", s.Name, err)
		}
		used[key] = true
		out[v.Name] = t
	}
	for _, name := range s.sortedNames() {
		if !used[name] {
			return nil, fmt.Errorf("input set %s: tensor %q matches no input of the model", s.Name, name)
		}
	}
	return out, nil
}

// Shapes returns the shapes of s's tensors matched to g's inputs (see
// Match), for graph.BindShapes.
func (s Set) Shapes(g *graph.Graph) (map[string][]int, error) {
	m, err := s.Match(g)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]int, len(m))
	for name, t := range m {
		out[name] = slices.Clone(t.Shape)
	}
	return out, nil
}

// fits checks that t can be the data of input v.
func fits(v *graph.Value, t *graph.Tensor) error {
	if t.DType != v.DType {
		return fmt.Errorf("input %q is %v, the data is %v", v.Name, v.DType, t.DType)
	}
	if !v.ShapeKnown {
		return nil
	}
	ok := len(v.Shape) == len(t.Shape)
	for i := 0; ok && i < len(t.Shape); i++ {
		d := v.Shape[i]
		ok = !d.Known() || d.Value == int64(t.Shape[i])
	}
	if !ok {
		return fmt.Errorf("input %q has shape %v, the data %s", v.Name, v.Shape, graph.ShapeString(t.Shape))
	}
	return nil
}

// sortedNames returns the keys of s.Tensors, sorted.
func (s Set) sortedNames() []string {
	names := make([]string, 0, len(s.Tensors))
	for n := range s.Tensors {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// names lists the keys of s.Tensors for messages.
func (s Set) names() string {
	names := s.sortedNames()
	if len(names) == 0 {
		return "no tensor"
	}
	return fmt.Sprintf("%q", names)
}
