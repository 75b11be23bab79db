package rewrite

import (
	"fmt"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// Rows2D computes activations whose two leading axes hold rows (batch
// and sequence) as two-dimensional values: a value of shape [A, C, D]
// has the same elements in the same order as [A*C, D]. The leading axes
// qualify when one is a plain 1 (a batch of one, batch-first or
// sequence-first) or, on a graph bound with symbols, each is a plain 1 or
// one of the model's input dimensions (batch and sequence merged into
// rows). The pass computes every row-wise op on such values in that 2-D
// form: elementwise ops (their other inputs broadcast as before at every
// binding), MatMul by a 2-D right operand, Softmax, LayerNormalization and
// keepdims reductions over the last axis, and Slices of the last axis.
// Transposes that only swap a unit axis with the other leading one and
// Reshapes between those forms disappear; Reshapes are added where a 2-D
// value meets a reader that needs the 3-D one, with shapes valid at every
// binding (shapeSource).
//
// For ONNX Runtime this matters beyond the removed nodes: its
// SkipLayerNormalization fusion (a residual Add followed by
// LayerNormalization) matches only 3-D inputs, and its CPU kernel is
// several times slower than LayerNormalization plus Add at [128, 384];
// MatMul followed by a bias Add becomes Gemm without the reshapes ONNX
// Runtime otherwise inserts. It reports whether anything changed; g is
// not modified.
func Rows2D(g *graph.Graph) (*graph.Graph, bool, error) {
	if g == nil {
		return nil, false, fmt.Errorf("rewrite: Rows2D: nil graph")
	}
	if !hasRowsForm(g) {
		return g, false, nil // every conversion starts from a rows value
	}
	r := &rows2d{g: g, names: g.Names(), flat: map[*graph.Value]*graph.Value{}, rep: map[*graph.Value]*graph.Value{},
		produced: map[*graph.Value]bool{}}
	r.src = newShapeSource(g, r.names, r.emit)
	for _, v := range g.Inputs {
		r.produced[v] = true
	}
	for _, v := range g.Constants() {
		r.produced[v] = true
	}
	for _, n := range g.Nodes {
		if err := r.node(n); err != nil {
			return nil, false, fmt.Errorf("rewrite: Rows2D: %v: %w", n, err)
		}
	}
	if r.converted == 0 {
		return g, false, nil
	}
	out := *g
	out.Outputs = slices.Clone(g.Outputs)
	for i, v := range out.Outputs {
		w, err := r.need(v)
		if err != nil {
			return nil, false, fmt.Errorf("rewrite: Rows2D: output %q: %w", v.Name, err)
		}
		out.Outputs[i] = w
	}
	out.Nodes = r.nodes
	if err := out.Sort(); err != nil {
		return nil, false, fmt.Errorf("rewrite: Rows2D: %w", err)
	}
	if err := out.Validate(); err != nil {
		return nil, false, fmt.Errorf("rewrite: Rows2D: %w", err)
	}
	return &out, true, nil
}

// rows2d is the state of one Rows2D run.
type rows2d struct {
	g     *graph.Graph
	names map[string]bool
	nodes []*graph.Node
	src   *shapeSource
	// flat maps a rows value to its 2-D form; rep maps a 2-D value whose
	// producing Reshape was dropped to the value that replaces it.
	flat, rep map[*graph.Value]*graph.Value
	// produced marks the values the new graph defines.
	produced  map[*graph.Value]bool
	converted int
}

// rowsForm reports whether s is [A, C, D] with rows on its leading axes:
// A or C a plain 1, or each a plain 1 or one input dimension.
func rowsForm(s graph.Shape) bool {
	if len(s) != 3 {
		return false
	}
	if isFixed(s[0], 1) || isFixed(s[1], 1) {
		return true
	}
	return rowAxis(s[0]) && rowAxis(s[1])
}

// rowAxis reports whether d is one of the model's input dimensions.
func rowAxis(d graph.Dim) bool {
	if d.Param == "" {
		return false
	}
	atoms, c, ok := monomial(d.Sym())
	return ok && c == 1 && len(atoms) == 1
}

// hasRowsForm reports whether a node of g reads or makes a value of a
// rows shape (rowsForm).
func hasRowsForm(g *graph.Graph) bool {
	for _, n := range g.Nodes {
		for _, v := range n.Inputs {
			if rowsForm(dims(v)) {
				return true
			}
		}
		for _, v := range n.Outputs {
			if rowsForm(dims(v)) {
				return true
			}
		}
	}
	return false
}

// rows returns the 2-D form [A*C, D] of a rows shape [A, C, D].
func rows(s graph.Shape) graph.Shape {
	return graph.Shape{dimMul(s[0], s[1]), s[2]}
}

// unitLead reports whether one of a rows shape's leading axes is a plain
// 1: swapping them then moves no element.
func unitLead(s graph.Shape) bool { return isFixed(s[0], 1) || isFixed(s[1], 1) }

// broadcastsTo reports whether in broadcasts to out at every binding:
// aligned on the trailing axes, each of its dimensions is out's or a
// plain 1.
func broadcastsTo(in, out graph.Shape) bool {
	if len(in) > len(out) {
		return false
	}
	off := len(out) - len(in)
	for i, d := range in {
		if d != out[i+off] && !isFixed(d, 1) {
			return false
		}
	}
	return true
}

// node rebuilds n: converted to 2-D, dropped as a reshape between
// equivalent forms, or kept (reading 3-D values rebuilt where needed).
func (r *rows2d) node(n *graph.Node) error {
	if defaultDomain(n) && len(n.Outputs) == 1 {
		if done, err := r.identity(n); done || err != nil {
			return err
		}
		if done, err := r.convert(n); done || err != nil {
			return err
		}
	}
	if _, ok := r.flat[n.Inputs[0]]; ok && isShapeOp(n) && !r.produced[n.Inputs[0]] {
		// The shape of a value only computed in 2-D: from the symbols.
		return r.src.replaceShape(n)
	}
	c := *n
	c.Inputs = slices.Clone(n.Inputs)
	for i, v := range c.Inputs {
		if v == nil {
			continue
		}
		if f, ok := r.flat[v]; ok && i == 0 && r.reshapesElements(n) && !r.produced[v] {
			// A Reshape depends only on the order of the elements.
			c.Inputs[0] = f
			continue
		}
		w, err := r.need(v)
		if err != nil {
			return err
		}
		c.Inputs[i] = w
	}
	r.emit(&c)
	return nil
}

// reshapesElements reports whether n is a Reshape whose shape never holds
// a 0 (a zero copies an input dimension, which depends on the input's
// rank): each element is -1, a plain positive size or a positive product
// of input dimensions.
func (r *rows2d) reshapesElements(n *graph.Node) bool {
	if n.Op != "Reshape" || !defaultDomain(n) {
		return false
	}
	elems, ok := knownElems(n.Input(1))
	if !ok {
		return false
	}
	for _, d := range elems {
		if !isFixed(d, -1) && !positiveDim(d) {
			return false
		}
	}
	return true
}

// knownElems returns the elements of a small integer tensor known before
// run time (a constant, or what inference computed, with expressions), or
// false.
func knownElems(v *graph.Value) ([]graph.Dim, bool) {
	if v == nil {
		return nil, false
	}
	if v.KnownDims != nil {
		return v.KnownDims, true
	}
	t := v.Const
	if t == nil {
		t = v.Known
	}
	if t == nil || !t.DType.IsInt() {
		return nil, false
	}
	vals, err := t.AsInt64()
	if err != nil {
		return nil, false
	}
	out := make([]graph.Dim, len(vals))
	for i, x := range vals {
		out[i] = fixedDim(x)
	}
	return out, true
}

// emit appends n and marks its outputs produced.
func (r *rows2d) emit(n *graph.Node) {
	r.nodes = append(r.nodes, n)
	for _, o := range n.Outputs {
		if o != nil {
			r.produced[o] = true
		}
	}
}

// need returns v as the new graph defines it: its replacement, or v
// itself, rebuilt from its 2-D form by a Reshape when its producer was
// converted.
func (r *rows2d) need(v *graph.Value) (*graph.Value, error) {
	if w, ok := r.rep[v]; ok {
		return w, nil
	}
	if r.produced[v] {
		return v, nil
	}
	if f, ok := r.flat[v]; ok {
		n, err := r.reshape(f, v.Shape, v.Name)
		if err != nil {
			return nil, err
		}
		if err := inferInto(n, v); err != nil {
			return nil, err
		}
		r.emit(n)
	}
	return v, nil
}

// twoD returns the 2-D form of a rows value, adding a Reshape (or
// reshaping a constant) when it has none yet.
func (r *rows2d) twoD(v *graph.Value) (*graph.Value, error) {
	if f, ok := r.flat[v]; ok {
		return f, nil
	}
	s := rows(v.Shape)
	if v.IsConst() {
		t := v.Const.Clone()
		t.Shape = s.Ints()
		c := &graph.Value{Name: r.unique(v.Name + "_2d"), Const: t}
		c.SetStatic(t.DType, t.Shape)
		r.flat[v] = c
		return c, nil
	}
	in, err := r.need(v)
	if err != nil {
		return nil, err
	}
	name := r.unique(v.Name + "_2d")
	n, err := r.reshape(in, s, name)
	if err != nil {
		return nil, err
	}
	n.Outputs = []*graph.Value{{Name: name}}
	if err := inferAs(n, s); err != nil {
		return nil, err
	}
	r.emit(n)
	r.flat[v] = n.Outputs[0]
	return n.Outputs[0], nil
}

// identity drops a Transpose swapping the two leading axes of a rows value
// one of whose leading axes is a plain 1, or a Reshape between a rows value
// and its 2-D form (or between two rows forms of one 2-D shape).
func (r *rows2d) identity(n *graph.Node) (bool, error) {
	in, out := n.Input(0), n.Outputs[0]
	is, os := dims(in), dims(out)
	if is == nil || os == nil || slices.Contains(r.g.Outputs, out) {
		return false, nil
	}
	switch n.Op {
	case "Transpose":
		if !rowsForm(is) || !unitLead(is) || !slices.Equal(attrInts(n, "perm"), []int64{1, 0, 2}) {
			return false, nil
		}
	case "Reshape":
		flatIn, flatOut := is, os
		if rowsForm(is) {
			flatIn = rows(is)
		}
		if rowsForm(os) {
			flatOut = rows(os)
		}
		if len(flatIn) != 2 || !flatIn.Equal(flatOut) || len(is) == 2 && len(os) == 2 {
			return false, nil
		}
	default:
		return false, nil
	}
	var src *graph.Value
	var err error
	if len(is) == 2 {
		src, err = r.need(in)
	} else {
		src, err = r.twoD(in)
	}
	if err != nil {
		return false, err
	}
	if len(os) == 2 {
		r.rep[out] = src
	} else {
		r.flat[out] = src
	}
	r.converted++
	return true, nil
}

// convert computes a row-wise op with a rows output in 2-D.
func (r *rows2d) convert(n *graph.Node) (bool, error) {
	out := n.Outputs[0]
	os := dims(out)
	if !rowsForm(os) {
		return false, nil
	}
	o2 := rows(os)
	s := n.Schema()
	if s == nil {
		return false, nil
	}
	c := &graph.Node{Name: r.unique(n.Name + "_2d"), Op: n.Op, Attrs: n.Attrs.Clone(), Inputs: slices.Clone(n.Inputs)}
	switch {
	case s.Elementwise:
		for i, v := range c.Inputs {
			if v == nil {
				continue
			}
			vs := dims(v)
			switch {
			case vs == nil || len(vs) > 3 || len(vs) == 3 && !rowsForm(vs):
				return false, nil
			case len(vs) == 3:
				if !broadcastsTo(rows(vs), o2) {
					return false, nil
				}
				c.Inputs[i] = nil // filled below, after every check
			case !broadcastsTo(vs, o2):
				return false, nil
			}
		}
	case n.Op == "MatMul":
		if len(dims(n.Input(1))) != 2 || !rowsForm(dims(n.Input(0))) {
			return false, nil
		}
	case n.Op == "Softmax" || n.Op == "LogSoftmax" || n.Op == "LayerNormalization":
		if normAxis(attrInt(n, "axis", -1), 3) != 2 || !rowsForm(dims(n.Input(0))) {
			return false, nil
		}
		c.Attrs["axis"] = graph.IntAttr(-1)
	case n.Op == "ReduceMean" || n.Op == "ReduceSum" || n.Op == "ReduceMax" || n.Op == "ReduceMin":
		if attrInt(n, "keepdims", 1) != 1 || !rowsForm(dims(n.Input(0))) {
			return false, nil
		}
		axes := attrInts(n, "axes")
		fromInput := n.Input(1) != nil
		if fromInput {
			var ok bool
			if axes, ok = constInts(n, 1); !ok {
				return false, nil
			}
		}
		if len(axes) != 1 || normAxis(axes[0], 3) != 2 {
			return false, nil
		}
		if fromInput {
			a := &graph.Value{Name: r.unique(n.Name + "_axes"), Const: graph.FromInt64([]int64{-1}, 1)}
			a.SetStatic(graph.Int64, []int{1})
			c.Inputs[1] = a
		} else {
			c.Attrs["axes"] = graph.IntsAttr(-1)
		}
	case n.Op == "Slice":
		// Along the last axis only, with constant bounds.
		if !rowsForm(dims(n.Input(0))) || n.Input(3) == nil {
			return false, nil
		}
		axes, ok := constInts(n, 3)
		if !ok || len(axes) != 1 || normAxis(axes[0], 3) != 2 {
			return false, nil
		}
		a := &graph.Value{Name: r.unique(n.Name + "_axes"), Const: graph.FromInt64([]int64{-1}, 1)}
		a.SetStatic(graph.Int64, []int{1})
		c.Inputs[3] = a
	default:
		return false, nil
	}
	// Infer the 2-D form on placeholders first, so that a form that does
	// not compute the 2-D output is skipped before anything is added.
	dry := *c
	dry.Inputs = slices.Clone(c.Inputs)
	for i, v := range n.Inputs {
		if v == nil || c.Inputs[i] != nil && c.Inputs[i] != v {
			continue
		}
		if vs := dims(v); len(vs) == 3 {
			p := &graph.Value{Name: v.Name, DType: v.DType, Shape: rows(vs), ShapeKnown: true}
			dry.Inputs[i] = p
		}
	}
	dry.Outputs = []*graph.Value{{Name: out.Name}}
	if err := graph.InferNode(&dry); err != nil || !dry.Outputs[0].Shape.Equal(o2) {
		return false, nil
	}
	for i, v := range n.Inputs {
		if v == nil || c.Inputs[i] != nil && c.Inputs[i] != v {
			continue
		}
		var err error
		if vs := dims(v); len(vs) == 3 {
			c.Inputs[i], err = r.twoD(v)
		} else {
			c.Inputs[i], err = r.need(v)
		}
		if err != nil {
			return false, err
		}
	}
	c.Outputs = []*graph.Value{{Name: r.unique(out.Name + "_2d")}}
	if err := inferAs(c, o2); err != nil {
		return false, fmt.Errorf("2-D form: %w", err)
	}
	r.emit(c)
	r.flat[out] = c.Outputs[0]
	r.converted++
	return true, nil
}

// reshape returns Reshape(from) to want, without its output, its shape
// input valid at every binding; base names what it creates.
func (r *rows2d) reshape(from *graph.Value, want graph.Shape, base string) (*graph.Node, error) {
	t, err := r.src.reshapeTo(from, want, base+"_shape")
	if err != nil {
		return nil, err
	}
	return &graph.Node{Name: r.unique(base + "_reshape"), Op: "Reshape", Inputs: []*graph.Value{from, t}}, nil
}

func (r *rows2d) unique(base string) string {
	return graph.UniqueName(r.names, base)
}
