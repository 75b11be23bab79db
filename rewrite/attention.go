package rewrite

import (
	"fmt"
	"math"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// FuseAttention replaces multi-head self-attention written out op by op,
// as PyTorch's nn.MultiheadAttention exports it (sequence-first), by ONNX
// Runtime's com.microsoft Attention node, which ONNX Runtime's own
// optimiser does not form from this pattern. The matched form, for a
// batch of B sequences of L tokens, N heads of size h and hidden size
// D = N*h:
//
//	P  = MatMul(X, W) + b                       W [Din, 3D], b [3D] constants
//	Q, K, V = Slice(P) columns [0,D), [D,2D), [2D,3D)
//	Qh = Transpose[1,0,2](Reshape(Q)) [B*N, L, h], likewise Vh
//	Kt = Transpose[1,2,0](Reshape(K)) [B*N, h, L]
//	S  = Softmax[last](c2 * MatMul(c1 * Qh, Kt) + M)   c1, c2 scalar constants (Mul or Div, each optional),
//	                                                    M an optional constant [.., L, L] with leading 1s
//	O  = Reshape(Transpose[1,0,2](MatMul(S, Vh))) [L*B, D] (or [L, B, D]; for B = 1 also [L, D], [1, L, D])
//
// where X is [L, B, Din] or, for a batch of one, [L, Din] or [1, L, Din].
// B and L may be symbols of a graph bound with them: the heads axis of the
// scores must be B*N at every binding. O becomes the Attention of X in
// batch-first order ([B, L, Din]: a Transpose, or a Reshape for a batch
// of one), weights W and b, attention_bias M, scale c2*c1, brought back to
// O's order and shape, with shapes valid at every binding. The mask is
// added exactly as before (ONNX Runtime adds attention_bias to the scaled
// scores; -inf entries stay -inf), so no assumption about the range of
// the scores is made. The product c2*c1 must be exact in float32
// (Attention's scale is a float32 attribute), as it is for heads of 4,
// 16, 64 or 256 (PyTorch divides by sqrt(h)). Intermediate values must
// have no readers outside the pattern. The batch-first layout of Hugging
// Face style exports, with separate projections and masks computed at run
// time, is matched too (matchBatchFirst). It reports whether anything
// changed; g is not modified.
func FuseAttention(g *graph.Graph) (*graph.Graph, bool, error) {
	return fuseAttention(g, false)
}

// FuseAttentionRounded is FuseAttention that also fuses a block whose
// scale is not exact in float32 (1/sqrt(32) for heads of 32, as GPT-2
// style and small ViT exports divide by): Attention's float32 scale
// attribute is then the product of the block's scales rounded to
// float32, which moves the scores by at most one float32 rounding
// (relative 6e-8), within FusionFormsTolerance on inputs of ordinary
// range. It is the pass CanonicalFirst runs (Pass.Canonical).
func FuseAttentionRounded(g *graph.Graph) (*graph.Graph, bool, error) {
	return fuseAttention(g, true)
}

// fuseAttention is FuseAttention, with scales rounded to float32 allowed
// when rounded is set.
func fuseAttention(g *graph.Graph, rounded bool) (*graph.Graph, bool, error) {
	if g == nil {
		return nil, false, fmt.Errorf("rewrite: FuseAttention: nil graph")
	}
	if !hasDefaultOp(g, "Softmax") {
		return g, false, nil // every fusion starts from a Softmax
	}
	f := newAttnFuser(g)
	f.rounded = rounded
	used := map[*graph.Node]bool{}
	grouped := false // a GroupQueryAttention was built (it leaves the tables and masks it read unread)
	r := newReplacement(f)
	for _, n := range g.Nodes {
		if n.Op != "Softmax" || !defaultDomain(n) {
			continue
		}
		m, ok := f.match(n)
		if !ok {
			m, ok = f.matchBatchFirst(n, f.headView4)
		}
		if !ok {
			m, ok = f.matchBatchFirst(n, f.packedView)
		}
		var gm *gqaMatch
		if !ok {
			gm, ok = f.matchGroupQuery(n)
			if ok {
				m = &attnMatch{out: gm.out, nodes: gm.nodes}
			}
		}
		if !ok || slices.ContainsFunc(m.nodes, func(x *graph.Node) bool { return used[x] }) {
			continue
		}
		var shapes []*graph.Node
		built := r.try(m.out, func() (err error) {
			if gm != nil {
				shapes, err = f.buildGroupQuery(gm, r.src)
			} else {
				shapes, err = f.build(m, r.src)
			}
			return err
		})
		if !built {
			continue // no form valid at every binding: the block stays
		}
		grouped = grouped || gm != nil
		for _, x := range append(m.nodes, shapes...) {
			used[x] = true
		}
	}
	out, changed, err := r.spliced(g, used, grouped, "FuseAttention")
	if err != nil || !changed {
		return out, false, err
	}
	res, _, err := causalAsGroupQuery(out)
	if err != nil {
		return nil, false, err
	}
	if res, _, err = cancelTransposedRows(res); err != nil {
		return nil, false, err
	}
	return res, true, nil
}

// attnFuser holds the graph being matched and its indexes.
type attnFuser struct {
	g     *graph.Graph
	prod  map[*graph.Value]*graph.Node
	cons  map[*graph.Value][]*graph.Node
	names map[string]bool
	isOut []*graph.Value
	// rounded allows a scale that float32 rounds (FuseAttentionRounded).
	rounded bool
}

// attnMatch is one matched attention block.
type attnMatch struct {
	x, w, b, mask *graph.Value
	scale         float64
	din, d        int
	heads         int         // per sequence
	batchFirst    bool        // x is [B, L, Din], the output [B, L, D] (matchBatchFirst)
	batch, seq    graph.Dim   // B and L
	rows          graph.Dim   // the block's sequence: L, or min(cap, L) (capOf)
	cap           int64       // when not 0, the block reads the input's first cap positions (capOf)
	where         *graph.Node // a Where filling masked scores (whereMask), m.fill its fill's input index
	fill          int
	fillConst     *graph.Value  // the scalar constant it fills with
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

// only returns v's single reader when v has exactly one besides Shape
// nodes (which build recomputes from the symbols) and is not a graph
// output.
func (f *attnFuser) only(v *graph.Value) (*graph.Node, bool) {
	if v == nil || slices.Contains(f.isOut, v) {
		return nil, false
	}
	rs := f.dataReaders(v)
	if len(rs) != 1 {
		return nil, false
	}
	return rs[0], true
}

// dataReaders returns v's readers other than Shape nodes and nodes read
// only by Shape nodes (shapeOnly).
func (f *attnFuser) dataReaders(v *graph.Value) []*graph.Node {
	var out []*graph.Node
	for _, n := range f.cons[v] {
		if !isShapeOp(n) && !f.shapeOnly(n) {
			out = append(out, n)
		}
	}
	return out
}

// shapeOnly reports whether n is a node other than Shape whose outputs
// are read, and only by Shape nodes (GPT-2's exporter takes the key's
// length from the Shape of a Transpose nothing else reads): build
// recomputes those Shapes from the symbols and drops n.
func (f *attnFuser) shapeOnly(n *graph.Node) bool {
	if isShapeOp(n) || len(n.Outputs) == 0 {
		return false
	}
	for _, o := range n.Outputs {
		rs := f.cons[o]
		if o == nil || len(rs) == 0 || slices.Contains(f.isOut, o) || slices.ContainsFunc(rs, func(r *graph.Node) bool { return !isShapeOp(r) }) {
			return false
		}
	}
	return true
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

// heads is how a head view lays out its source: [L, B, D] (or, for a
// batch of one, [L, D] or [1, L, D]) split into N heads of h.
type heads struct {
	src        *graph.Value
	batch, seq graph.Dim
	n          int
	// width is the hidden size of the view's heads (N*h); slot, for a
	// view of a [B, L, 3, N, h] packing (packedView), is which of q, k
	// and v it is, and shared the nodes the three views share.
	width  int
	slot   int
	shared []*graph.Node
}

// headView matches Transpose[perm](Reshape(src)) where the Reshape splits
// src's last axis into heads: src [L, B, D], [L, D] or [1, L, D], the
// Reshape output [L, B*N, h] at every binding. It returns the layout and
// the nodes.
func (f *attnFuser) headView(v *graph.Value, perm []int64) (heads, []*graph.Node, bool) {
	t, r, ok := f.transposedReshape(v, perm)
	if !ok {
		return heads{}, nil, false
	}
	rs, ss := dims(r.Outputs[0]), dims(r.Input(0))
	b, l, ok := rowsOf(ss)
	if len(rs) != 3 || !ok || rs[2].Param != "" || rs[2].Value <= 0 || rs[0] != l {
		return heads{}, nil, false
	}
	d := ss[len(ss)-1]
	n, ok := dimDiv(d, rs[2])
	if !ok || n.Param != "" || dimMul(b, n) != rs[1] {
		return heads{}, nil, false
	}
	return heads{src: r.Input(0), batch: b, seq: l, n: int(n.Value)}, []*graph.Node{t, r}, true
}

// transposedReshape matches v = Transpose[perm](Reshape(.)), each value
// read only by the next node.
func (f *attnFuser) transposedReshape(v *graph.Value, perm []int64) (t, r *graph.Node, ok bool) {
	t, ok = f.from(v, "Transpose")
	if !ok || !slices.Equal(attrInts(t, "perm"), perm) {
		return nil, nil, false
	}
	r, ok = f.from(t.Input(0), "Reshape")
	return t, r, ok
}

// rowsOf returns the batch and sequence of a sequence-first activation
// [L, B, D], or of a batch of one [L, D] or [1, L, D] (B a plain 1).
func rowsOf(s graph.Shape) (batch, seq graph.Dim, ok bool) {
	switch {
	case len(s) == 2:
		return fixedDim(1), s[0], true
	case len(s) == 3 && isFixed(s[0], 1) && !isFixed(s[1], 1):
		return fixedDim(1), s[1], true
	case len(s) == 3:
		return s[1], s[0], true
	}
	return graph.Dim{}, graph.Dim{}, false
}

// outRows reports whether s lays out rows as a block's output may: [L*B,
// D] or [L, B, D] in sequence-first order, or for a batch of one [L, D],
// [1, L, D] or [L, 1, D].
func outRows(s graph.Shape, batch, seq graph.Dim, d int) bool {
	if len(s) == 0 || !isFixed(s[len(s)-1], int64(d)) {
		return false
	}
	switch len(s) {
	case 2:
		return s[0] == dimMul(seq, batch)
	case 3:
		return s[0] == seq && s[1] == batch || isFixed(batch, 1) && isFixed(s[0], 1) && s[1] == seq
	}
	return false
}

// slice matches a Slice of p along its last axis with constant bounds
// [lo, lo+width) and step 1, reading p, whose only readers are slices.
func (f *attnFuser) slice(v *graph.Value, lo, width int) (*graph.Value, *graph.Node, bool) {
	n, ok := f.from(v, "Slice")
	if !ok {
		return nil, nil, false
	}
	in := dims(n.Input(0))
	out := dims(v)
	if in == nil || out == nil {
		return nil, nil, false
	}
	starts, axes, ok := sliceBounds(n, in)
	last := len(in) - 1
	if !ok || len(axes) != 1 || axes[0] != last || starts[0] != lo || !isFixed(out[last], int64(width)) {
		return nil, nil, false
	}
	return n.Input(0), n, true
}

// match tries to match the block whose softmax is sm.
func (f *attnFuser) match(sm *graph.Node) (*attnMatch, bool) {
	ss := dims(sm.Outputs[0])
	if len(ss) != 3 || normAxis(attrInt(sm, "axis", -1), 3) != 2 || ss[1] != ss[2] {
		return nil, false
	}
	m := &attnMatch{nodes: []*graph.Node{sm}}
	// Output side: MatMul(S, Vh) -> Transpose[1,0,2] -> Reshape.
	pv, ok := f.outputSide(m, sm, []int64{1, 0, 2})
	if !ok {
		return nil, false
	}
	vh, vn, ok := f.headView(pv.Input(1), []int64{1, 0, 2})
	if !ok || vh.seq != ss[1] || dimMul(vh.batch, fixedDim(int64(vh.n))) != ss[0] {
		return nil, false
	}
	m.batch, m.seq, m.rows, m.heads = vh.batch, vh.seq, vh.seq, vh.n
	m.nodes = append(m.nodes, vn...)
	// Scores: Softmax(Add(scaled MatMul(scaled Qh, Kt), M)).
	scores, ok := f.whereMask(m, sm.Input(0))
	if !ok {
		scores = sm.Input(0)
	}
	if add, ok := f.from(scores, "Add"); ok && m.where == nil {
		for i := 0; i < 2; i++ {
			mk := add.Input(1 - i)
			ms := dims(mk)
			if len(ms) < 2 || len(ms) > 4 || !allOnes(ms[:len(ms)-2]) || mk.DType != sm.Outputs[0].DType ||
				!f.seqMask(mk, ms[len(ms)-2:], m.seq) {
				continue
			}
			m.mask, scores = mk, add.Input(i)
			m.nodes = append(m.nodes, add)
			break
		}
	}
	qh, kh, ok := f.queriesKeys(m, scores, f.headView, []int64{1, 0, 2}, []int64{1, 2, 0})
	if !ok {
		return nil, false
	}
	// The three slices of one packed projection.
	qs3 := dims(qh.src)
	if qs3[len(qs3)-1].Param != "" {
		return nil, false
	}
	m.d = int(qs3[len(qs3)-1].Value)
	if !outRows(dims(m.out.Outputs[0]), m.batch, m.seq, m.d) || !f.packedProjection(m, qh.src, kh.src, vh.src) {
		return nil, false
	}
	return m, true
}

// allOnes reports whether every dimension of s is a plain 1.
func allOnes(s graph.Shape) bool {
	return !slices.ContainsFunc(s, func(d graph.Dim) bool { return !isFixed(d, 1) })
}

// seqMask reports whether a mask of last dimensions ll masks scores over
// a sequence of seq: a constant [seq, seq], or a computed value whose
// dimensions are seq, or min(c, seq) as a causal mask sliced from a
// constant makes them (capOf: equal to seq wherever the original runs).
func (f *attnFuser) seqMask(mk *graph.Value, ll graph.Shape, seq graph.Dim) bool {
	if mk.IsConst() {
		return ll[0] == seq && ll[1] == seq
	}
	for _, d := range ll {
		if _, ok := capOf(d, seq); !ok {
			return false
		}
	}
	return true
}

// outputSide matches, from the softmax sm, MatMul(S, Vh) ->
// Transpose[perm] -> Reshape, each the only reader of the one before,
// records the Reshape as m.out and returns the MatMul.
func (f *attnFuser) outputSide(m *attnMatch, sm *graph.Node, perm []int64) (*graph.Node, bool) {
	pv, ok := f.only(sm.Outputs[0])
	if !ok || pv.Op != "MatMul" || !defaultDomain(pv) || pv.Input(0) != sm.Outputs[0] {
		return nil, false
	}
	t, ok := f.only(pv.Outputs[0])
	if !ok || t.Op != "Transpose" || !defaultDomain(t) || !slices.Equal(attrInts(t, "perm"), perm) {
		return nil, false
	}
	out, ok := f.only(t.Outputs[0])
	if !ok || out.Op != "Reshape" || !defaultDomain(out) {
		return nil, false
	}
	m.out = out
	m.nodes = append(m.nodes, pv, t, out)
	return pv, true
}

// headViewer matches a head view of a projection (headView, headView4).
type headViewer func(v *graph.Value, perm []int64) (heads, []*graph.Node, bool)

// queriesKeys matches the scores without their mask, scaled MatMul(scaled
// Qh, Kt), with Qh and Kt views (qperm, kperm) of m's heads, batch and
// sequence; it records the scale in m and returns the two views.
func (f *attnFuser) queriesKeys(m *attnMatch, scores *graph.Value, view headViewer, qperm, kperm []int64) (qh, kh heads, ok bool) {
	qk, c2, sn := f.scaled(scores)
	m.nodes = append(m.nodes, sn...)
	mm, ok := f.from(qk, "MatMul")
	if !ok {
		return qh, kh, false
	}
	m.nodes = append(m.nodes, mm)
	qs, c1, qn := f.scaled(mm.Input(0))
	m.nodes = append(m.nodes, qn...)
	m.scale = c1 * c2
	if float64(float32(m.scale)) != m.scale && !f.rounded {
		// The attribute is a float32: fuse only when the scales multiply
		// to one exactly (1/8 for heads of 64, say), so that the fused
		// graph computes what the original did.
		return qh, kh, false
	}
	qh, qv, ok := view(qs, qperm)
	if !ok || qh.n != m.heads || qh.batch != m.batch || qh.seq != m.seq {
		return qh, kh, false
	}
	kh, kv, ok := view(mm.Input(1), kperm)
	if !ok || kh.n != m.heads || kh.batch != m.batch || kh.seq != m.seq {
		return qh, kh, false
	}
	m.nodes = append(m.nodes, qv...)
	m.nodes = append(m.nodes, kv...)
	return qh, kh, true
}

// build adds (src.add) the nodes that replace m: X in batch-first order [B, L,
// Din] (a Transpose, or a Reshape for a batch of one), the Attention node,
// and the way back to the matched output's order and shape (which keeps
// the output value, so its readers are unchanged). Every shape they hold
// is valid at every binding. The Shape nodes reading values of the block
// are recomputed from the symbols; build returns them, as replaced.
func (f *attnFuser) build(m *attnMatch, src *shapeSource) (shapes []*graph.Node, err error) {
	if shapes, err = f.blockShapes(m.nodes, m.out, src); err != nil {
		return nil, err
	}
	if err := f.buildAttention(m, m.out.Name+"_attention", src); err != nil {
		return nil, err
	}
	return shapes, nil
}

// blockShapes recomputes from the symbols (src.replaceShape) the Shape
// nodes reading values of a block's nodes other than out, directly or
// through a node read only by Shapes (shapeOnly), and returns those
// nodes, which the block's replacement drops.
func (f *attnFuser) blockShapes(nodes []*graph.Node, out *graph.Node, src *shapeSource) (shapes []*graph.Node, err error) {
	for _, n := range nodes {
		if n == out {
			continue
		}
		for _, o := range n.Outputs {
			for _, r := range f.cons[o] {
				readers := []*graph.Node{r}
				if f.shapeOnly(r) {
					shapes = append(shapes, r)
					readers = nil
					for _, ro := range r.Outputs {
						readers = append(readers, f.cons[ro]...)
					}
				}
				for _, sh := range readers {
					if isShapeOp(sh) {
						if err := src.replaceShape(sh); err != nil {
							return nil, err
						}
						shapes = append(shapes, sh)
					}
				}
			}
		}
	}
	return shapes, nil
}

// buildAttention adds (src.add) the nodes computing m's output with an
// Attention node; src makes their shapes.
func (f *attnFuser) buildAttention(m *attnMatch, base string, src *shapeSource) error {
	in, err := f.batchFirstInput(m, base, src)
	if err != nil {
		return err
	}
	if m.where != nil {
		if err := f.additiveMask(m, base, src); err != nil {
			return err
		}
	}
	ins := []*graph.Value{in, m.w, m.b, nil, nil, nil}
	switch {
	case m.mask == nil:
		ins = ins[:3]
	case m.mask.IsConst():
		t := m.mask.Const.Clone()
		if ms := shape(m.mask); len(ms) != 4 || ms[0]*ms[1] == 1 {
			t.Shape = []int{1, 1, int(m.rows.Value), int(m.rows.Value)}
		}
		mk := &graph.Value{Name: f.unique(base + "_bias"), Const: t}
		mk.SetStatic(t.DType, t.Shape)
		ins[5] = mk
	default:
		if ins[5], err = f.expandMask(m, base, src); err != nil {
			return err
		}
	}
	att := &graph.Node{Name: f.unique(base), Op: "Attention", Domain: graph.MicrosoftDomain, Inputs: ins,
		Outputs: []*graph.Value{{Name: f.unique(base + "_output")}}, Attrs: graph.Attrs{
			"num_heads": graph.IntAttr(int64(m.heads)),
			"scale":     graph.FloatAttr(float32(m.scale)),
		}}
	if err := inferAs(att, graph.Shape{m.batch, m.rows, fixedDim(int64(m.d))}); err != nil {
		return err
	}
	src.add(att)
	// Back to the output's order: sequence-first unless the batch is one
	// or the block was batch-first.
	ao := att.Outputs[0]
	want := m.out.Outputs[0]
	if !m.batchFirst && !isFixed(m.batch, 1) {
		t := &graph.Node{Name: f.unique(base + "_seq_first"), Op: "Transpose", Attrs: graph.Attrs{"perm": graph.IntsAttr(1, 0, 2)},
			Inputs: []*graph.Value{ao}, Outputs: []*graph.Value{{Name: f.unique(base + "_seq_first")}}}
		if err := inferAs(t, graph.Shape{m.seq, m.batch, fixedDim(int64(m.d))}); err != nil {
			return err
		}
		src.add(t)
		ao = t.Outputs[0]
	}
	if m.batchFirst && dims(want).Equal(dims(ao)) {
		// The Attention writes the output itself.
		return inferInto(att, want)
	}
	r := &graph.Node{Name: f.unique(base + "_out"), Op: "Reshape"}
	shp, err := src.reshapeTo(ao, want.Shape, r.Name+"_shape")
	if err != nil {
		return err
	}
	r.Inputs = []*graph.Value{ao, shp}
	if err := inferInto(r, want); err != nil {
		return err
	}
	src.add(r)
	return nil
}

// batchFirstInput returns m's input in batch-first order [B, L, Din]: x
// itself for a batch-first block, else a Transpose of it, or a Reshape
// for a batch of one, which it adds.
func (f *attnFuser) batchFirstInput(m *attnMatch, base string, src *shapeSource) (*graph.Value, error) {
	if m.batchFirst && m.cap == 0 {
		return m.x, nil
	}
	if m.batchFirst {
		// The first cap positions: x itself wherever the block's mask
		// lets the original run.
		starts, ends, axes := src.constInt64(base+"_starts", []int64{0}), src.constInt64(base+"_ends", []int64{m.cap}), src.constInt64(base+"_axes", []int64{1})
		sl := &graph.Node{Name: f.unique(base + "_rows"), Op: "Slice", Inputs: []*graph.Value{m.x, starts, ends, axes},
			Outputs: []*graph.Value{{Name: f.unique(base + "_rows")}}}
		if err := inferAs(sl, graph.Shape{m.batch, m.rows, fixedDim(int64(m.din))}); err != nil {
			return nil, err
		}
		src.add(sl)
		return sl.Outputs[0], nil
	}
	xr := &graph.Node{Name: f.unique(base + "_in"), Op: "Reshape"}
	if isFixed(m.batch, 1) {
		t, err := src.reshapeTo(m.x, graph.Shape{fixedDim(1), m.seq, fixedDim(int64(m.din))}, xr.Name+"_shape")
		if err != nil {
			return nil, err
		}
		xr.Inputs = []*graph.Value{m.x, t}
	} else {
		xr.Op, xr.Attrs, xr.Inputs = "Transpose", graph.Attrs{"perm": graph.IntsAttr(1, 0, 2)}, []*graph.Value{m.x}
	}
	xr.Outputs = []*graph.Value{{Name: f.unique(base + "_input")}}
	if err := inferAs(xr, graph.Shape{m.batch, m.seq, fixedDim(int64(m.din))}); err != nil {
		return nil, err
	}
	src.add(xr)
	return xr.Outputs[0], nil
}

// expandMask returns m's computed mask [B or 1, 1, L or 1, L] as the
// attention_bias Attention reads, [B or 1, 1, L, L]: the mask itself, or
// an Expand of it, which it adds; a sequence-first block's [.., L, L]
// mask is reshaped to [1, 1, L, L].
func (f *attnFuser) expandMask(m *attnMatch, base string, src *shapeSource) (*graph.Value, error) {
	ms := dims(m.mask)
	if len(ms) < 4 {
		// A sequence-first block's [.., L, L] mask: [1, 1, L, L].
		want := append(graph.Shape{fixedDim(1), fixedDim(1)}, ms[len(ms)-2:]...)
		shp, err := src.reshapeTo(m.mask, want, base+"_bias_shape")
		if err != nil {
			return nil, err
		}
		return f.shaped(src, "Reshape", m.mask, shp, want, base+"_bias")
	}
	if ms[2] == m.rows {
		return m.mask, nil
	}
	want := graph.Shape{ms[0], fixedDim(1), m.rows, m.rows}
	shp, err := src.vector(want, base+"_bias_shape")
	if err != nil {
		return nil, err
	}
	return f.shaped(src, "Expand", m.mask, shp, want, base+"_bias")
}

// shaped adds to src a node op (Reshape or Expand) of x to the shape
// tensor shp, its output of shape want, named after name, and returns
// that output.
func (f *attnFuser) shaped(src *shapeSource, op string, x, shp *graph.Value, want graph.Shape, name string) (*graph.Value, error) {
	n := &graph.Node{Name: f.unique(name), Op: op, Inputs: []*graph.Value{x, shp},
		Outputs: []*graph.Value{{Name: f.unique(name)}}}
	if err := inferAs(n, want); err != nil {
		return nil, err
	}
	src.add(n)
	return n.Outputs[0], nil
}

// unique returns base, or base with a numeric suffix, unused in the graph.
func (f *attnFuser) unique(base string) string {
	return graph.UniqueName(f.names, base)
}
