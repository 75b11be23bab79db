package inputs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// Set is one input set of a model: a tensor per input.
type Set struct {
	// Name names the set in reports: "seed 3" for a random set, the file
	// or directory for a user's set.
	Name string
	// Tensors holds the data, keyed by input name (or, in a user's set,
	// by the name its file gives the tensor: the TensorProto's name, the
	// .npz member's name, or the file's when the tensor has none).
	Tensors map[string]*graph.Tensor
	// Order lists the keys of Tensors in the order of the user's files
	// (input_0.pb, input_1.pb ...; an .npz's members): a key that names no
	// input of the model stands for the non-constant input at its
	// position, as in ONNX's test runner. Random sets leave it empty.
	Order []string
}

// Match returns s's tensors keyed by the names of g's non-constant
// inputs: by name, or else (for a key of Order) by position. It is an
// error when an input has no tensor or two, a tensor matches no input,
// or a tensor's element type or shape differs from its input's (when the
// input's shape is known; a dimension not bound to a size takes any).
func (s Set) Match(g *graph.Graph) (map[string]*graph.Tensor, error) {
	var free []*graph.Value
	byName := map[string]*graph.Value{}
	for _, v := range g.Inputs {
		if v.Const == nil {
			free = append(free, v)
			byName[v.Name] = v
		}
	}
	order := s.Order
	if len(order) == 0 {
		order = s.sortedNames()
	}
	out := make(map[string]*graph.Tensor, len(free))
	for i, key := range order {
		t := s.Tensors[key]
		if t == nil {
			return nil, fmt.Errorf("input set %s: no tensor %q", s.Name, key)
		}
		v, how := byName[key], ""
		if v == nil && len(s.Order) > 0 && i < len(free) {
			v, how = free[i], fmt.Sprintf("tensor %q, taken by position: ", key)
		}
		if v == nil {
			return nil, fmt.Errorf("input set %s: tensor %q matches no input of the model (inputs: %s)", s.Name, key, inputNames(free))
		}
		if out[v.Name] != nil {
			return nil, fmt.Errorf("input set %s: two tensors for input %q", s.Name, v.Name)
		}
		if err := fits(v, t); err != nil {
			return nil, fmt.Errorf("input set %s: %s%w", s.Name, how, err)
		}
		out[v.Name] = t
	}
	for _, v := range free {
		if out[v.Name] == nil {
			return nil, fmt.Errorf("input set %s: no tensor for input %q (the set holds %q)", s.Name, v.Name, order)
		}
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

// inputNames lists the names of vs for messages.
func inputNames(vs []*graph.Value) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}
