package rewrite

import (
	"fmt"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// Grouped-query attention, as LLaMA-style exports write it, becomes ONNX
// Runtime's com.microsoft GroupQueryAttention. The matched block, for B
// sequences of S tokens, H query heads and G key/value heads of size h:
//
//	Qh = Transpose[0,2,1,3](Reshape(Q)) [B, H, S, h], Q [B, S, H*h]; Kh, Vh likewise [B, G, S, h]
//	Qr = Qh*C + Concat(-Qh[.., h/2:], Qh[.., :h/2])*N     rotate-half rotary (optional),
//	Kr likewise                                            C, N [.., S, h]: rows 0..S-1 of constant tables
//	Kx = Reshape(Expand(Unsqueeze(Kr, 2))) [B, H, S, h]    each key head repeated H/G times (absent when G = H)
//	P  = Softmax(c2 * MatMul(c1 * Qr, Transpose[0,1,3,2](Kx)) + M)   M a causal mask [.., S, S]
//	O  = Reshape(Transpose[0,2,1,3](MatMul(P, Vx))) [B, S, H*h]       (P may pass through a Cast to its own type)
//
// O becomes GroupQueryAttention(Q, K, V) with scale c1*c2, num_heads H,
// kv_num_heads G, the rotary caches the tables' first halves (each table
// row must repeat its first half, as rotate-half tables do), seqlens_k
// and total_sequence_length computed from the sequence's symbol. When Q,
// K and V are MatMuls of one input by constant weights, they become one
// MatMul whose output is GroupQueryAttention's packed query.
//
// GroupQueryAttention is causal by itself, so M must be (causalValue: a
// constant checked element by element, or one of the constructions
// exporters compute from the length). ONNX Runtime's CPU kernel needs
// heads of a multiple of 8 (16 with rotary).

// gqaMatch is one matched grouped-query attention block.
type gqaMatch struct {
	q, k, v    *graph.Value  // the projections [B, S, H*h] and [B, S, G*h]
	cos, sin   *graph.Tensor // the rotary caches [rows, h/2]; nil without rotary
	heads, kv  int
	h          int
	batch, seq graph.Dim
	scale      float64
	out        *graph.Node   // the final Reshape, replaced
	nodes      []*graph.Node // every node of the block (out included)
}

// producer returns v's producer when it is a default-domain op of the
// given type with one output; unlike from, v may have other readers (the
// match checks at the end that every reader is in the block).
func (f *attnFuser) producer(v *graph.Value, op string) (*graph.Node, bool) {
	p := f.prod[v]
	if v == nil || p == nil || p.Op != op || !defaultDomain(p) || len(p.Outputs) != 1 {
		return nil, false
	}
	return p, true
}

// matchGroupQuery tries to match the grouped-query block whose softmax is
// sm.
func (f *attnFuser) matchGroupQuery(sm *graph.Node) (*gqaMatch, bool) {
	ss := dims(sm.Outputs[0])
	if len(ss) != 4 || normAxis(attrInt(sm, "axis", -1), 4) != 3 || ss[2] != ss[3] || ss[1].Param != "" {
		return nil, false
	}
	m := &gqaMatch{nodes: []*graph.Node{sm}, batch: ss[0], seq: ss[2], heads: int(ss[1].Value)}
	pv, ok := f.gqaOutputSide(m, sm)
	if !ok {
		return nil, false
	}
	// Scores: Softmax(Add(scaled MatMul(scaled Qr, Transpose(Kx)), M)).
	scores, ok := f.causalMask(m, sm.Input(0))
	if !ok {
		return nil, false
	}
	qk, c2, sn := f.scaled(scores)
	mm, ok := f.from(qk, "MatMul")
	if !ok {
		return nil, false
	}
	qs, c1, qn := f.scaled(mm.Input(0))
	m.scale = c1 * c2
	if float64(float32(m.scale)) != m.scale && !f.rounded {
		return nil, false
	}
	m.nodes = append(append(append(m.nodes, sn...), mm), qn...)
	kt, ok := f.from(mm.Input(1), "Transpose")
	if !ok || !slices.Equal(attrInts(kt, "perm"), []int64{0, 1, 3, 2}) {
		return nil, false
	}
	m.nodes = append(m.nodes, kt)
	var qc, qsn, kc, ksn *graph.Value
	var kv, vv *graph.Value
	if qs, qc, qsn, ok = f.gqaRotary(m, qs); !ok {
		return nil, false
	}
	var krep, vrep int
	if kv, krep, ok = f.repeatedHeads(m, kt.Input(0)); !ok {
		return nil, false
	}
	if kv, kc, ksn, ok = f.gqaRotary(m, kv); !ok || (qc == nil) != (kc == nil) {
		return nil, false
	}
	if vv, vrep, ok = f.repeatedHeads(m, pv.Input(1)); !ok || vrep != krep || m.heads%krep != 0 {
		return nil, false
	}
	m.kv = m.heads / krep
	var qn4, kn4, vn4 int
	if m.q, qn4, ok = f.sharedHeadView(m, qs); !ok || qn4 != m.heads {
		return nil, false
	}
	if m.k, kn4, ok = f.sharedHeadView(m, kv); !ok || kn4 != m.kv {
		return nil, false
	}
	if m.v, vn4, ok = f.sharedHeadView(m, vv); !ok || vn4 != m.kv {
		return nil, false
	}
	if m.h%8 != 0 || qc != nil && m.h%16 != 0 {
		return nil, false
	}
	if qc != nil && !f.rotaryCaches(m, qc, qsn, kc, ksn) {
		return nil, false
	}
	return m, f.closed(m)
}

// gqaOutputSide matches, from the softmax sm, [Cast to its own type] ->
// MatMul(P, Vx) -> Transpose[0,2,1,3] -> Reshape to [B, S, H*h], records
// the Reshape as m.out and returns the MatMul.
func (f *attnFuser) gqaOutputSide(m *gqaMatch, sm *graph.Node) (*graph.Node, bool) {
	p := sm.Outputs[0]
	r, ok := f.only(p)
	if ok && r.Op == "Cast" && defaultDomain(r) && attrInt(r, "to", 0) == int64(p.DType) {
		m.nodes = append(m.nodes, r)
		p = r.Outputs[0]
		r, ok = f.only(p)
	}
	if !ok || r.Op != "MatMul" || !defaultDomain(r) || r.Input(0) != p {
		return nil, false
	}
	t, ok := f.only(r.Outputs[0])
	if !ok || t.Op != "Transpose" || !defaultDomain(t) || !slices.Equal(attrInts(t, "perm"), []int64{0, 2, 1, 3}) {
		return nil, false
	}
	out, ok := f.only(t.Outputs[0])
	os := dims(out.Outputs[0])
	if !ok || out.Op != "Reshape" || !defaultDomain(out) || len(os) != 3 || os[0] != m.batch || os[1] != m.seq || os[2].Param != "" {
		return nil, false
	}
	m.out = out
	m.nodes = append(m.nodes, r, t, out)
	return r, true
}

// causalMask strips the additive mask from the scores s into the block
// and returns the scores without it. The mask must broadcast as [.., S,
// S] with leading ones and be causal (causalValue).
func (f *attnFuser) causalMask(m *gqaMatch, s *graph.Value) (*graph.Value, bool) {
	add, ok := f.from(s, "Add")
	if !ok {
		return nil, false
	}
	for i := range 2 {
		mk := add.Input(1 - i)
		ms := dims(mk)
		if len(ms) < 2 || len(ms) > 4 || !allOnes(ms[:len(ms)-2]) || ms[len(ms)-2] != m.seq || ms[len(ms)-1] != m.seq ||
			mk.DType != s.DType {
			continue
		}
		if !f.causalValue(mk) {
			continue
		}
		m.nodes = append(m.nodes, add)
		return add.Input(i), true
	}
	return nil, false
}

// causalConst reports whether t, [.., S, S] with leading ones, is 0 at and
// below the diagonal and at most causalFill above it.
func causalConst(t *graph.Tensor) bool {
	return everyCell(t, func(i, j int, x float64) bool { return j <= i && x == 0 || j > i && x <= causalFill })
}

// everyCell reports whether the square table t [.., P, P] (leading ones)
// is numeric and ok holds for every element, x at row i and column j.
func everyCell(t *graph.Tensor, ok func(i, j int, x float64) bool) bool {
	d, err := t.AsFloat64()
	if err != nil || len(t.Shape) < 2 {
		return false
	}
	p := t.Shape[len(t.Shape)-1]
	if len(d) != p*p {
		return false
	}
	for i := range p {
		for j := range p {
			if !ok(i, j, d[i*p+j]) {
				return false
			}
		}
	}
	return true
}

// gqaRotary strips a rotate-half rotary embedding from v into the block:
// v = Add(Mul(x, C), Mul(Concat(Neg(Slice(x, [h/2, h))), Slice(x, [0,
// h/2))), N)), operands in either order. It returns x and the tables' values
// C and N, or v itself and nils when v is not rotated.
func (f *attnFuser) gqaRotary(m *gqaMatch, v *graph.Value) (x, cos, sin *graph.Value, ok bool) {
	add, ok := f.from(v, "Add")
	if !ok {
		return v, nil, nil, true
	}
	for i := range 2 {
		ma, ok1 := f.from(add.Input(i), "Mul")
		mb, ok2 := f.from(add.Input(1-i), "Mul")
		if !ok1 || !ok2 {
			continue
		}
		for j := range 2 {
			cc, ok := f.from(mb.Input(j), "Concat")
			if !ok || len(cc.Inputs) != 2 {
				continue
			}
			x, sl := f.rotatedHalves(cc)
			if x == nil {
				continue
			}
			for k := range 2 {
				if ma.Input(k) == x {
					m.nodes = append(append(m.nodes, add, ma, mb, cc), sl...)
					return x, ma.Input(1 - k), mb.Input(1 - j), true
				}
			}
		}
	}
	return v, nil, nil, true
}

// rotatedHalves matches cc = Concat[last](Neg(Slice(x, [h/2, h))),
// Slice(x, [0, h/2))) over x [.., h] and returns x and the nodes other
// than cc (x nil when cc is not that).
func (f *attnFuser) rotatedHalves(cc *graph.Node) (*graph.Value, []*graph.Node) {
	xs := dims(cc.Outputs[0])
	if len(xs) == 0 || normAxis(attrInt(cc, "axis", 0), len(xs)) != len(xs)-1 || xs[len(xs)-1].Param != "" {
		return nil, nil
	}
	h := int(xs[len(xs)-1].Value)
	neg, ok := f.from(cc.Input(0), "Neg")
	if !ok || h%2 != 0 {
		return nil, nil
	}
	hi, ok1 := f.from(neg.Input(0), "Slice")
	lo, ok2 := f.from(cc.Input(1), "Slice")
	if !ok1 || !ok2 || hi.Input(0) != lo.Input(0) || !dims(lo.Input(0)).Equal(xs) {
		return nil, nil
	}
	for _, s := range []struct {
		n     *graph.Node
		start int
	}{{hi, h / 2}, {lo, 0}} {
		starts, axes, ok := sliceBounds(s.n, xs)
		os := dims(s.n.Outputs[0])
		if !ok || len(axes) != 1 || axes[0] != len(xs)-1 || starts[0] != s.start || len(os) != len(xs) || !isFixed(os[len(os)-1], int64(h/2)) {
			return nil, nil
		}
	}
	return lo.Input(0), []*graph.Node{neg, hi, lo}
}

// repeatedHeads strips the repetition of key/value heads from v [B, H, S,
// h] into the block: Reshape(Expand(Unsqueeze(x, 2))) with x [B, G, S,
// h], the Expand [B, G, H/G, S, h]. It returns x and H/G, or v and 1 when
// v is not repeated.
func (f *attnFuser) repeatedHeads(m *gqaMatch, v *graph.Value) (*graph.Value, int, bool) {
	r, ok := f.from(v, "Reshape")
	if !ok {
		return v, 1, true
	}
	e, ok1 := f.from(r.Input(0), "Expand")
	if !ok1 {
		return v, 1, true
	}
	u, ok2 := f.from(e.Input(0), "Unsqueeze")
	if !ok2 {
		return nil, 0, false
	}
	axes := attrInts(u, "axes")
	if a, ok := constInts(u, 1); ok {
		axes = a
	}
	rs, es, xs := dims(v), dims(e.Outputs[0]), dims(u.Input(0))
	if len(axes) != 1 || normAxis(axes[0], 5) != 2 || len(rs) != 4 || len(es) != 5 || len(xs) != 4 ||
		es[0] != xs[0] || es[1] != xs[1] || es[3] != xs[2] || es[4] != xs[3] || es[2].Param != "" || xs[1].Param != "" ||
		rs[0] != xs[0] || !isFixed(rs[1], xs[1].Value*es[2].Value) || rs[2] != xs[2] || rs[3] != xs[3] {
		return nil, 0, false
	}
	m.nodes = append(m.nodes, r, e, u)
	return u.Input(0), int(es[2].Value), true
}

// sharedHeadView matches v = Transpose[0,2,1,3](Reshape(src)) splitting
// src [B, S, N*h] into [B, S, N, h] (the Transpose's output may have other
// readers in the block), records h and returns src and N.
func (f *attnFuser) sharedHeadView(m *gqaMatch, v *graph.Value) (*graph.Value, int, bool) {
	t, ok := f.producer(v, "Transpose")
	if !ok || !slices.Equal(attrInts(t, "perm"), []int64{0, 2, 1, 3}) {
		return nil, 0, false
	}
	r, ok := f.from(t.Input(0), "Reshape")
	if !ok {
		return nil, 0, false
	}
	hv, ok := splitHeads4(r)
	if !ok || hv.batch != m.batch || hv.seq != m.seq || m.h != 0 && hv.width/hv.n != m.h {
		return nil, 0, false
	}
	m.h = hv.width / hv.n
	m.nodes = append(m.nodes, t, r)
	return hv.src, hv.n, true
}

// rotaryCaches checks that the queries and keys are rotated by the same
// tables and records the caches: each table [.., S, h] holds rows 0..S-1
// of a constant [.., rows, h] (itself, or a Slice of it from row 0), and
// each row repeats its first half.
func (f *attnFuser) rotaryCaches(m *gqaMatch, qc, qs, kc, ks *graph.Value) bool {
	var tabs [4]*graph.Tensor
	for i, v := range []*graph.Value{qc, qs, kc, ks} {
		t, ok := f.rotaryTable(m, v)
		if !ok {
			return false
		}
		tabs[i] = t
	}
	if !tensorsEqual(tabs[0], tabs[2]) || !tensorsEqual(tabs[1], tabs[3]) {
		return false
	}
	m.cos, m.sin = tabs[0], tabs[1]
	return true
}

// rotaryTable returns the cache [rows, h/2] of a rotary table value v
// [.., S, h] (leading ones; S may be min(rows, S), see capOf): the first
// halves of the constant's rows.
func (f *attnFuser) rotaryTable(m *gqaMatch, v *graph.Value) (*graph.Tensor, bool) {
	vs := dims(v)
	if len(vs) < 2 || !allOnes(vs[:len(vs)-2]) || !isFixed(vs[len(vs)-1], int64(m.h)) {
		return nil, false
	}
	// Rows min(cap, S) of a table of cap rows: the original runs only
	// where S <= cap, as GroupQueryAttention does with caches of cap rows.
	if _, ok := capOf(vs[len(vs)-2], m.seq); !ok {
		return nil, false
	}
	c := v
	if !v.IsConst() {
		sl, ok := f.producer(v, "Slice")
		if !ok || !sl.Input(0).IsConst() {
			return nil, false
		}
		// From row 0 along the rows' axis (zeroSlice).
		in := dims(sl.Input(0))
		axes, ok := zeroSlice(sl, len(in))
		if !ok || len(in) != len(vs) || !allOnes(in[:len(in)-2]) || !slices.Equal(axes, []int{len(in) - 2}) {
			return nil, false
		}
		c = sl.Input(0)
	}
	d, err := c.Const.AsFloat64()
	if err != nil || c.DType != graph.Float32 {
		return nil, false
	}
	half := m.h / 2
	rows := len(d) / m.h
	out := make([]float32, rows*half)
	for r := range rows {
		row := d[r*m.h : (r+1)*m.h]
		for j := range half {
			if row[j] != row[j+half] {
				return nil, false
			}
			out[r*half+j] = float32(row[j])
		}
	}
	return graph.FromFloat32(out, rows, half), true
}

// tensorsEqual reports whether two float32 tensors hold the same shape and
// elements.
func tensorsEqual(a, b *graph.Tensor) bool {
	return slices.Equal(a.Shape, b.Shape) && slices.Equal(a.Float32s(), b.Float32s())
}

// closed reports whether the block's values are read only inside it (Shape
// nodes and nodes read only by Shapes aside, which blockShapes recomputes
// and drops): every output of a node of the block but the last is read only
// by nodes of the block and is not a graph output.
func (f *attnFuser) closed(m *gqaMatch) bool {
	in := map[*graph.Node]bool{}
	for _, n := range m.nodes {
		if in[n] {
			return false // a node matched twice: not the form
		}
		in[n] = true
	}
	for _, n := range m.nodes {
		if n == m.out {
			continue
		}
		for _, o := range n.Outputs {
			if slices.Contains(f.isOut, o) {
				return false
			}
			for _, r := range f.cons[o] {
				if !in[r] && !isShapeOp(r) && !f.shapeOnly(r) {
					return false
				}
			}
		}
	}
	return true
}

// buildGroupQuery adds (src.add) the nodes that replace m and returns the
// Shape nodes it recomputed from the symbols.
func (f *attnFuser) buildGroupQuery(m *gqaMatch, src *shapeSource) ([]*graph.Node, error) {
	base := m.out.Name + "_gqa"
	shapes, err := f.blockShapes(m.nodes, m.out, src)
	if err != nil {
		return nil, err
	}
	q := m.q
	if qkv, err := f.packedQKV(m, base, src); err != nil {
		return nil, err
	} else if qkv != nil {
		q, m.k, m.v = qkv, nil, nil
	}
	m.q = q
	return shapes, f.addGroupQuery(m, m.out.Outputs[0], base, src)
}

// addGroupQuery adds (src.add) the GroupQueryAttention of m's query (key
// and value, unless packed) with seqlens_k and total_sequence_length
// computed from m's sequence, writing the existing value want.
func (f *attnFuser) addGroupQuery(m *gqaMatch, want *graph.Value, base string, src *shapeSource) error {
	ins := make([]*graph.Value, 9)
	ins[0], ins[1], ins[2] = m.q, m.k, m.v
	seq, err := src.vector([]graph.Dim{m.seq}, base+"_seq")
	if err != nil {
		return err
	}
	total, err := src.node("Cast", base+"_total", graph.Attrs{"to": graph.IntAttr(int64(graph.Int32))}, seq)
	if err != nil {
		return err
	}
	one := &graph.Value{Name: f.unique(base + "_one"), Const: graph.FromInt32([]int32{1}, 1)}
	one.SetStatic(graph.Int32, []int{1})
	last, err := src.node("Sub", base+"_last", nil, total, one)
	if err != nil {
		return err
	}
	lens := last
	if !isFixed(m.batch, 1) {
		bs, err := src.vector([]graph.Dim{m.batch}, base+"_batch")
		if err != nil {
			return err
		}
		if lens, err = src.node("Expand", base+"_seqlens", nil, last, bs); err != nil {
			return err
		}
	}
	ins[5], ins[6] = lens, total
	attrs := graph.Attrs{"num_heads": graph.IntAttr(int64(m.heads)), "kv_num_heads": graph.IntAttr(int64(m.kv)),
		"scale": graph.FloatAttr(float32(m.scale))}
	if m.cos != nil {
		for i, t := range []*graph.Tensor{m.cos, m.sin} {
			c := &graph.Value{Name: f.unique(base + []string{"_cos_cache", "_sin_cache"}[i]), Const: t}
			c.SetStatic(t.DType, t.Shape)
			ins[7+i] = c
		}
		attrs["do_rotary"] = graph.IntAttr(1)
	} else {
		ins = ins[:7]
	}
	n := &graph.Node{Name: f.unique(base), Op: "GroupQueryAttention", Domain: graph.MicrosoftDomain, Inputs: ins, Attrs: attrs,
		Outputs: []*graph.Value{{Name: want.Name}}}
	if err := graph.InferNode(n); err != nil {
		return err
	}
	if got := n.Outputs[0]; !got.Shape.Equal(want.Shape) || got.DType != want.DType {
		return fmt.Errorf("%v: output %s %v, want %s %v", n, got.Shape.SymString(), got.DType, want.Shape.SymString(), want.DType)
	}
	n.Outputs[0] = want // recompute the existing value (its readers are unchanged; see inferInto)
	src.add(n)
	return nil
}

// packedQKV returns one MatMul of the input that the block's three
// projections multiply by constant weights, by their weights side by side
// (nil when they are not such MatMuls). A projection computed in rows
// ([B*S, width], as rows-2d leaves it) and reshaped to [B, S, width] is
// packed in rows too and reshaped once.
func (f *attnFuser) packedQKV(m *gqaMatch, base string, src *shapeSource) (*graph.Value, error) {
	var x *graph.Value
	var ws []*graph.Tensor
	rows := false
	for i, v := range []*graph.Value{m.q, m.k, m.v} {
		if r, ok := f.from(v, "Reshape"); ok && len(dims(r.Input(0))) == 2 {
			if i > 0 && !rows {
				return nil, nil
			}
			rows, v = true, r.Input(0)
		} else if rows {
			return nil, nil
		}
		mm, ok := f.from(v, "MatMul")
		if !ok || !mm.Input(1).IsConst() || len(mm.Input(1).Const.Shape) != 2 || x != nil && mm.Input(0) != x {
			return nil, nil
		}
		x = mm.Input(0)
		ws = append(ws, mm.Input(1).Const)
	}
	w, ok := concatTensors(ws, 1)
	if !ok {
		return nil, nil
	}
	wv := &graph.Value{Name: f.unique(base + "_qkv_weight"), Const: w}
	wv.SetStatic(w.DType, w.Shape)
	qkv, err := src.node("MatMul", base+"_qkv", nil, x, wv)
	if err != nil || !rows {
		return qkv, err
	}
	want := graph.Shape{m.batch, m.seq, fixedDim(int64(w.Shape[1]))}
	shp, err := src.reshapeTo(qkv, want, base+"_qkv_shape")
	if err != nil {
		return nil, err
	}
	out, err := src.node("Reshape", base+"_qkv_3d", nil, qkv, shp)
	if err != nil {
		return nil, err
	}
	if !dims(out).Equal(want) {
		return nil, fmt.Errorf("rewrite: packed projection %s, want %s", out.Shape.SymString(), want.SymString())
	}
	return out, nil
}

// spliced returns g with each node of replace replaced by its nodes and
// the nodes of drop left out, the nodes nothing reads any more dropped
// (dropUnread) when prune is set, sorted and validated; what names the
// rewrite in errors.
func spliced(g *graph.Graph, replace map[*graph.Node][]*graph.Node, drop map[*graph.Node]bool, prune bool, what string) (*graph.Graph, error) {
	out := *g
	out.Nodes = nil
	for _, n := range g.Nodes {
		if r, ok := replace[n]; ok {
			out.Nodes = append(out.Nodes, r...)
		} else if !drop[n] {
			out.Nodes = append(out.Nodes, n)
		}
	}
	if prune {
		out.Nodes = dropUnread(out.Nodes, out.Outputs)
	}
	if err := out.Sort(); err != nil {
		return nil, fmt.Errorf("rewrite: %s: %w", what, err)
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("rewrite: %s: %w", what, err)
	}
	return &out, nil
}

// dropUnread removes, until none is left, the nodes none of whose outputs
// is read by another node or is one of outputs: what a fusion left
// computing only for the block it replaced (a mask built from the
// sequence length, a rotary table's slice).
func dropUnread(nodes []*graph.Node, outputs []*graph.Value) []*graph.Node {
	for {
		read := map[*graph.Value]bool{}
		for _, v := range outputs {
			read[v] = true
		}
		for _, n := range nodes {
			for _, v := range n.Inputs {
				read[v] = true
			}
		}
		kept := nodes[:0:0]
		for _, n := range nodes {
			if slices.ContainsFunc(n.Outputs, func(v *graph.Value) bool { return v != nil && read[v] }) {
				kept = append(kept, n)
			}
		}
		if len(kept) == len(nodes) {
			return kept
		}
		nodes = kept
	}
}

// causalAttention reports whether the com.microsoft Attention node n
// computes causal attention that GroupQueryAttention computes too: no
// mask_index, and either unidirectional without attention_bias, or a
// causal attention_bias [1, 1, S, S] (causalValue). The heads must be a
// multiple of 8 in size.
func (f *attnFuser) causalAttention(n *graph.Node) bool {
	if n.Op != "Attention" || n.Domain != graph.MicrosoftDomain || n.Input(3) != nil || n.Input(4) != nil {
		return false
	}
	d, err := graph.AttentionShape(n)
	if err != nil || (d.Hidden/d.Heads)%8 != 0 {
		return false
	}
	ab := n.Input(5)
	if ab == nil {
		return attrInt(n, "unidirectional", 0) == 1 && d.Seq > 1 || d.Seq == 1
	}
	// [1, 1, S, S], or min(cap, S) rows and columns as a mask sliced from
	// a constant of cap rows makes them (capOf): the Attention then runs
	// only where S <= cap.
	as, xs := dims(ab), dims(n.Input(0))
	if len(as) != 4 || !allOnes(as[:2]) || as[2] != as[3] {
		return false
	}
	if _, ok := capOf(as[2], xs[1]); !ok {
		return false
	}
	return f.causalValue(ab)
}

// groupQueryOfAttention adds (src.add) the nodes computing the causal
// com.microsoft Attention node n (causalAttention) as GroupQueryAttention:
// the packed projection MatMul(input, weights) + bias as its query, as
// many key/value heads as heads, n's scale. The output value is n's.
// (Attention that is not causal stays: GroupQueryAttention with causal 0
// and n's attention_bias measured slower, docs/perf.md.)
func (f *attnFuser) groupQueryOfAttention(n *graph.Node, src *shapeSource) error {
	base := n.Name + "_gqa"
	x, w, b := n.Input(0), n.Input(1), n.Input(2)
	qkv, err := src.node("MatMul", base+"_qkv", nil, x, w)
	if err != nil {
		return err
	}
	if b != nil {
		if qkv, err = src.node("Add", base+"_qkv_bias", nil, qkv, b); err != nil {
			return err
		}
	}
	xs := dims(x)
	m := &gqaMatch{q: qkv, batch: xs[0], seq: xs[1], heads: int(n.AttrInt("num_heads")), scale: float64(n.AttrFloat("scale"))}
	m.kv = m.heads
	return f.addGroupQuery(m, n.Outputs[0], base, src)
}

// causalAsGroupQuery rewrites every causal com.microsoft Attention of g
// (causalAttention) as GroupQueryAttention (groupQueryOfAttention): ONNX
// Runtime's CPU kernel for it skips the masked half and runs faster at 2
// threads (docs/perf.md). It reports whether anything changed; g is not
// modified.
func causalAsGroupQuery(g *graph.Graph) (*graph.Graph, bool, error) {
	f := newAttnFuser(g)
	r := newReplacement(f)
	for _, n := range g.Nodes {
		if f.causalAttention(n) {
			r.try(n, func() error { return f.groupQueryOfAttention(n, r.src) })
		}
	}
	return r.spliced(g, nil, true, "causal attention as GroupQueryAttention")
}
