package rewrite

import "github.com/xrl-dev/xrl/graph"

// newAttnFuser returns an attnFuser indexing g, its outputs marked as
// such (f.only refuses them).
func newAttnFuser(g *graph.Graph) *attnFuser {
	f := &attnFuser{g: g, prod: g.Producers(), cons: g.Consumers(), names: g.Names()}
	f.isOut = append(f.isOut, g.Outputs...)
	return f
}

// replacement collects what a whole-graph pass builds: for each node of
// the graph it replaces, the nodes built in its place through src (shape
// tensors included), which spliced puts there.
type replacement struct {
	src     *shapeSource
	added   []*graph.Node
	replace map[*graph.Node][]*graph.Node
}

// newReplacement returns an empty replacement whose shapeSource names
// what it creates uniquely in f's graph.
func newReplacement(f *attnFuser) *replacement {
	r := &replacement{replace: map[*graph.Node][]*graph.Node{}}
	r.src = newShapeSource(f.g, f.names, func(n *graph.Node) { r.added = append(r.added, n) })
	return r
}

// try runs build, which adds nodes through r.src. When it succeeds, the
// nodes it added replace n; when it fails, they and what src made for
// them are forgotten (no form valid at every binding, say: n stays).
func (r *replacement) try(n *graph.Node, build func() error) bool {
	mark, saved := len(r.added), r.src.save()
	if err := build(); err != nil {
		r.added = r.added[:mark]
		r.src.restore(saved)
		return false
	}
	r.replace[n] = r.added[mark:]
	return true
}

// spliced returns g with the replacements made (see spliced), what
// naming the pass in errors; changed is false, and g returned, when
// there are none.
func (r *replacement) spliced(g *graph.Graph, drop map[*graph.Node]bool, prune bool, what string) (out *graph.Graph, changed bool, err error) {
	if len(r.replace) == 0 {
		return g, false, nil
	}
	out, err = spliced(g, r.replace, drop, prune, what)
	return out, err == nil, err
}
