package rewrite

import (
	"fmt"
	"maps"

	"github.com/xrl-dev/xrl/graph"
)

// Attention whose queries are one row. Once PruneDead has cut a token-0
// classifier's last layer to the row it reads, that layer still projects
// the keys and values of every row: K = X Wk + bk and V = X Wv + bv, two
// [L, Din] x [Din, D] products, for one query. Per head n (columns
// [n*h, (n+1)*h) of the projections) the products with that query need
// only
//
//	q K_n^T = (q Wk_n^T) X^T + q bk_n    (q Wk_n^T is one row of Din)
//	P V_n   = (P X) Wv_n + bv_n          (P a softmax row: it sums to 1)
//
// which cost about N*Din*(L+h) multiplications against L*Din*D: on the
// corpus encoder (L 128, D 384, 6 heads) 0.44M against 18.9M each. The
// identities are exact in real arithmetic, so the result differs from the
// original by rounding only. oneQueryAttention rewrites the two products
// where the projection then has no other reader (it dies) and the queries
// are one row at every binding, in the head layouts fuse-attention
// matches: sequence-first, keys Transpose[1,2,0] and values
// Transpose[1,0,2] of a Reshape to [L, B*N, h] (PyTorch's
// nn.MultiheadAttention), and batch-first, keys Transpose[0,2,3,1] and
// values Transpose[0,2,1,3] of a Reshape to [B, L, N, h] (Hugging Face
// style).

// MinOneQueryWork is the least number of multiplications, L*Din*D at the
// tuning shape, that a projection must cost for oneQueryAttention to
// rewrite the product that reads it: the rewrite adds about six small
// nodes per product, each a few microseconds of ONNX Runtime's overhead.
// Measured on the corpus (2 threads, the model the optimizer wrote
// against the original): vit_torchvision (65 tokens, width 192: 2.4M)
// went from 1.39x to 1.46x and encoder_classifier (18.9M) from 1.26-1.33x
// to 1.33-1.38x; vit_hf (1.1M) stayed at 1.21-1.22x; vit_tiny (17 tokens,
// width 64: 70K) fell from 1.73-1.78x to 1.53-1.56x.
const MinOneQueryWork = 2 << 20

// queryProduct is one matched product with the keys or the values.
type queryProduct struct {
	mm         *graph.Node
	keys       bool         // MatMul(queries, keys^T); else MatMul(softmax, values)
	x, w, b    *graph.Value // the projection: input [.., Din], weights [Din, D], bias [D] (nil without)
	view       heads        // its head split: batch B, sequence L, N heads
	batchFirst bool         // the [B, L, N, h] split; else [L, B*N, h]
}

// queryLayout is one head layout: the Transposes of the keys and of the
// values, and the matcher of the split.
type queryLayout struct {
	keys, values []int64
	view         headViewer
	batchFirst   bool
}

// oneQuery rewrites the products of one graph.
type oneQuery struct {
	f   *attnFuser
	src *shapeSource
	// rows holds each projection input in batch-first order [B, L, Din],
	// made once and shared by the products that read it.
	rows map[*graph.Value]*graph.Value
}

// oneQueryAttention rewrites every product of g with keys or values of
// attention whose queries are one row (see above); it reports whether
// anything changed and does not modify g.
func oneQueryAttention(g *graph.Graph) (*graph.Graph, bool, error) {
	if !hasDefaultOp(g, "Softmax") {
		return g, false, nil
	}
	f := newAttnFuser(g)
	r := newReplacement(f)
	q := &oneQuery{f: f, src: r.src, rows: map[*graph.Value]*graph.Value{}}
	for _, n := range g.Nodes {
		if n.Op != "MatMul" || !defaultDomain(n) {
			continue
		}
		m, ok := q.match(n)
		if !ok {
			continue
		}
		rows := maps.Clone(q.rows)
		if !r.try(n, func() error { return q.build(m) }) {
			q.rows = rows // the rows it made are gone with the rest
		}
	}
	return r.spliced(g, nil, true, "one-row queries")
}

// match matches mm as a product with the keys or the values of a
// one-row query.
func (q *oneQuery) match(mm *graph.Node) (queryProduct, bool) {
	f := q.f
	layouts := []queryLayout{
		{[]int64{1, 2, 0}, []int64{1, 0, 2}, f.headView, false},
		{[]int64{0, 2, 3, 1}, []int64{0, 2, 1, 3}, f.headView4, true},
	}
	a, out := dims(mm.Input(0)), dims(mm.Outputs[0])
	for _, lay := range layouts {
		for _, keys := range []bool{true, false} {
			perm := lay.values
			if keys {
				perm = lay.keys
			}
			h, _, ok := lay.view(mm.Input(1), perm)
			if !ok {
				continue
			}
			ps := dims(h.src)
			if len(ps) == 0 || ps[len(ps)-1].Param != "" || ps[len(ps)-1].Value%int64(h.n) != 0 {
				continue
			}
			d := ps[len(ps)-1].Value
			hd := fixedDim(d / int64(h.n))
			lead := graph.Shape{dimMul(h.batch, fixedDim(int64(h.n)))}
			if lay.batchFirst {
				lead = graph.Shape{h.batch, fixedDim(int64(h.n))}
			}
			wantA, wantOut := append(lead[:len(lead):len(lead)], fixedDim(1), hd), append(lead[:len(lead):len(lead)], fixedDim(1), h.seq)
			if !keys {
				wantA, wantOut = wantOut, wantA
				if !q.softmaxRows(mm.Input(0)) {
					continue
				}
			}
			if !a.Equal(wantA) || !out.Equal(wantOut) {
				continue
			}
			x, w, b, ok := q.projection(h.src, int(d))
			if !ok || h.seq.Value*int64(shape(w)[0])*d < MinOneQueryWork {
				continue
			}
			return queryProduct{mm: mm, keys: keys, x: x, w: w, b: b, view: h, batchFirst: lay.batchFirst}, true
		}
	}
	return queryProduct{}, false
}

