package rewrite

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// Symbolic shapes in whole-graph passes. On a graph bound with
// graph.BindOptions.KeepSymbols a dimension is its size at the tuning
// binding and, when it depends on the model's symbolic input dimensions,
// the expression that gives it at every binding. A pass that rebuilds
// values computes their shapes as graph.Dims (dimMul, dimDiv, ...), so
// that a condition holds for every binding or is not taken to hold, and
// gives every shape tensor it creates a form valid at every binding
// (shapeSource): a constant when the shape is fixed, Reshape's 0 and -1
// where they say it, else a tensor computed at run time from the shapes
// of the graph inputs. New values take their shapes from graph.InferNode,
// which labels them, and are checked against the shape the pass expects.

// dims returns v's shape, expressions included (an empty, non-nil shape
// for a scalar), or nil when v has no known static shape.
func dims(v *graph.Value) graph.Shape {
	if v == nil || !v.ShapeKnown || !v.Shape.Static() {
		return nil
	}
	if v.Shape == nil {
		return graph.Shape{}
	}
	return v.Shape
}

// fixedDim returns the plain dimension n.
func fixedDim(n int64) graph.Dim { return graph.Dim{Value: n} }

// isFixed reports whether d is the plain size n at every binding.
func isFixed(d graph.Dim, n int64) bool { return d.Param == "" && d.Value == n }

// dimMul returns a*b.
func dimMul(a, b graph.Dim) graph.Dim {
	return graph.SymDim(a.Value*b.Value, a.Sym().Mul(b.Sym()))
}

// dimAdd returns a+b.
func dimAdd(a, b graph.Dim) graph.Dim {
	return graph.SymDim(a.Value+b.Value, a.Sym().Add(b.Sym()))
}

// dimSub returns a-b.
func dimSub(a, b graph.Dim) graph.Dim {
	return graph.SymDim(a.Value-b.Value, a.Sym().Sub(b.Sym()))
}

// dimDiv returns a/b when b divides a at every binding.
func dimDiv(a, b graph.Dim) (graph.Dim, bool) {
	if b.Value == 0 || a.Value%b.Value != 0 {
		return graph.Dim{}, false
	}
	q, ok := a.Sym().DivExact(b.Sym())
	if !ok {
		return graph.Dim{}, false
	}
	return graph.SymDim(a.Value/b.Value, q), true
}

// dimProduct returns the product of s's dimensions.
func dimProduct(s graph.Shape) graph.Dim {
	p := fixedDim(1)
	for _, d := range s {
		p = dimMul(p, d)
	}
	return p
}

// dimMinMax returns the smaller (isMin) or larger of a and b when that is
// the same one at every binding.
func dimMinMax(a, b graph.Dim, isMin bool) (graph.Dim, bool) {
	if a == b {
		return a, true
	}
	if a.Param == "" && b.Param == "" {
		if (a.Value < b.Value) == isMin {
			return a, true
		}
		return b, true
	}
	m := a.Sym().Max(b.Sym())
	if isMin {
		m = a.Sym().Min(b.Sym())
	}
	switch {
	case m.Equal(a.Sym()):
		return a, true
	case m.Equal(b.Sym()):
		return b, true
	}
	return graph.Dim{}, false
}

// positiveDim reports whether d is at least 1 at every binding: a plain
// size of at least 1, or a product of symbols with a positive coefficient.
func positiveDim(d graph.Dim) bool {
	if d.Param == "" {
		return d.Value >= 1
	}
	_, c, ok := monomial(d.Sym())
	return ok && c >= 1
}

// monomial splits e into its symbols (with repetition) and a coefficient
// when e is one product of input symbols (or of their minimum with a
// constant, cappedSymbol).
func monomial(e graph.Sym) ([]string, int64, bool) {
	var atoms []string
	rest := e
	for _, a := range e.Atoms() {
		if !plainSymbol(a) && !cappedSymbol(a) {
			return nil, 0, false
		}
		for {
			q, ok := rest.DivExact(graph.SymAtom(a))
			if !ok {
				break
			}
			atoms = append(atoms, a)
			rest = q
		}
	}
	c, ok := rest.Const()
	if !ok {
		return nil, 0, false
	}
	return atoms, c, true
}

