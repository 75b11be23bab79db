package rewrite

import (
	"fmt"
	"math"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// FuseAttention replaces multi-head self-attention written out op by op,
// as PyTorch's nn.MultiheadAttention exports it at batch 1, by ONNX
// Runtime's com.microsoft Attention node, which ONNX Runtime's own
// optimiser does not form from this pattern. The matched form, for a
// sequence of L tokens, N heads of size h and hidden size D = N*h:
//
//	P  = MatMul(X, W) + b                       W [Din, 3D], b [3D] constants
//	Q, K, V = Slice(P) columns [0,D), [D,2D), [2D,3D)
//	Qh = Transpose[1,0,2](Reshape(Q)) [N, L, h], likewise Vh
//	Kt = Transpose[1,2,0](Reshape(K)) [N, h, L]
//	S  = Softmax[last](c2 * MatMul(c1 * Qh, Kt) + M)   c1, c2 scalar constants (Mul or Div, each optional),
//	                                                    M an optional constant [.., L, L] with leading 1s
//	O  = Reshape(Transpose[1,0,2](MatMul(S, Vh))) [L, D] (or [1, L, D], [L, 1, D])
//
// where X is [L, 1, Din], [1, L, Din] or [L, Din]. O becomes
// Reshape(Attention(Reshape(X, [1, L, Din]), W, b, attention_bias=M),
// shape of O) with scale c2*c1. The mask is added exactly as before
// (ONNX Runtime adds attention_bias to the scaled scores; -inf entries
// stay -inf), so no assumption about the range of the scores is made.
// The product c2*c1 must be exact in float32 (Attention's scale is a
// float32 attribute), as it is for heads of 4, 16, 64 or 256 (PyTorch
// divides by sqrt(h)). Intermediate values must have no readers outside
// the pattern. It
// reports whether anything changed; g is not modified.
func FuseAttention(g *graph.Graph) (*graph.Graph, bool, error) {
	if g == nil {
		return nil, false, fmt.Errorf("rewrite: FuseAttention: nil graph")
	}
	if !hasDefaultOp(g, "Softmax") {
		return g, false, nil // every fusion starts from a Softmax
	}
	f := &attnFuser{g: g, prod: g.Producers(), cons: g.Consumers(), names: g.Names()}
	for _, v := range g.Outputs {
		f.isOut = append(f.isOut, v)
	}
	var found []*attnMatch
	used := map[*graph.Node]bool{}
	for _, n := range g.Nodes {
		if n.Op != "Softmax" || !defaultDomain(n) {
			continue
		}
		m, ok := f.match(n)
		if !ok || slices.ContainsFunc(m.nodes, func(x *graph.Node) bool { return used[x] }) {
			continue
		}
		for _, x := range m.nodes {
			used[x] = true
		}
		found = append(found, m)
	}
	if len(found) == 0 {
		return g, false, nil
	}
	replace := map[*graph.Node][]*graph.Node{}
	for _, m := range found {
		replace[m.out] = f.build(m)
	}
	out := *g
	out.Nodes = nil
	for _, n := range g.Nodes {
		if r, ok := replace[n]; ok {
			out.Nodes = append(out.Nodes, r...)
			continue
		}
		if !used[n] {
			out.Nodes = append(out.Nodes, n)
		}
	}
	if err := out.Sort(); err != nil {
		return nil, false, fmt.Errorf("rewrite: FuseAttention: %w", err)
	}
	if err := out.Validate(); err != nil {
		return nil, false, fmt.Errorf("rewrite: FuseAttention: %w", err)
	}
	return &out, true, nil
}

// attnFuser holds the graph being matched and its indexes.
type attnFuser struct {
	g     *graph.Graph
	prod  map[*graph.Value]*graph.Node
	cons  map[*graph.Value][]*graph.Node
	names map[string]bool
	isOut []*graph.Value
}

// attnMatch is one matched attention block.
type attnMatch struct {
	x, w, b, mask *graph.Value
	scale         float64
	seq, din, d   int
	heads         int
	out           *graph.Node   // the final Reshape, replaced by the new nodes
	nodes         []*graph.Node // every node of the block (out included)
}

func defaultDomain(n *graph.Node) bool {
	return !n.IsOpaque() && (n.Domain == "" || n.Domain == "ai.onnx")
}

// hasDefaultOp reports whether g has a default-domain node of one of ops.
func hasDefaultOp(g *graph.Graph, ops ...string) bool {
	for _, n := range g.Nodes {
		if slices.Contains(ops, n.Op) && defaultDomain(n) {
			return true
		}
	}
	return false
}

// only returns v's single reader when v has exactly one and is not a
// graph output.
func (f *attnFuser) only(v *graph.Value) (*graph.Node, bool) {
	if v == nil || slices.Contains(f.isOut, v) || len(f.cons[v]) != 1 {
		return nil, false
	}
	return f.cons[v][0], true
}

// from returns the producer of v when it is a default-domain op of the
// given type whose output v has no other reader.
func (f *attnFuser) from(v *graph.Value, op string) (*graph.Node, bool) {
	p := f.prod[v]
	if p == nil || p.Op != op || !defaultDomain(p) || len(p.Outputs) != 1 {
		return nil, false
	}
	if _, ok := f.only(v); !ok {
		return nil, false
	}
	return p, true
}

// shape returns v's static shape (nil when unknown).
func shape(v *graph.Value) []int {
	if v == nil {
		return nil
	}
	s, err := v.StaticShape()
	if err != nil {
		return nil
	}
	return s
}

// scalarConst returns the value of a one-element float constant.
func scalarConst(v *graph.Value) (float64, bool) {
	if !v.IsConst() || v.Const.Len() != 1 || len(v.Const.Shape) > 1 || !v.Const.DType.IsFloat() {
		return 0, false
	}
	d, err := v.Const.AsFloat64()
	if err != nil || math.IsInf(d[0], 0) || math.IsNaN(d[0]) || d[0] == 0 {
		return 0, false
	}
	return d[0], true
}

// scaled strips an optional Mul or Div by a scalar constant from v,
// returning the operand and the factor it was multiplied by.
func (f *attnFuser) scaled(v *graph.Value) (*graph.Value, float64, []*graph.Node) {
	for _, op := range []string{"Mul", "Div"} {
		n, ok := f.from(v, op)
		if !ok {
			continue
		}
		for i := 0; i < 2; i++ {
			if op == "Div" && i == 1 {
				break
			}
			c, ok := scalarConst(n.Input(1 - i))
			if !ok {
				continue
			}
			if op == "Div" {
				c = 1 / c
			}
			return n.Input(i), c, []*graph.Node{n}
		}
	}
	return v, 1, nil
}

// headView matches Transpose[perm](Reshape(src)) where the Reshape splits
// src's last axis into heads: src [L, 1, D], [1, L, D] or [L, D], the
// Reshape output [L, N, h]. It returns src, the heads and the nodes.
func (f *attnFuser) headView(v *graph.Value, perm []int64) (*graph.Value, int, []*graph.Node, bool) {
	t, ok := f.from(v, "Transpose")
	if !ok || !slices.Equal(attrInts(t, "perm"), perm) {
		return nil, 0, nil, false
	}
	r, ok := f.from(t.Input(0), "Reshape")
	if !ok {
		return nil, 0, nil, false
	}
	rs, ss := shape(r.Outputs[0]), shape(r.Input(0))
	if len(rs) != 3 || len(ss) == 0 || rs[1]*rs[2] != ss[len(ss)-1] || graph.NumElements(ss) != graph.NumElements(rs) || rs[0] != seqOf(ss) {
		return nil, 0, nil, false
	}
	return r.Input(0), rs[1], []*graph.Node{t, r}, true
}

// seqOf returns the sequence length of a batch-1 activation [L, 1, D],
// [1, L, D] or [L, D], or -1.
func seqOf(s []int) int {
	switch {
	case len(s) == 2:
		return s[0]
	case len(s) == 3 && s[1] == 1:
		return s[0]
	case len(s) == 3 && s[0] == 1:
		return s[1]
	}
	return -1
}

// slice matches a Slice of p along its last axis with constant bounds
// [lo, lo+width) and step 1, reading p, whose only readers are slices.
func (f *attnFuser) slice(v *graph.Value, lo, width int) (*graph.Value, *graph.Node, bool) {
	n, ok := f.from(v, "Slice")
	if !ok {
		return nil, nil, false
	}
	in := shape(n.Input(0))
	out := shape(v)
	if in == nil || out == nil {
		return nil, nil, false
	}
	starts, axes, ok := sliceBounds(n, in)
	last := len(in) - 1
	if !ok || len(axes) != 1 || axes[0] != last || starts[0] != lo || out[last] != width {
		return nil, nil, false
	}
	return n.Input(0), n, true
}

// match tries to match the block whose softmax is sm.
func (f *attnFuser) match(sm *graph.Node) (*attnMatch, bool) {
	ss := shape(sm.Outputs[0])
	if len(ss) != 3 || normAxis(attrInt(sm, "axis", -1), 3) != 2 || ss[1] != ss[2] {
		return nil, false
	}
	heads, seq := ss[0], ss[1]
	m := &attnMatch{heads: heads, seq: seq, nodes: []*graph.Node{sm}}
	// Output side: MatMul(S, Vh) -> Transpose[1,0,2] -> Reshape.
	pv, ok := f.only(sm.Outputs[0])
	if !ok || pv.Op != "MatMul" || !defaultDomain(pv) || pv.Input(0) != sm.Outputs[0] {
		return nil, false
	}
	t, ok := f.only(pv.Outputs[0])
	if !ok || t.Op != "Transpose" || !defaultDomain(t) || !slices.Equal(attrInts(t, "perm"), []int64{1, 0, 2}) {
		return nil, false
	}
	out, ok := f.only(t.Outputs[0])
	if !ok || out.Op != "Reshape" || !defaultDomain(out) || seqOf(shape(out.Outputs[0])) != seq {
		return nil, false
	}
	m.out = out
	m.nodes = append(m.nodes, pv, t, out)
	vsrc, vh, vn, ok := f.headView(pv.Input(1), []int64{1, 0, 2})
	if !ok || vh != heads {
		return nil, false
	}
	m.nodes = append(m.nodes, vn...)
	// Scores: Softmax(Add(scaled MatMul(scaled Qh, Kt), M)).
	scores := sm.Input(0)
	if add, ok := f.from(scores, "Add"); ok {
		for i := 0; i < 2; i++ {
			mk := add.Input(1 - i)
			ms := shape(mk)
			if !mk.IsConst() || len(ms) < 2 || len(ms) > 4 || ms[len(ms)-1] != seq || ms[len(ms)-2] != seq ||
				graph.NumElements(ms) != seq*seq || mk.DType != sm.Outputs[0].DType {
				continue
			}
			m.mask, scores = mk, add.Input(i)
			m.nodes = append(m.nodes, add)
			break
		}
	}
	qk, c2, sn := f.scaled(scores)
	m.nodes = append(m.nodes, sn...)
	mm, ok := f.from(qk, "MatMul")
	if !ok {
		return nil, false
	}
	m.nodes = append(m.nodes, mm)
	qs, c1, qn := f.scaled(mm.Input(0))
	m.nodes = append(m.nodes, qn...)
	m.scale = c1 * c2
	if float64(float32(m.scale)) != m.scale {
		// The attribute is a float32: fuse only when the scales multiply
		// to one exactly (1/8 for heads of 64, say), so that the fused
		// graph computes what the original did.
		return nil, false
	}
	qsrc, qh, qv, ok := f.headView(qs, []int64{1, 0, 2})
	if !ok || qh != heads {
		return nil, false
	}
	ksrc, kh, kv, ok := f.headView(mm.Input(1), []int64{1, 2, 0})
	if !ok || kh != heads {
		return nil, false
	}
	m.nodes = append(m.nodes, qv...)
	m.nodes = append(m.nodes, kv...)
	// The three slices of one packed projection.
	qs3 := shape(qsrc)
	d := qs3[len(qs3)-1]
	p, qn2, ok1 := f.slice(qsrc, 0, d)
	pk, kn2, ok2 := f.slice(ksrc, d, d)
	pv2, vn2, ok3 := f.slice(vsrc, 2*d, d)
	if !ok1 || !ok2 || !ok3 || p != pk || p != pv2 || len(f.cons[p]) != 3 || slices.Contains(f.isOut, p) {
		return nil, false
	}
	m.nodes = append(m.nodes, qn2, kn2, vn2)
	m.d = d
	add := f.prod[p]
	if add == nil || add.Op != "Add" || !defaultDomain(add) {
		return nil, false
	}
	for i := 0; i < 2; i++ {
		b, mmv := add.Input(1-i), add.Input(i)
		proj, ok := f.from(mmv, "MatMul")
		if !ok || !b.IsConst() || !slices.Equal(shape(b), []int{3 * d}) {
			continue
		}
		x, w := proj.Input(0), proj.Input(1)
		ws, xs := shape(w), shape(x)
		if !w.IsConst() || len(ws) != 2 || ws[1] != 3*d || len(xs) < 2 || seqOf(xs) != seq || xs[len(xs)-1] != ws[0] {
			continue
		}
		if x.DType != w.DType || b.DType != w.DType {
			continue
		}
		m.x, m.w, m.b, m.din = x, w, b, ws[0]
		m.nodes = append(m.nodes, add, proj)
		return m, true
	}
	return nil, false
}

// build returns the nodes that replace m: a Reshape of X to [1, L, Din],
// the Attention node, and a Reshape to the shape of the matched output
// (which keeps the output value, so its readers are unchanged).
func (f *attnFuser) build(m *attnMatch) []*graph.Node {
	base := m.out.Name + "_attention"
	xr := f.newValue(base+"_input", m.x.DType, []int{1, m.seq, m.din})
	ao := f.newValue(base+"_output", m.x.DType, []int{1, m.seq, m.d})
	ins := []*graph.Value{xr, m.w, m.b, nil, nil, nil}
	if m.mask != nil {
		t := m.mask.Const.Clone()
		t.Shape = []int{1, 1, m.seq, m.seq}
		mk := &graph.Value{Name: f.unique(base + "_bias"), Const: t}
		mk.SetStatic(t.DType, t.Shape)
		ins[5] = mk
	} else {
		ins = ins[:3]
	}
	att := &graph.Node{Name: f.unique(base), Op: "Attention", Domain: graph.MicrosoftDomain, Inputs: ins,
		Outputs: []*graph.Value{ao}, Attrs: graph.Attrs{
			"num_heads": graph.IntAttr(int64(m.heads)),
			"scale":     graph.FloatAttr(float32(m.scale)),
		}}
	outShape := shape(m.out.Outputs[0])
	return []*graph.Node{
		f.reshape(base+"_in", m.x, xr),
		att,
		f.reshape(base+"_out", ao, m.out.Outputs[0], outShape...),
	}
}

// reshape returns Reshape(from) -> to, to the shape of to (or dims).
func (f *attnFuser) reshape(name string, from, to *graph.Value, dims ...int) *graph.Node {
	if dims == nil {
		dims = shape(to)
	}
	s := make([]int64, len(dims))
	for i, d := range dims {
		s[i] = int64(d)
	}
	c := &graph.Value{Name: f.unique(name + "_shape"), Const: graph.FromInt64(s, len(s))}
	c.SetStatic(graph.Int64, []int{len(s)})
	return &graph.Node{Name: f.unique(name), Op: "Reshape", Inputs: []*graph.Value{from, c}, Outputs: []*graph.Value{to}}
}

// newValue returns a new value with a unique name and a static shape.
func (f *attnFuser) newValue(name string, dt graph.DType, s []int) *graph.Value {
	v := &graph.Value{Name: f.unique(name)}
	v.SetStatic(dt, s)
	return v
}

// unique returns base, or base with a numeric suffix, unused in the graph.
func (f *attnFuser) unique(base string) string {
	return graph.UniqueName(f.names, base)
}