// softmaxRows reports whether v is a Softmax over its last axis, whose
// rows sum to 1.
func (q *oneQuery) softmaxRows(v *graph.Value) bool {
	sm := q.f.prod[v]
	if sm == nil || sm.Op != "Softmax" || !defaultDomain(sm) {
		return false
	}
	rank := len(dims(v))
	// The IR holds Softmax with opset 13's meaning (the decoder
	// converts older ones): one axis, the last by default.
	axis := attrInt(sm, "axis", -1)
	return normAxis(axis, rank) == rank-1
}

// projection matches v = MatMul(x, W) (+ b), W a constant [Din, width]
// and b a constant [width] of x's float type, each value read only by
// the next node, so that the projection dies once its reader is
// rewritten.
func (q *oneQuery) projection(v *graph.Value, width int) (x, w, b *graph.Value, ok bool) {
	f := q.f
	if x, w, b, _, ok := f.projection(v, width); ok {
		return x, w, b, isFloat(w)
	}
	mm, ok := f.from(v, "MatMul")
	if !ok {
		return nil, nil, nil, false
	}
	x, w = mm.Input(0), mm.Input(1)
	ws, xs, vs := shape(w), dims(x), dims(v)
	if !w.IsConst() || len(ws) != 2 || ws[1] != width || len(xs) != len(vs) || len(xs) == 0 ||
		!isFixed(xs[len(xs)-1], int64(ws[0])) || !xs[:len(xs)-1].Equal(vs[:len(vs)-1]) || x.DType != w.DType {
		return nil, nil, nil, false
	}
	return x, w, nil, isFloat(w)
}

// isFloat reports whether v is a float32 or float64 constant.
func isFloat(v *graph.Value) bool {
	return v.Const.DType == graph.Float32 || v.Const.DType == graph.Float64
}

// build adds (q.src.add) the nodes computing m's product as above; the
// last of them writes the product's output value.
func (q *oneQuery) build(m queryProduct) error {
	src := q.src
	base := m.mm.Name + "_one_query"
	n, din := m.view.n, shape(m.w)[0]
	hd := shape(m.w)[1] / n
	bt, lt := m.view.batch, m.view.seq
	k := fixedDim(int64(hd)) // the query side's last axis: h for keys, L for values
	if !m.keys {
		k = lt
	}
	a4, err := q.reshaped(m.mm.Input(0), graph.Shape{bt, fixedDim(int64(n)), fixedDim(1), k}, base+"_rows")
	if err != nil {
		return err
	}
	xb, err := q.batchRows(m, base)
	if err != nil {
		return err
	}
	var last []*graph.Value // the inputs of the last product, or of the bias Add
	if m.keys {
		// (q Wk_n^T) [B, N, 1, Din] times X^T [B, 1, Din, L].
		qw, err := src.node("MatMul", base+"_keys", nil, a4, q.constant(base+"_key_weights", headWeights(m.w, n, true)))
		if err != nil {
			return err
		}
		xt, err := src.node("Transpose", base+"_rows_t", graph.Attrs{"perm": graph.IntsAttr(0, 2, 1)}, xb)
		if err != nil {
			return err
		}
		xt4, err := q.reshaped(xt, graph.Shape{bt, fixedDim(1), fixedDim(int64(din)), lt}, base+"_rows_t4")
		if err != nil {
			return err
		}
		last = []*graph.Value{qw, xt4}
		if m.b != nil {
			s, err := src.node("MatMul", base+"_scores", nil, last...)
			if err != nil {
				return err
			}
			// q bk_n: [B, N, 1, h] times [N, h, 1].
			qb, err := src.node("MatMul", base+"_key_bias", nil, a4, q.constant(base+"_key_bias", headBias(m.b, n, true)))
			if err != nil {
				return err
			}
			last = []*graph.Value{s, qb}
		}
	} else {
		// (P X) [B, N, 1, Din] times Wv_n [N, Din, h].
		xb4, err := q.reshaped(xb, graph.Shape{bt, fixedDim(1), lt, fixedDim(int64(din))}, base+"_rows4")
		if err != nil {
			return err
		}
		px, err := src.node("MatMul", base+"_mix", nil, a4, xb4)
		if err != nil {
			return err
		}
		last = []*graph.Value{px, q.constant(base+"_value_weights", headWeights(m.w, n, false))}
		if m.b != nil {
			o, err := src.node("MatMul", base+"_values", nil, last...)
			if err != nil {
				return err
			}
			last = []*graph.Value{o, q.constant(base+"_value_bias", headBias(m.b, n, false))}
		}
	}
	op := "MatMul"
	if m.b != nil {
		op = "Add"
	}
	orig := m.mm.Outputs[0]
	if m.batchFirst {
		// [B, N, 1, .] is the product's own shape.
		return q.into(op, base, orig, last...)
	}
	v, err := src.node(op, base, nil, last...)
	if err != nil {
		return err
	}
	shp, err := src.reshapeTo(v, dims(orig), base+"_shape")
	if err != nil {
		return err
	}
	return q.into("Reshape", base+"_out", orig, v, shp)
}

