package rewrite

import (
	"fmt"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// Rows2D keeps batch-1 activations two-dimensional. A value of shape
// [1, L, D] or [L, 1, D] (a batch of one, batch-first or sequence-first)
// has the same elements in the same order as [L, D]; the pass computes
// every row-wise op on such values in that 2-D form: elementwise ops
// (their other inputs broadcast as before), MatMul by a 2-D right
// operand, Softmax, LayerNormalization and keepdims reductions over the
// last axis, and Slices of the last axis. Transposes that only swap the unit axis with the other
// leading one and Reshapes between those forms disappear; Reshapes are
// added where a 2-D value meets a reader that needs the 3-D one.
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
	r := &rows2d{g: g, names: g.Names(), flat: map[*graph.Value]*graph.Value{}, rep: map[*graph.Value]*graph.Value{},
		produced: map[*graph.Value]bool{}}
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
		out.Outputs[i] = r.need(v)
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
	// flat maps a unit-3-D value to its 2-D form; rep maps a 2-D value
	// whose producing Reshape was dropped to the value that replaces it.
	flat, rep map[*graph.Value]*graph.Value
	// produced marks the values the new graph defines.
	produced  map[*graph.Value]bool
	converted int
}

// unit3 reports whether s is [1, L, D] or [L, 1, D]; squeeze returns its
// 2-D form.
func unit3(s []int) bool { return len(s) == 3 && (s[0] == 1 || s[1] == 1) }

func squeeze(s []int) []int {
	if s[0] == 1 {
		return []int{s[1], s[2]}
	}
	return []int{s[0], s[2]}
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
		c.Inputs[i] = r.need(v)
	}
	r.emit(&c)
	return nil
}