// plainSymbol reports whether the atom a is an input dimension's name (not
// a floor, min or max of other expressions, nor a size inference could not
// follow).
func plainSymbol(a string) bool {
	s := graph.SymAtom(a).Symbols()
	return len(s) == 1 && s[0] == a && !strings.HasPrefix(a, "?")
}

// inferAs infers n's outputs and checks that output 0 has shape want,
// expressions included.
func inferAs(n *graph.Node, want graph.Shape) error {
	if err := graph.InferNode(n); err != nil {
		return err
	}
	if got := n.Outputs[0].Shape; !got.Equal(want) {
		return fmt.Errorf("%v: output %s, want %s", n, got.SymString(), want.SymString())
	}
	return nil
}

// inferInto infers n with a scratch output 0 and, when it has orig's type
// and shape, makes orig n's output: n then recomputes an existing value
// (which inference must not overwrite, as it may be shared with the input
// graph).
func inferInto(n *graph.Node, orig *graph.Value) error {
	n.Outputs = []*graph.Value{{Name: orig.Name}}
	if err := inferAs(n, orig.Shape); err != nil {
		return err
	}
	if n.Outputs[0].DType != orig.DType {
		return fmt.Errorf("%v: output %v, want %v", n, n.Outputs[0].DType, orig.DType)
	}
	n.Outputs[0] = orig
	return nil
}

// shapeSource makes the int64 tensors a pass's new nodes need for shapes
// and bounds: constants where they are fixed, else values computed at run
// time from the shapes of the graph inputs, where every symbol comes from.
// Nodes it creates are inferred and handed to add.
type shapeSource struct {
	inputs []*graph.Value
	names  map[string]bool
	add    func(*graph.Node)
	shapes map[*graph.Value]*graph.Value // Shape of a graph input
	dims   map[string]*graph.Value       // [1]-tensor per expression
}

// newShapeSource returns a shapeSource for a pass over g, naming what it
// creates uniquely in names and handing new nodes to add.
func newShapeSource(g *graph.Graph, names map[string]bool, add func(*graph.Node)) *shapeSource {
	return &shapeSource{inputs: g.Inputs, names: names, add: add,
		shapes: map[*graph.Value]*graph.Value{}, dims: map[string]*graph.Value{}}
}

// shapeCaches is what a shapeSource has made so far (see save).
type shapeCaches struct {
	shapes map[*graph.Value]*graph.Value
	dims   map[string]*graph.Value
}

// save returns what s has made so far, for restore.
func (s *shapeSource) save() shapeCaches {
	return shapeCaches{shapes: maps.Clone(s.shapes), dims: maps.Clone(s.dims)}
}

// restore forgets what s made since save returned c: the caller drops
// those nodes.
func (s *shapeSource) restore(c shapeCaches) { s.shapes, s.dims = c.shapes, c.dims }

// constInt64 returns a new 1-D int64 constant.
func (s *shapeSource) constInt64(base string, data []int64) *graph.Value {
	v := &graph.Value{Name: graph.UniqueName(s.names, base), Const: graph.FromInt64(data, len(data))}
	v.SetStatic(graph.Int64, []int{len(data)})
	return v
}

// node adds op(ins) with one new output named after base, inferred.
func (s *shapeSource) node(op, base string, attrs graph.Attrs, ins ...*graph.Value) (*graph.Value, error) {
	n := &graph.Node{Name: graph.UniqueName(s.names, base), Op: op, Attrs: attrs, Inputs: ins,
		Outputs: []*graph.Value{{Name: graph.UniqueName(s.names, base)}}}
	if err := graph.InferNode(n); err != nil {
		return nil, err
	}
	s.add(n)
	return n.Outputs[0], nil
}