// into adds op(ins) writing the existing value orig.
func (q *oneQuery) into(op, base string, orig *graph.Value, ins ...*graph.Value) error {
	n := &graph.Node{Name: q.f.unique(base), Op: op, Inputs: ins}
	if err := inferInto(n, orig); err != nil {
		return err
	}
	q.src.add(n)
	return nil
}

// reshaped returns v reshaped to want (v itself when it has that shape).
func (q *oneQuery) reshaped(v *graph.Value, want graph.Shape, base string) (*graph.Value, error) {
	if dims(v).Equal(want) {
		return v, nil
	}
	shp, err := q.src.reshapeTo(v, want, base+"_shape")
	if err != nil {
		return nil, err
	}
	return q.f.shaped(q.src, "Reshape", v, shp, want, base)
}

// batchRows returns the projection's input in batch-first order [B, L,
// Din]: itself, or a Transpose or Reshape of a sequence-first [L, B,
// Din] or [L, Din], made once per input.
func (q *oneQuery) batchRows(m queryProduct, base string) (*graph.Value, error) {
	if r, ok := q.rows[m.x]; ok {
		return r, nil
	}
	xs := dims(m.x)
	din := xs[len(xs)-1]
	want := graph.Shape{m.view.batch, m.view.seq, din}
	var r *graph.Value
	var err error
	switch {
	case m.batchFirst || xs.Equal(want):
		r = m.x
	case len(xs) == 3 && xs[0] == m.view.seq && xs[1] == m.view.batch:
		r, err = q.src.node("Transpose", base+"_batch_rows", graph.Attrs{"perm": graph.IntsAttr(1, 0, 2)}, m.x)
	default:
		r, err = q.reshaped(m.x, want, base+"_batch_rows")
	}
	if err != nil {
		return nil, err
	}
	if !dims(r).Equal(want) {
		return nil, fmt.Errorf("rewrite: one-row query: rows %s, want %s", r.Shape.SymString(), want.SymString())
	}
	q.rows[m.x] = r
	return r, nil
}

// constant returns a new constant value holding t.
func (q *oneQuery) constant(base string, t *graph.Tensor) *graph.Value {
	v := &graph.Value{Name: q.f.unique(base), Const: t}
	v.SetStatic(t.DType, t.Shape)
	return v
}

// headWeights lays out the weights w [Din, N*h] per head: [N, h, Din]
// (each head's columns transposed) for the keys, [N, Din, h] for the
// values. The entries are w's, unchanged.
func headWeights(w *graph.Value, n int, keys bool) *graph.Tensor {
	ws := shape(w)
	din, hd := ws[0], ws[1]/n
	src, _ := w.Const.AsFloat64()
	out := make([]float64, len(src))
	for j := 0; j < din; j++ {
		for c := 0; c < ws[1]; c++ {
			head, i := c/hd, c%hd
			at := (head*din+j)*hd + i // [N, Din, h]
			if keys {
				at = (head*hd+i)*din + j // [N, h, Din]
			}
			out[at] = src[j*ws[1]+c]
		}
	}
	if keys {
		return floatTensor(w.Const.DType, out, n, hd, din)
	}
	return floatTensor(w.Const.DType, out, n, din, hd)
}

// headBias lays out the bias b [N*h] per head: [N, h, 1] for the keys
// (a column the query multiplies), [N, 1, h] for the values.
func headBias(b *graph.Value, n int, keys bool) *graph.Tensor {
	src, _ := b.Const.AsFloat64()
	hd := len(src) / n
	if keys {
		return floatTensor(b.Const.DType, src, n, hd, 1)
	}
	return floatTensor(b.Const.DType, src, n, 1, hd)
}

// floatTensor returns data as a float32 or float64 tensor of dt.
func floatTensor(dt graph.DType, data []float64, shape ...int) *graph.Tensor {
	if dt == graph.Float64 {
		return graph.FromFloat64(data, shape...)
	}
	f := make([]float32, len(data))
	for i, d := range data {
		f[i] = float32(d)
	}
	return graph.FromFloat32(f, shape...)
}
