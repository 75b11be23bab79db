package graph

import (
	"fmt"
	"sort"
	"strings"
)

// BindShapes fixes the dimensions of g's inputs and then runs InferShapes.
//
// For each input named in bind, the rank must match the recorded shape (if
// any) and recorded known dimensions must equal the bound ones; a symbolic
// dimension bound this way binds every dimension with the same symbol on
// the other inputs. After explicit bindings, a still unbound leading
// (index 0, batch) dimension defaults to 1 (and so does its symbol). Any
// other unbound dimension is an error that suggests the --shape flag. Names
// in bind that are not graph inputs are an error listing the valid names.
func (g *Graph) BindShapes(bind map[string][]int) error {
	return g.BindShapesWith(bind, BindOptions{})
}

// BindOptions says how BindShapesWith binds.
type BindOptions struct {
	// KeepSymbols keeps, on every bound dimension that was symbolic (or
	// unknown), the dimension's name as its Param, so that inference
	// carries each dimension's expression over the input symbols beside its
	// size at this binding (see Dim.Symbolic). An unnamed dimension is
	// named after its input and axis ("ids_dim1"). Without it, bound
	// dimensions are plain sizes: the graph is specialised to the binding.
	KeepSymbols bool
}

// BindShapesWith is BindShapes with options.
func (g *Graph) BindShapesWith(bind map[string][]int, opts BindOptions) error {
	byName := make(map[string]*Value, len(g.Inputs))
	var names []string
	for _, in := range g.Inputs {
		if in == nil {
			return fmt.Errorf("graph has a nil input")
		}
		byName[in.Name] = in
		if in.Const == nil {
			names = append(names, in.Name)
		}
	}
	bound := make([]string, 0, len(bind))
	for name := range bind {
		bound = append(bound, name)
	}
	sort.Strings(bound)
	for _, name := range bound {
		if _, ok := byName[name]; !ok {
			return fmt.Errorf("cannot bind %q: not a graph input (inputs: %s)", name, strings.Join(names, ", "))
		}
	}
	syms := make(map[string]int64)
	bindSym := func(in *Value, i int, param string, v int64) error {
		if param == "" {
			return nil
		}
		if old, ok := syms[param]; ok && old != v {
			return fmt.Errorf("input %q dimension %d (%q) bound to %d, but %q is already bound to %d", in.Name, i, param, v, param, old)
		}
		syms[param] = v
		return nil
	}
	// Explicit bindings, in input order for deterministic errors.
	for _, in := range g.Inputs {
		dims, ok := bind[in.Name]
		if !ok {
			continue
		}
		if in.ShapeKnown && len(in.Shape) != len(dims) {
			return fmt.Errorf("input %q has rank %d (shape %v), but the binding %s has rank %d", in.Name, len(in.Shape), in.Shape, ShapeString(dims), len(dims))
		}
		s := make(Shape, len(dims))
		for i, d := range dims {
			if d < 0 {
				return fmt.Errorf("input %q dimension %d: negative size %d", in.Name, i, d)
			}
			v := int64(d)
			if in.ShapeKnown {
				old := in.Shape[i]
				if old.Known() && old.Value != v {
					return fmt.Errorf("input %q dimension %d is %d, but the binding gives %d", in.Name, i, old.Value, v)
				}
				if err := bindSym(in, i, old.Param, v); err != nil {
					return err
				}
				if !old.Known() && opts.KeepSymbols {
					s[i] = Dim{Value: v, Param: symbolName(in, i, old)}
					continue
				}
			}
			s[i] = Dim{Value: v}
		}
		in.Shape = s
		in.ShapeKnown = true
	}
	// Leading dimensions default to 1 (batch size).
	for _, in := range g.Inputs {
		if !in.ShapeKnown || len(in.Shape) == 0 {
			continue
		}
		d := in.Shape[0]
		if d.Known() {
			continue
		}
		if _, ok := syms[d.Param]; d.Param != "" && ok {
			continue
		}
		if d.Param != "" {
			syms[d.Param] = 1
		}
	}
	for _, in := range g.Inputs {
		if in.Const != nil {
			continue
		}
		if !in.ShapeKnown {
			return fmt.Errorf("input %q has no recorded shape; pass --shape %s=DIMS (e.g. 1x3x224x224)", in.Name, in.Name)
		}
		s := in.Shape.Clone()
		for i, d := range s {
			if d.Known() {
				continue
			}
			if v, ok := syms[d.Param]; d.Param != "" && ok {
				s[i] = Dim{Value: v}
				if opts.KeepSymbols {
					s[i].Param = symbolName(in, i, d)
				}
				continue
			}
			if i == 0 {
				s[i] = Dim{Value: 1}
				if opts.KeepSymbols {
					s[i].Param = symbolName(in, i, d)
				}
				continue
			}
			return fmt.Errorf("input %q dimension %d (%q) is not bound; pass --shape %s=%s", in.Name, i, d.String(), in.Name, shapeHint(s))
		}
		in.Shape = s
	}
	return g.InferShapes()
}

// symbolName returns the canonical Param of input in's dimension i, whose
// declared form is d: its name as a symbol, or one made from the input's
// name and the axis when it has none.
func symbolName(in *Value, i int, d Dim) string {
	name := d.Param
	if name == "" {
		name = fmt.Sprintf("%s_dim%d", in.Name, i)
	}
	return SymAtom(name).String()
}

// shapeHint renders a shape for the --shape suggestion: known sizes as
// numbers, unbound ones as upper-case symbols (N for unnamed ones).
func shapeHint(s Shape) string {
	parts := make([]string, len(s))
	for i, d := range s {
		switch {
		case d.Known():
			parts[i] = fmt.Sprint(d.Value)
		case d.Param != "":
			parts[i] = strings.ToUpper(d.Param)
		default:
			parts[i] = "N"
		}
	}
	return strings.Join(parts, "x")
}