// reshapeTo returns the shape input of a Reshape of x to want that is valid
// at every binding: a constant naming fixed dimensions, 0 for a dimension
// that copies x's at the same position and -1 for one other symbolic
// dimension; or, when more than one is left, a tensor computed at run
// time. base names what is created.
func (s *shapeSource) reshapeTo(x *graph.Value, want graph.Shape, base string) (*graph.Value, error) {
	spec, err := reshapeConstant(x.Shape, want)
	if err != nil {
		return nil, err
	}
	if spec != nil {
		return s.constInt64(base, spec), nil
	}
	return s.vector(want, base)
}

// reshapeConstant returns the constant shape input of a Reshape of a value
// of shape in to want that is valid at every binding: fixed sizes, 0 for
// a dimension that copies in's at the same position and -1 for one other
// symbolic dimension; nil when more than one is left. It fails when the
// sizes differ at some binding or want has a dimension of 0.
func reshapeConstant(in, want graph.Shape) ([]int64, error) {
	if !dimProduct(in).Sym().Equal(dimProduct(want).Sym()) {
		return nil, fmt.Errorf("cannot reshape %s to %s at every binding", in.SymString(), want.SymString())
	}
	spec := make([]int64, len(want))
	open := -1
	for i, d := range want {
		switch {
		case d.Param == "" && d.Value > 0:
			spec[i] = d.Value
		case d.Param == "":
			return nil, fmt.Errorf("cannot reshape to %s: a dimension of 0", want.SymString())
		case i < len(in) && in[i] == d:
			spec[i] = 0
		case open >= 0:
			return nil, nil
		default:
			open = i
			spec[i] = -1
		}
	}
	return spec, nil
}

// vector returns a 1-D int64 tensor holding ds: a constant when they are
// fixed, else the concatenation of each dimension computed at run time.
func (s *shapeSource) vector(ds []graph.Dim, base string) (*graph.Value, error) {
	fixed := make([]int64, len(ds))
	sym := false
	for i, d := range ds {
		fixed[i] = d.Value
		sym = sym || d.Param != ""
	}
	if !sym {
		return s.constInt64(base, fixed), nil
	}
	parts := make([]*graph.Value, len(ds))
	for i, d := range ds {
		if d.Param == "" {
			parts[i] = s.constInt64(base+"_dim", []int64{d.Value})
			continue
		}
		v, err := s.dim(d)
		if err != nil {
			return nil, err
		}
		parts[i] = v
	}
	return s.node("Concat", base, graph.Attrs{"axis": graph.IntAttr(0)}, parts...)
}

// dim returns a [1]-tensor holding the symbolic dimension d at run time:
// the product of the input dimensions it names, times its coefficient.
func (s *shapeSource) dim(d graph.Dim) (*graph.Value, error) {
	if v := s.dims[d.Param]; v != nil {
		return v, nil
	}
	atoms, c, ok := monomial(d.Sym())
	if !ok || c < 1 {
		return nil, fmt.Errorf("dimension %s is not a product of input dimensions", d.Param)
	}
	var acc *graph.Value
	for _, a := range atoms {
		v, err := s.atom(a)
		if err != nil {
			return nil, err
		}
		if acc == nil {
			acc = v
			continue
		}
		if acc, err = s.node("Mul", "sym_"+a+"_mul", nil, acc, v); err != nil {
			return nil, err
		}
	}
	if c != 1 {
		var err error
		if acc, err = s.node("Mul", "sym_coef", nil, acc, s.constInt64("sym_coef", []int64{c})); err != nil {
			return nil, err
		}
	}
	s.dims[d.Param] = acc
	return acc, nil
}

