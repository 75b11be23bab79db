package rewrite

import (
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// Row-wise work between two transposes that undo each other. A
// sequence-first export whose attention is fused batch-first goes
//
//	X [B, S, D] -> Transpose[1,0,2] -> Reshape [S*B, D] -> row-wise ops -> Reshape [S, B, E] -> Transpose[1,0,2] [B, S, E]
//
// (the fused Attention's output brought back to sequence-first order, the
// output projection, and the exporter's own transpose to batch-first).
// Row-wise ops treat every row alike, so computing them on X's rows in
// X's order gives the same rows in the other order: the pair becomes
// X -> Reshape [B*S, D] -> the same ops -> Reshape [B, S, E], and ONNX
// Runtime runs two fewer transposes per layer.

// cancelTransposedRows rewrites every such pair of g. It reports whether
// anything changed; g is not modified.
func cancelTransposedRows(g *graph.Graph) (*graph.Graph, bool, error) {
	f := newAttnFuser(g)
	r := newReplacement(f)
	drop := map[*graph.Node]bool{}
	for _, n := range g.Nodes {
		chain, ok := f.transposedRows(n)
		if !ok || slices.ContainsFunc(chain, func(c *graph.Node) bool { return drop[c] }) {
			continue
		}
		if r.try(n, func() error { return f.untransposeRows(chain, r.src) }) {
			for _, c := range chain {
				drop[c] = true
			}
		}
	}
	return r.spliced(g, drop, true, "transposed rows")
}

// transposedRows matches the pattern ending at t, the last Transpose, and
// returns its nodes from the first Transpose to t (each value between
// them read only by the next node).
func (f *attnFuser) transposedRows(t *graph.Node) ([]*graph.Node, bool) {
	swap := []int64{1, 0, 2}
	if t.Op != "Transpose" || !defaultDomain(t) || !slices.Equal(attrInts(t, "perm"), swap) {
		return nil, false
	}
	r2, ok := f.from(t.Input(0), "Reshape")
	if !ok || len(dims(r2.Input(0))) != 2 || len(dims(r2.Outputs[0])) != 3 {
		return nil, false
	}
	chain := []*graph.Node{t, r2}
	v := r2.Input(0)
	for {
		p := f.prod[v]
		if p == nil || len(p.Outputs) != 1 {
			return nil, false
		}
		if _, ok := f.only(v); !ok {
			return nil, false
		}
		if p.Op == "Reshape" && defaultDomain(p) {
			chain = append(chain, p)
			break
		}
		in, ok := f.rowWise(p)
		if !ok {
			return nil, false
		}
		chain = append(chain, p)
		v = in
	}
	r1 := chain[len(chain)-1]
	t1, ok := f.from(r1.Input(0), "Transpose")
	xs, ts := dims(r1.Input(0)), dims(r1.Outputs[0])
	if !ok || !slices.Equal(attrInts(t1, "perm"), swap) || len(xs) != 3 || len(ts) != 2 || ts[1] != xs[2] ||
		ts[0] != dimMul(xs[0], xs[1]) {
		return nil, false
	}
	// The rows come back to [S, B, E] in the order they left [S, B, D].
	ys := dims(r2.Outputs[0])
	if ys[0] != xs[0] || ys[1] != xs[1] {
		return nil, false
	}
	chain = append(chain, t1)
	slices.Reverse(chain)
	return chain, true
}

// rowWise reports whether n computes each row of its 2-D data input from
// that row alone (a Gemm or MatMul by constant weights, an elementwise op
// whose other operands are constants broadcast along the rows' width),
// and returns that input.
func (f *attnFuser) rowWise(n *graph.Node) (*graph.Value, bool) {
	if !defaultDomain(n) {
		return nil, false
	}
	x := n.Input(0)
	if len(dims(x)) != 2 || len(dims(n.Outputs[0])) != 2 {
		return nil, false
	}
	switch n.Op {
	case "Gemm":
		b, c := n.Input(1), n.Input(2)
		return x, attrInt(n, "transA", 0) == 0 && b.IsConst() && (c == nil || c.IsConst() && len(shape(c)) <= 1)
	case "MatMul":
		return x, n.Input(1).IsConst() && len(shape(n.Input(1))) == 2
	}
	s := graph.Lookup("", n.Op)
	if s == nil || !s.Elementwise {
		return nil, false
	}
	var data *graph.Value
	for _, in := range n.Inputs {
		switch {
		case in == nil:
		case in.IsConst() && len(shape(in)) <= 1:
		case data == nil && len(dims(in)) == 2 && dims(in).Equal(dims(n.Outputs[0])):
			data = in
		default:
			return nil, false
		}
	}
	return data, data != nil
}

// untransposeRows adds (src.add) chain's row-wise ops reading X's rows in
// X's order and the Reshape to the last Transpose's output, which it
// writes.
func (f *attnFuser) untransposeRows(chain []*graph.Node, src *shapeSource) error {
	t1, r1, ops, t2 := chain[0], chain[1], chain[2:len(chain)-2], chain[len(chain)-1]
	x := t1.Input(0)
	base := t2.Name + "_rows"
	shp, err := src.reshapeTo(x, graph.Shape{dimMul(dims(x)[0], dims(x)[1]), dims(x)[2]}, base+"_in_shape")
	if err != nil {
		return err
	}
	v, err := src.node("Reshape", base+"_in", nil, x, shp)
	if err != nil {
		return err
	}
	prev := r1.Outputs[0]
	for _, n := range ops {
		c := *n
		c.Name = f.unique(n.Name + "_rows")
		c.Inputs = slices.Clone(n.Inputs)
		for i, in := range c.Inputs {
			if in == prev {
				c.Inputs[i] = v
			}
		}
		c.Outputs = []*graph.Value{{Name: f.unique(n.Outputs[0].Name + "_rows")}}
		if err := inferAs(&c, dims(n.Outputs[0])); err != nil {
			return err
		}
		src.add(&c)
		prev, v = n.Outputs[0], c.Outputs[0]
	}
	want := t2.Outputs[0]
	oshp, err := src.reshapeTo(v, dims(want), base+"_out_shape")
	if err != nil {
		return err
	}
	r := &graph.Node{Name: f.unique(base + "_out"), Op: "Reshape", Inputs: []*graph.Value{v, oshp}}
	if err := inferInto(r, want); err != nil {
		return err
	}
	src.add(r)
	return nil
}