// reshapesElements reports whether n is a Reshape to a constant shape
// without zeros (a zero copies an input dimension, which depends on the
// input's rank).
func (r *rows2d) reshapesElements(n *graph.Node) bool {
	if n.Op != "Reshape" || !defaultDomain(n) {
		return false
	}
	s, ok := constInts(n, 1)
	return ok && !slices.Contains(s, 0)
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
func (r *rows2d) need(v *graph.Value) *graph.Value {
	if w, ok := r.rep[v]; ok {
		return w
	}
	if r.produced[v] {
		return v
	}
	if f, ok := r.flat[v]; ok {
		r.emit(r.reshape(f, v, shape(v)))
		return v
	}
	return v
}

// twoD returns the 2-D form of a unit-3-D value, adding a Reshape (or
// reshaping a constant) when it has none yet.
func (r *rows2d) twoD(v *graph.Value) *graph.Value {
	if f, ok := r.flat[v]; ok {
		return f
	}
	s := squeeze(shape(v))
	if v.IsConst() {
		t := v.Const.Clone()
		t.Shape = s
		c := &graph.Value{Name: r.unique(v.Name + "_2d"), Const: t}
		c.SetStatic(t.DType, s)
		r.flat[v] = c
		return c
	}
	f := r.newValue(v.Name+"_2d", v.DType, s)
	r.emit(r.reshape(r.need(v), f, s))
	r.flat[v] = f
	return f
}

// identity drops a Transpose swapping the two leading axes of a unit-3-D
// value, or a Reshape between a unit-3-D value and its 2-D form (or
// between two unit-3-D forms of one 2-D shape).
func (r *rows2d) identity(n *graph.Node) (bool, error) {
	in, out := n.Input(0), n.Outputs[0]
	is, os := shape(in), shape(out)
	if is == nil || os == nil || slices.Contains(r.g.Outputs, out) {
		return false, nil
	}
	switch n.Op {
	case "Transpose":
		if !unit3(is) || !slices.Equal(attrInts(n, "perm"), []int64{1, 0, 2}) {
			return false, nil
		}
	case "Reshape":
		flatIn, flatOut := is, os
		if unit3(is) {
			flatIn = squeeze(is)
		}
		if unit3(os) {
			flatOut = squeeze(os)
		}
		if len(flatIn) != 2 || !slices.Equal(flatIn, flatOut) || len(is) == 2 && len(os) == 2 {
			return false, nil
		}
	default:
		return false, nil
	}
	var src *graph.Value
	if len(is) == 2 {
		src = r.need(in)
	} else {
		src = r.twoD(in)
	}
	if len(os) == 2 {
		r.rep[out] = src
	} else {
		r.flat[out] = src
	}
	r.converted++
	return true, nil
}

// convert computes a row-wise op with a unit-3-D output in 2-D.
func (r *rows2d) convert(n *graph.Node) (bool, error) {
	out := n.Outputs[0]
	os := shape(out)
	if !unit3(os) {
		return false, nil
	}
	s := n.Schema()
	if s == nil {
		return false, nil
	}
	c := &graph.Node{Name: r.unique(n.Name + "_2d"), Op: n.Op, Attrs: n.Attrs.Clone(), Inputs: slices.Clone(n.Inputs)}
	switch {
	case s.Elementwise:
		for i, v := range c.Inputs {
			vs := shape(v)
			if v != nil && vs == nil || len(vs) > 3 || len(vs) == 3 && !unit3(vs) {
				return false, nil
			}
			if v != nil && len(vs) == 3 {
				c.Inputs[i] = nil // filled below, after every check
			}
		}
	case n.Op == "MatMul":
		if len(shape(n.Input(1))) != 2 || !unit3(shape(n.Input(0))) {
			return false, nil
		}
	case n.Op == "Softmax" || n.Op == "LogSoftmax" || n.Op == "LayerNormalization":
		if normAxis(attrInt(n, "axis", -1), 3) != 2 || !unit3(shape(n.Input(0))) {
			return false, nil
		}
		c.Attrs["axis"] = graph.IntAttr(-1)
	case n.Op == "ReduceMean" || n.Op == "ReduceSum" || n.Op == "ReduceMax" || n.Op == "ReduceMin":
		if attrInt(n, "keepdims", 1) != 1 || !unit3(shape(n.Input(0))) {
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
		if !unit3(shape(n.Input(0))) || n.Input(3) == nil {
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
	// not broadcast as the 3-D one did is skipped before anything is added.
	dry := *c
	dry.Inputs = slices.Clone(c.Inputs)
	for i, v := range n.Inputs {
		if v == nil || c.Inputs[i] != nil && c.Inputs[i] != v {
			continue
		}
		if vs := shape(v); len(vs) == 3 {
			p := &graph.Value{Name: v.Name}
			p.SetStatic(v.DType, squeeze(vs))
			dry.Inputs[i] = p
		}
	}
	dry.Outputs = []*graph.Value{{Name: out.Name}}
	if err := graph.InferNode(&dry); err != nil || !slices.Equal(shape(dry.Outputs[0]), squeeze(os)) {
		return false, nil
	}
	for i, v := range n.Inputs {
		if v == nil || c.Inputs[i] != nil && c.Inputs[i] != v {
			continue
		}
		if vs := shape(v); len(vs) == 3 {
			c.Inputs[i] = r.twoD(v)
		} else {
			c.Inputs[i] = r.need(v)
		}
	}
	o := r.newValue(out.Name+"_2d", out.DType, squeeze(os))
	c.Outputs = []*graph.Value{o}
	if err := graph.InferNode(c); err != nil {
		return false, fmt.Errorf("2-D form: %w", err)
	}
	r.emit(c)
	r.flat[out] = o
	r.converted++
	return true, nil
}

// reshape returns Reshape(from) -> to with the given static shape.
func (r *rows2d) reshape(from, to *graph.Value, dims []int) *graph.Node {
	c := &graph.Value{Name: r.unique(to.Name + "_shape"), Const: graph.FromInt64(sizesInt64(dims), len(dims))}
	c.SetStatic(graph.Int64, []int{len(dims)})
	return &graph.Node{Name: r.unique(to.Name + "_reshape"), Op: "Reshape", Inputs: []*graph.Value{from, c}, Outputs: []*graph.Value{to}}
}

func (r *rows2d) newValue(name string, dt graph.DType, s []int) *graph.Value {
	v := &graph.Value{Name: r.unique(name)}
	v.SetStatic(dt, s)
	return v
}

func (r *rows2d) unique(base string) string {
	return graph.UniqueName(r.names, base)
}
