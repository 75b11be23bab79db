package rewrite

import (
	"fmt"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// A packed projection P = MatMul(X, W) (+ b), W [Din, N] and b [N]
// constants, read only by Slices of its columns, is demanded as the
// bounding box of what the Slices need. When one Slice needs fewer rows
// than another (the queries of a classifier's last layer need row 0, its
// keys and values every row), the box is every row of every column, and
// PruneDead would compute the narrow Slice's columns for every row.
// splitUneven gives each Slice its own projection, MatMul(X, W[:, lo:hi])
// (+ b[lo:hi]), which then has its own demand.

// splitUneven rewrites every such projection of g whose Slices' demands
// differ on a leading axis; it reports whether anything changed and does
// not modify g.
func splitUneven(g *graph.Graph, demand map[*graph.Value]region) (*graph.Graph, bool, error) {
	f := newAttnFuser(g)
	replace := map[*graph.Node][]*graph.Node{}
	for _, n := range g.Nodes {
		proj, slices, ok := f.unevenProjection(n, demand)
		if !ok {
			continue
		}
		nodes, err := f.splitProjection(proj, slices)
		if err != nil {
			continue
		}
		for i, s := range slices {
			replace[s] = nodes[i]
		}
	}
	if len(replace) == 0 {
		return g, false, nil
	}
	out, err := spliced(g, replace, nil, true, "split projections")
	return out, err == nil, err
}

// packedProj is a projection MatMul(x, w) (+ b), add nil without bias.
type packedProj struct {
	x, w, b *graph.Value
	mm, add *graph.Node
}

// unevenProjection matches, at the projection's last node n, a packed
// projection read only by Slices of its last axis (constant bounds, step
// 1) whose demanded boxes differ on a leading axis.
func (f *attnFuser) unevenProjection(n *graph.Node, demand map[*graph.Value]region) (packedProj, []*graph.Node, bool) {
	var p packedProj
	switch {
	case n.Op == "MatMul" && defaultDomain(n):
		p.mm = n
	case n.Op == "Add" && defaultDomain(n):
		for i := range 2 {
			if mm, ok := f.from(n.Input(i), "MatMul"); ok && n.Input(1-i).IsConst() && len(shape(n.Input(1-i))) == 1 {
				p.mm, p.add, p.b = mm, n, n.Input(1-i)
			}
		}
	}
	if p.mm == nil {
		return p, nil, false
	}
	p.x, p.w = p.mm.Input(0), p.mm.Input(1)
	if !p.w.IsConst() || len(shape(p.w)) != 2 || p.w.DType != graph.Float32 || p.b != nil && p.b.DType != graph.Float32 {
		return p, nil, false
	}
	v := n.Outputs[0]
	vs := dims(v)
	readers := f.cons[v]
	if len(vs) < 2 || len(readers) < 2 || slices.Contains(f.isOut, v) {
		return p, nil, false
	}
	last := len(vs) - 1
	narrow, wide := false, false
	for _, s := range readers {
		starts, axes, ok := sliceBounds(s, vs)
		if s.Op != "Slice" || !defaultDomain(s) || s.Input(0) != v || !ok || len(axes) != 1 || axes[0] != last || starts == nil {
			return p, nil, false
		}
		d := demand[s.Outputs[0]]
		if d == nil {
			return p, nil, false
		}
		full := true
		for i, sp := range d[:last] {
			full = full && sp.whole(dims(s.Outputs[0])[i])
		}
		narrow, wide = narrow || !full, wide || full
	}
	return p, readers, narrow && wide
}

// splitProjection returns, for each Slice, the nodes computing its
// columns with a projection of their own, writing the Slice's output.
func (f *attnFuser) splitProjection(p packedProj, readers []*graph.Node) ([][]*graph.Node, error) {
	w := p.w.Const
	din, n := w.Shape[0], w.Shape[1]
	wf := w.Float32s()
	var bf []float32
	if p.b != nil {
		bf = p.b.Const.Float32s()
	}
	out := make([][]*graph.Node, len(readers))
	for i, s := range readers {
		starts, _, _ := sliceBounds(s, dims(s.Input(0)))
		lo := starts[0]
		os := dims(s.Outputs[0])
		hi := lo + int(os[len(os)-1].Value)
		if lo < 0 || hi > n || hi <= lo {
			return nil, fmt.Errorf("slice [%d, %d) of %d columns", lo, hi, n)
		}
		cols := make([]float32, din*(hi-lo))
		for r := range din {
			copy(cols[r*(hi-lo):(r+1)*(hi-lo)], wf[r*n+lo:r*n+hi])
		}
		wv := &graph.Value{Name: f.unique(p.w.Name + "_cols"), Const: graph.FromFloat32(cols, din, hi-lo)}
		wv.SetStatic(graph.Float32, []int{din, hi - lo})
		mm := &graph.Node{Name: f.unique(p.mm.Name + "_cols"), Op: "MatMul", Inputs: []*graph.Value{p.x, wv},
			Outputs: []*graph.Value{{Name: f.unique(p.mm.Outputs[0].Name + "_cols")}}}
		if p.b == nil {
			if err := inferInto(mm, s.Outputs[0]); err != nil {
				return nil, err
			}
			out[i] = []*graph.Node{mm}
			continue
		}
		if err := inferAs(mm, os); err != nil {
			return nil, err
		}
		bv := &graph.Value{Name: f.unique(p.b.Name + "_cols"), Const: graph.FromFloat32(slices.Clone(bf[lo:hi]), hi-lo)}
		bv.SetStatic(graph.Float32, []int{hi - lo})
		add := &graph.Node{Name: f.unique(p.add.Name + "_cols"), Op: "Add", Inputs: []*graph.Value{mm.Outputs[0], bv}}
		if p.add.Input(0) != p.mm.Outputs[0] {
			add.Inputs[0], add.Inputs[1] = bv, mm.Outputs[0]
		}
		if err := inferInto(add, s.Outputs[0]); err != nil {
			return nil, err
		}
		out[i] = []*graph.Node{mm, add}
	}
	return out, nil
}