// atom returns a [1]-tensor holding the input dimension named a: a Gather
// from the Shape of the first graph input that has it.
func (s *shapeSource) atom(a string) (*graph.Value, error) {
	want := graph.SymAtom(a).String()
	if v := s.dims[want]; v != nil {
		return v, nil
	}
	if c, x, ok := minAtom(a); ok {
		// min(c, x): a Min of the constant and x at run time.
		xv, err := s.dim(graph.SymDim(0, x))
		if err != nil {
			return nil, err
		}
		v, err := s.node("Min", "sym_min", nil, s.constInt64("sym_min_bound", []int64{c}), xv)
		if err != nil {
			return nil, err
		}
		s.dims[want] = v
		return v, nil
	}
	for _, in := range s.inputs {
		if in == nil || in.IsConst() {
			continue
		}
		i := slices.IndexFunc(in.Shape, func(d graph.Dim) bool { return d.Param == want })
		if i < 0 {
			continue
		}
		sh := s.shapes[in]
		if sh == nil {
			var err error
			if sh, err = s.node("Shape", in.Name+"_shape", nil, in); err != nil {
				return nil, err
			}
			s.shapes[in] = sh
		}
		v, err := s.node("Gather", "sym_"+a, graph.Attrs{"axis": graph.IntAttr(0)}, sh, s.constInt64("sym_"+a+"_axis", []int64{int64(i)}))
		if err != nil {
			return nil, err
		}
		s.dims[want] = v
		return v, nil
	}
	return nil, fmt.Errorf("no graph input has the dimension %s", a)
}

// cappedSymbol reports whether the atom a is min(c, x) with x a product
// of input dimensions: shapeSource.atom computes it at run time.
func cappedSymbol(a string) bool {
	_, x, ok := minAtom(a)
	if !ok {
		return false
	}
	_, c, ok := monomial(x)
	return ok && c >= 1
}

// minAtom splits the derived atom "min(c,x)" (graph.Sym's canonical form
// of the minimum of a positive constant c and an expression x) into c and
// x.
func minAtom(a string) (c int64, x graph.Sym, ok bool) {
	if !strings.HasPrefix(a, "min(") || !strings.HasSuffix(a, ")") {
		return 0, graph.Sym{}, false
	}
	args := strings.Split(strings.TrimSuffix(strings.TrimPrefix(a, "min("), ")"), ",")
	if len(args) != 2 {
		return 0, graph.Sym{}, false
	}
	for i, arg := range args {
		e, err1 := graph.ParseSym(arg)
		o, err2 := graph.ParseSym(args[1-i])
		if c, isConst := e.Const(); err1 == nil && err2 == nil && isConst && c > 0 && !o.IsConst() &&
			graph.SymConst(c).Min(o).Equal(graph.SymAtom(a)) {
			return c, o, true
		}
	}
	return 0, graph.Sym{}, false
}

// replaceShape adds nodes that compute the output of the Shape node n
// from the graph inputs' shapes instead of reading n's input: a pass that
// no longer computes that input in full (or at all) keeps n's readers.
// The last node writes n's own output value.
func (s *shapeSource) replaceShape(n *graph.Node) error {
	x := n.Inputs[0]
	r := int64(len(x.Shape))
	norm := func(v int64) int64 {
		if v < 0 {
			v += r
		}
		return min(max(v, 0), r)
	}
	start, end := norm(attrInt(n, "start", 0)), norm(attrInt(n, "end", r))
	if end < start {
		end = start
	}
	parts := make([]*graph.Value, 0, end-start)
	for _, d := range x.Shape[start:end] {
		if d.Param == "" {
			parts = append(parts, s.constInt64(n.Name+"_dim", []int64{d.Value}))
			continue
		}
		v, err := s.dim(d)
		if err != nil {
			return err
		}
		parts = append(parts, v)
	}
	if len(parts) == 0 {
		return fmt.Errorf("%v: an empty shape", n)
	}
	c := &graph.Node{Name: graph.UniqueName(s.names, n.Name+"_sym"), Op: "Concat", Attrs: graph.Attrs{"axis": graph.IntAttr(0)}, Inputs: parts}
	if err := inferInto(c, n.Outputs[0]); err != nil {
		return err
	}
	s.add(c)
	return nil
}

// isShapeOp reports whether n is a default-domain Shape, which reads only
// its input's shape.
func isShapeOp(n *graph.Node) bool { return n.Op == "Shape" && defaultDomain(n) }
