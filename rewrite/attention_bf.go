package rewrite

import (
	"math"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// Batch-first attention, as Hugging Face, timm-free ViT and hand-written
// exports write it: heads split as [B, L, N, h] and brought to [B, N, L,
// h] by Transpose[0,2,1,3], the keys by Transpose[0,2,3,1], 4-D scores
// [B, N, L, L], and the heads merged back by Transpose[0,2,1,3] and a
// Reshape to [B, L, D]. The projections are three MatMul+Add with constant
// weights reading one input, or Slices of one packed projection (the
// canonical form of a Split, rules/data/canonical.rules). The additive
// mask may be computed at run time (an attention_mask input turned into
// (1-m)*c, say) when it broadcasts to [B or 1, 1, L or 1, L].

// headView4 matches Transpose[perm](Reshape(src)) where the Reshape splits
// the last axis of src [B, L, D] into [B, L, N, h].
func (f *attnFuser) headView4(v *graph.Value, perm []int64) (heads, []*graph.Node, bool) {
	t, r, ok := f.transposedReshape(v, perm)
	if !ok {
		return heads{}, nil, false
	}
	h, ok := splitHeads4(r)
	return h, []*graph.Node{t, r}, ok
}

// splitHeads4 returns the layout of the Reshape r when it splits the last
// axis of its input [B, L, D] into [B, L, N, h].
func splitHeads4(r *graph.Node) (heads, bool) {
	rs, ss := dims(r.Outputs[0]), dims(r.Input(0))
	if len(rs) != 4 || len(ss) != 3 || rs[0] != ss[0] || rs[1] != ss[1] || rs[2].Param != "" || rs[3].Param != "" ||
		rs[2].Value <= 0 || rs[3].Value <= 0 || !isFixed(ss[2], rs[2].Value*rs[3].Value) {
		return heads{}, false
	}
	return heads{src: r.Input(0), batch: ss[0], seq: ss[1], n: int(rs[2].Value), width: int(ss[2].Value)}, true
}

// packedView matches timm's packing of q, k and v: P [B, L, 3D] reshaped
// to [B, L, 3, N, h], brought to [3, B, N, L, h] by Transpose[2,0,3,1,4],
// and each of the three read by Squeeze(Slice(., axis 0, [i, i+1])) or
// Gather(., i, axis 0) as [B, N, L, h]; for the keys' perm [0,2,3,1] that view is then
// transposed by Transpose[0,1,3,2]. It returns the layout (src P, the
// slot i) and the view's own nodes.
func (f *attnFuser) packedView(v *graph.Value, perm []int64) (heads, []*graph.Node, bool) {
	var own []*graph.Node
	if slices.Equal(perm, []int64{0, 2, 3, 1}) {
		t, ok := f.from(v, "Transpose")
		if !ok || !slices.Equal(attrInts(t, "perm"), []int64{0, 1, 3, 2}) {
			return heads{}, nil, false
		}
		own, v = append(own, t), t.Input(0)
	} else if !slices.Equal(perm, []int64{0, 2, 1, 3}) {
		return heads{}, nil, false
	}
	pick, slot, ok := f.packedSlot(v)
	if !ok {
		return heads{}, nil, false
	}
	t := f.prod[pick[len(pick)-1].Input(0)]
	if t == nil || t.Op != "Transpose" || !defaultDomain(t) || !slices.Equal(attrInts(t, "perm"), []int64{2, 0, 3, 1, 4}) ||
		len(f.dataReaders(t.Outputs[0])) != 3 || slices.Contains(f.isOut, t.Outputs[0]) {
		return heads{}, nil, false
	}
	r, ok := f.from(t.Input(0), "Reshape")
	if !ok {
		return heads{}, nil, false
	}
	rs, ps := dims(r.Outputs[0]), dims(r.Input(0))
	if len(rs) != 5 || len(ps) != 3 || rs[0] != ps[0] || rs[1] != ps[1] || !isFixed(rs[2], 3) || rs[3].Param != "" || rs[4].Param != "" ||
		rs[3].Value <= 0 || rs[4].Value <= 0 || !isFixed(ps[2], 3*rs[3].Value*rs[4].Value) {
		return heads{}, nil, false
	}
	own = append(own, pick...)
	return heads{src: r.Input(0), batch: ps[0], seq: ps[1], n: int(rs[3].Value), width: int(rs[3].Value * rs[4].Value), slot: slot,
		shared: []*graph.Node{t, r}}, own, true
}

// packedSlot matches v as entry i of axis 0 of a 5-D packing [3, B, N, L,
// h]: Squeeze(Slice(., axis 0, [i, i+1])), as timm writes it, or
// Gather(., i, axis 0), as torchvision's Swin does. It returns the nodes
// (the one reading the packing last) and i.
func (f *attnFuser) packedSlot(v *graph.Value) ([]*graph.Node, int, bool) {
	if g, ok := f.from(v, "Gather"); ok {
		idx, ok := constInts(g, 1)
		ts := dims(g.Input(0))
		if !ok || len(idx) != 1 || len(shape(g.Input(1))) != 0 || attrInt(g, "axis", 0) != 0 || len(ts) != 5 ||
			idx[0] < 0 || idx[0] > 2 || !isFixed(ts[0], 3) || !dims(v).Equal(ts[1:]) {
			return nil, 0, false
		}
		return []*graph.Node{g}, int(idx[0]), true
	}
	sq, ok := f.from(v, "Squeeze")
	if !ok {
		return nil, 0, false
	}
	sl, ok := f.from(sq.Input(0), "Slice")
	if !ok {
		return nil, 0, false
	}
	ts, ls := dims(sl.Input(0)), dims(sl.Outputs[0])
	starts, axes, ok := sliceBounds(sl, ts)
	if !ok || len(ts) != 5 || len(axes) != 1 || axes[0] != 0 || !isFixed(ls[0], 1) || !dims(v).Equal(ls[1:]) {
		return nil, 0, false
	}
	return []*graph.Node{sq, sl}, starts[0], true
}

// packedHeads matches q, k and v as the slots 0, 1 and 2 of one packing
// (packedView) of a projection, and records it in m.
func (f *attnFuser) packedHeads(m *attnMatch, q, k, v heads) bool {
	if q.shared == nil || k.src != q.src || v.src != q.src || q.slot != 0 || k.slot != 1 || v.slot != 2 {
		return false
	}
	x, w, b, nodes, ok := f.projection(q.src, 3*m.d)
	if !ok {
		return false
	}
	m.x, m.w, m.b, m.din = x, w, b, shape(w)[0]
	m.nodes = append(m.nodes, q.shared...)
	m.nodes = append(m.nodes, nodes...)
	return true
}

// matchBatchFirst tries to match the batch-first block whose softmax is
// sm, over 4-D scores [B, N, L, L], with heads viewed by view (headView4
// or packedView).
func (f *attnFuser) matchBatchFirst(sm *graph.Node, view headViewer) (*attnMatch, bool) {
	ss := dims(sm.Outputs[0])
	if len(ss) != 4 || normAxis(attrInt(sm, "axis", -1), 4) != 3 || ss[2] != ss[3] {
		return nil, false
	}
	m := &attnMatch{nodes: []*graph.Node{sm}, batchFirst: true}
	merge := []int64{0, 2, 1, 3}
	pv, ok := f.outputSide(m, sm, merge)
	if !ok {
		return nil, false
	}
	vh, vn, ok := view(pv.Input(1), merge)
	if !ok || vh.batch != ss[0] || !isFixed(ss[1], int64(vh.n)) {
		return nil, false
	}
	if m.cap, ok = capOf(ss[2], vh.seq); !ok {
		return nil, false
	}
	m.batch, m.seq, m.rows, m.heads = vh.batch, vh.seq, ss[2], vh.n
	m.nodes = append(m.nodes, vn...)
	scores := f.maskOf(m, sm.Input(0), sm.Outputs[0].DType)
	qh, kh, ok := f.queriesKeys(m, scores, view, merge, []int64{0, 2, 3, 1})
	if !ok {
		return nil, false
	}
	m.d = qh.width
	os := dims(m.out.Outputs[0])
	if len(os) < 2 || len(os) > 3 || !isFixed(os[len(os)-1], int64(m.d)) || dimProduct(os) != dimMul(dimMul(m.batch, m.rows), fixedDim(int64(m.d))) {
		return nil, false
	}
	if f.packedHeads(m, qh, kh, vh) || f.packedProjection(m, qh.src, kh.src, vh.src) || f.separateProjections(m, qh.src, kh.src, vh.src) {
		return m, true
	}
	return nil, false
}

// maskOf strips an additive mask from the scores s of a batch-first block
// into m and returns the scores without it: a constant [.., L, L] with
// leading ones or a constant bias per head (headBias), a shifted
// window's mask with the bias before it (windowMask), or a computed [B or 1, 1, L or 1, L] value; or a Where
// that fills the masked scores with a large negative constant (whereMask).
func (f *attnFuser) maskOf(m *attnMatch, s *graph.Value, dt graph.DType) *graph.Value {
	if rest, ok := f.whereMask(m, s); ok {
		return rest
	}
	if rest, ok := f.windowMask(m, s, dt); ok {
		return rest
	}
	add, ok := f.from(s, "Add")
	if !ok {
		return s
	}
	for i := 0; i < 2; i++ {
		mk := add.Input(1 - i)
		ms := dims(mk)
		if mk.DType != dt || len(ms) < 2 || len(ms) > 4 || ms[len(ms)-1] != m.rows || m.cap != 0 && mk.IsConst() {
			continue
		}
		if mk.IsConst() {
			if ms[len(ms)-2] != m.rows || dimProduct(ms) != dimMul(m.rows, m.rows) && !f.headBias(m, ms) {
				continue
			}
		} else if !f.biasShape(m, ms) {
			continue
		}
		m.mask = mk
		m.nodes = append(m.nodes, add)
		return add.Input(i)
	}
	return s
}

// headBias reports whether a constant mask of shape ms is a bias per head
// (and per batch) that Attention's attention_bias takes as it is: [1 or
// B, 1 or N, L, L], as Swin's relative position bias [1, N, L, L].
func (f *attnFuser) headBias(m *attnMatch, ms graph.Shape) bool {
	return len(ms) == 4 && (isFixed(ms[0], 1) || ms[0] == m.batch && ms[0].Param == "") &&
		(isFixed(ms[1], 1) || isFixed(ms[1], int64(m.heads))) && ms[2] == m.rows && ms[3] == m.rows
}

// biasShape reports whether a computed mask of shape ms broadcasts to
// Attention's attention_bias after an Expand: [B or 1, 1, L or 1, L].
func (f *attnFuser) biasShape(m *attnMatch, ms graph.Shape) bool {
	return len(ms) == 4 && isFixed(ms[1], 1) && (ms[0] == m.batch || isFixed(ms[0], 1)) &&
		(ms[2] == m.rows || isFixed(ms[2], 1)) && ms[3] == m.rows
}

// maskFill is the largest fill value of masked scores taken as a mask:
// softmax gives such scores a weight of zero in float32 and float64,
// whether they are replaced by the fill or have it added, and a score of
// magnitude below 1e21 added to such a fill rounds to the fill in float32
// (-inf stays -inf), so that a row whose keys are all masked gets the
// same equal weights both ways. Exporters fill with float32's lowest
// value or -inf.
const maskFill = -1e30

// whereMask matches s = Where(c, fill, scores) or Where(c, scores, fill),
// c a computed boolean mask (condShape) and fill a constant of at most
// maskFill, or causalFill for a causal c (keepsDiagonal) (fillValue), records it in m and returns the scores. The fused
// block adds Where(c, fill, 0) (or Where(c, 0, fill)) to the scores
// instead: the masked scores then hold fill plus a score, which softmax
// weighs as it weighs fill.
func (f *attnFuser) whereMask(m *attnMatch, s *graph.Value) (*graph.Value, bool) {
	w, ok := f.from(s, "Where")
	if !ok || w.Input(0).DType != graph.Bool || w.Input(0).IsConst() || !f.condShape(m, dims(w.Input(0))) {
		return nil, false
	}
	for i := 1; i <= 2; i++ {
		scores := w.Input(3 - i)
		ds, want := dims(scores), dims(s)
		limit := maskFill
		if i == 1 && f.keepsDiagonal(w.Input(0)) {
			limit = causalFill
		}
		fill, ok := f.fillValue(w.Input(i), want, limit)
		if !ok || fill.DType != scores.DType || len(ds) != len(want) ||
			!ds[:len(ds)-2].Equal(want[:len(want)-2]) || ds[len(ds)-2] != m.seq || ds[len(ds)-1] != m.seq {
			continue
		}
		m.where, m.fill, m.fillConst = w, i, fill
		m.nodes = append(m.nodes, w)
		return scores, true
	}
	return nil, false
}

// condShape reports whether a Where's condition of shape cs masks m's
// scores as an additive mask may: in a batch-first block [B or 1, 1, L or
// 1, L] (biasShape) or [.., L, L] with leading ones, in a sequence-first
// one [.., L, L] with leading ones.
func (f *attnFuser) condShape(m *attnMatch, cs graph.Shape) bool {
	if m.batchFirst && len(cs) == 4 && f.biasShape(m, cs) {
		return true
	}
	return len(cs) >= 2 && len(cs) <= 3 && allOnes(cs[:len(cs)-2]) && f.seqMask(&graph.Value{}, cs[len(cs)-2:], m.rows)
}

// fillValue returns the constant that v fills masked scores with, when it
// is at most limit (maskFill, or causalFill for a causal mask): v itself, a scalar constant, or the value of a
// ConstantOfShape whose shape broadcasts to the Where's output out.
func (f *attnFuser) fillValue(v *graph.Value, out graph.Shape, limit float64) (*graph.Value, bool) {
	if c, ok := scalarValue(v); ok {
		return v, c <= limit
	}
	p := f.prod[v]
	vs := dims(v)
	if p == nil || p.Op != "ConstantOfShape" || !defaultDomain(p) || len(vs) > len(out) {
		return nil, false
	}
	for i, d := range vs {
		if o := out[len(out)-len(vs)+i]; d != o && !isFixed(d, 1) {
			return nil, false
		}
	}
	t := p.AttrTensor("value")
	if t == nil {
		return nil, false
	}
	c := &graph.Value{Name: f.unique(v.Name + "_fill"), Const: t}
	c.SetStatic(t.DType, t.Shape)
	d, ok := scalarValue(c)
	return c, ok && d <= limit
}

// causalFill is the largest fill of a causal mask (keepsDiagonal): no row
// is masked whole, so only the weight of the masked scores matters, below
// exp(-10000), zero in float32 and float64, replaced or added.
const causalFill = -1e4

// keepsDiagonal reports whether the condition c, true where a score is
// masked, is Trilu(., upper, k) with a constant k of at least 1: every
// query keeps at least its own key, so no row of the scores is masked
// whole.
func (f *attnFuser) keepsDiagonal(c *graph.Value) bool {
	t := f.prod[c]
	if t == nil || t.Op != "Trilu" || !defaultDomain(t) || attrInt(t, "upper", 1) != 1 {
		return false
	}
	k, ok := constInts(t, 1)
	return ok && len(k) == 1 && k[0] >= 1
}

// scalarValue returns the value of a one-element float constant, infinite
// values included.
func scalarValue(v *graph.Value) (float64, bool) {
	if !v.IsConst() || v.Const.Len() != 1 || len(v.Const.Shape) > 1 || !v.Const.DType.IsFloat() {
		return 0, false
	}
	d, err := v.Const.AsFloat64()
	if err != nil || math.IsNaN(d[0]) {
		return 0, false
	}
	return d[0], true
}

// additiveMask adds Where(c, fill, 0) (or Where(c, 0, fill)) for m's
// matched Where, the mask it adds to the scores, and records it as m.mask.
func (f *attnFuser) additiveMask(m *attnMatch, base string, src *shapeSource) error {
	fill := m.fillConst
	zero := &graph.Value{Name: f.unique(base + "_zero"), Const: graph.NewTensor(fill.DType)}
	zero.SetStatic(fill.DType, nil)
	ins := []*graph.Value{m.where.Input(0), zero, zero}
	ins[m.fill] = fill
	w := &graph.Node{Name: f.unique(base + "_mask"), Op: "Where", Inputs: ins, Outputs: []*graph.Value{{Name: f.unique(base + "_mask")}}}
	if err := inferAs(w, dims(m.where.Input(0))); err != nil { // the fill is a scalar
		return err
	}
	src.add(w)
	m.mask = w.Outputs[0]
	return nil
}

// capOf reports whether the sequence l of a block's scores is the
// sequence seq of its queries, keys and values (cap 0), or min(cap, seq),
// as a causal mask sliced from a constant of cap rows makes it: the
// original then runs only where seq <= cap, where the first cap positions
// of the input are all of it.
func capOf(l, seq graph.Dim) (cap int64, ok bool) {
	if l == seq {
		return 0, true
	}
	atoms := l.Sym().Atoms()
	if len(atoms) != 1 || !graph.SymAtom(atoms[0]).Equal(l.Sym()) {
		return 0, false
	}
	c, x, ok := minAtom(atoms[0])
	if !ok || !x.Equal(seq.Sym()) {
		return 0, false
	}
	return c, true
}

// packedProjection matches q, k and v as the three Slices of one packed
// projection (match's form) and records it in m.
func (f *attnFuser) packedProjection(m *attnMatch, q, k, v *graph.Value) bool {
	d := m.d
	p, qn, ok1 := f.slice(q, 0, d)
	pk, kn, ok2 := f.slice(k, d, d)
	pv, vn, ok3 := f.slice(v, 2*d, d)
	if !ok1 || !ok2 || !ok3 || p != pk || p != pv || len(f.dataReaders(p)) != 3 || slices.Contains(f.isOut, p) {
		return false
	}
	x, w, b, nodes, ok := f.projection(p, 3*d)
	if !ok {
		return false
	}
	m.x, m.w, m.b, m.din = x, w, b, shape(w)[0]
	m.nodes = append(m.nodes, qn, kn, vn)
	m.nodes = append(m.nodes, nodes...)
	return true
}

// separateProjections matches q, k and v as three projections of one
// input with constant weights [Din, D] and biases [D], and records in m
// the packed weights and bias they concatenate to.
func (f *attnFuser) separateProjections(m *attnMatch, q, k, v *graph.Value) bool {
	if q == k || q == v || k == v {
		return false
	}
	var ws, bs []*graph.Tensor
	var x *graph.Value
	for _, s := range []*graph.Value{q, k, v} {
		if _, ok := f.only(s); !ok {
			return false
		}
		xi, w, b, nodes, ok := f.projection(s, m.d)
		if !ok || (x != nil && xi != x) {
			return false
		}
		x = xi
		ws, bs = append(ws, w.Const), append(bs, b.Const)
		m.nodes = append(m.nodes, nodes...)
	}
	w, ok1 := concatTensors(ws, 1)
	b, ok2 := concatTensors(bs, 0)
	if !ok1 || !ok2 {
		return false
	}
	m.x, m.din = x, w.Shape[0]
	m.w = &graph.Value{Name: f.unique(m.out.Name + "_attention_weights"), Const: w}
	m.w.SetStatic(w.DType, w.Shape)
	m.b = &graph.Value{Name: f.unique(m.out.Name + "_attention_bias_qkv"), Const: b}
	m.b.SetStatic(b.DType, b.Shape)
	return true
}

// projection matches v = MatMul(x, W) + b with W a constant [Din, width]
// and b a constant [width] of x's type, x of v's shape but for its last
// axis, Din.
func (f *attnFuser) projection(v *graph.Value, width int) (x, w, b *graph.Value, nodes []*graph.Node, ok bool) {
	add := f.prod[v]
	if add == nil || add.Op != "Add" || !defaultDomain(add) {
		return nil, nil, nil, nil, false
	}
	vs := dims(v)
	for i := 0; i < 2; i++ {
		b, mmv := add.Input(1-i), add.Input(i)
		proj, ok := f.from(mmv, "MatMul")
		if !ok || !b.IsConst() || !slices.Equal(shape(b), []int{width}) {
			continue
		}
		x, w := proj.Input(0), proj.Input(1)
		ws, xs := shape(w), dims(x)
		if !w.IsConst() || len(ws) != 2 || ws[1] != width || len(xs) != len(vs) || len(xs) == 0 ||
			!isFixed(xs[len(xs)-1], int64(ws[0])) || !xs[:len(xs)-1].Equal(vs[:len(vs)-1]) || x.DType != w.DType || b.DType != w.DType {
			continue
		}
		return x, w, b, []*graph.Node{add, proj}, true
	}
	return nil, nil, nil, nil, false
}

// concatTensors concatenates float constants of one type along axis (0
// for vectors, 1 for the columns of matrices with the same rows).
func concatTensors(ts []*graph.Tensor, axis int) (*graph.Tensor, bool) {
	rows, cols := 1, 0
	for _, t := range ts {
		if len(t.Shape) != axis+1 || t.DType != ts[0].DType || (axis == 1 && t.Shape[0] != ts[0].Shape[0]) {
			return nil, false
		}
		cols += t.Shape[axis]
	}
	if axis == 1 {
		rows = ts[0].Shape[0]
	}
	shape := []int{cols}
	if axis == 1 {
		shape = []int{rows, cols}
	}
	switch ts[0].DType {
	case graph.Float32:
		return graph.FromFloat32(concatRows(ts, rows, (*graph.Tensor).Float32s), shape...), true
	case graph.Float64:
		return graph.FromFloat64(concatRows(ts, rows, (*graph.Tensor).Float64s), shape...), true
	}
	return nil, false
}

// concatRows lays out, row by row, each tensor's part of the row.
func concatRows[T any](ts []*graph.Tensor, rows int, data func(*graph.Tensor) []T) []T {
	var out []T
	for r := 0; r < rows; r++ {
		for _, t := range ts {
			d := data(t)
			w := len(d) / rows
			out = append(out, d[r*w:(r+1)*w]...)
		}
	}
	return out
}
