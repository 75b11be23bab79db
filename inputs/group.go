package inputs

import (
	"slices"
	"sort"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// Group is input sets whose tensors have the same shapes.
type Group struct {
	// Shapes maps each non-constant input to its shape in these sets,
	// for graph.BindShapes.
	Shapes map[string][]int
	// Sets are the sets, their tensors keyed by input name.
	Sets []Set
}

// ByShape matches each set to g's inputs (Set.Match; g may still have
// symbolic dimensions) and groups the sets by their shapes, in the order
// the shapes first appear.
func ByShape(g *graph.Graph, sets []Set) ([]Group, error) {
	var groups []Group
	for _, s := range sets {
		m, err := s.Match(g)
		if err != nil {
			return nil, err
		}
		shapes := make(map[string][]int, len(m))
		for name, t := range m {
			shapes[name] = slices.Clone(t.Shape)
		}
		s = Set{Name: s.Name, Tensors: m}
		i := slices.IndexFunc(groups, func(gr Group) bool { return sameShapes(gr.Shapes, shapes) })
		if i < 0 {
			groups = append(groups, Group{Shapes: shapes})
			i = len(groups) - 1
		}
		groups[i].Sets = append(groups[i].Sets, s)
	}
	return groups, nil
}

// Binding renders the group's shapes as "sr=scalar x=1x512".
func (gr Group) Binding() string {
	names := make([]string, 0, len(gr.Shapes))
	for n := range gr.Shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + graph.ShapeString(gr.Shapes[n])
	}
	return strings.Join(parts, " ")
}

// sameShapes reports whether a and b bind the same inputs to the same
// shapes.
func sameShapes(a, b map[string][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, s := range a {
		if t, ok := b[k]; !ok || !slices.Equal(s, t) {
			return false
		}
	}
	return true
}

// Fits reports whether g's non-constant inputs are bound to the group's
// shapes, so that its sets can run on g as it is.
func (gr Group) Fits(g *graph.Graph) bool {
	for _, v := range g.Inputs {
		if v.Const != nil {
			continue
		}
		shape, err := v.StaticShape()
		if err != nil || !slices.Equal(shape, gr.Shapes[v.Name]) {
			return false
		}
	}
	return true
}
