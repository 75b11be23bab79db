package executor

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newAttentionKernel, kernelKey(graph.MicrosoftDomain, "Attention"), kernelKey(graph.MicrosoftDomain, "MultiHeadAttention"))
}

// attentionKernel is ONNX Runtime's com.microsoft Attention and
// MultiHeadAttention in the forms graph.AttentionShape and
// graph.MultiHeadAttentionShape accept: Q, K and V from a packed
// projection of the input (Attention) or from query, key and value plus
// their parts of bias (MultiHeadAttention), then attnCore, in float64.
type attentionKernel struct {
	core attnCore
	// packed holds Attention's sizes; nil for MultiHeadAttention.
	packed *graph.AttentionDims
	mha    graph.MultiHeadAttentionDims
	// weights is Attention's projection weight widened to float64 once,
	// when it is a constant (nil: widened at every run).
	weights []float64
}

func newAttentionKernel(ni *nodeInfo) (kernel, error) {
	if !isFloatDT(ni.in(0).dt) {
		return nil, errDType(ni.node.Op, ni.in(0).dt)
	}
	if ni.node.Op == "MultiHeadAttention" {
		d, err := graph.MultiHeadAttentionShape(ni.node)
		if err != nil {
			return nil, err
		}
		core, err := newAttnCore(ni, 4, d.Batch, d.Seq, d.KVSeq, d.Heads, d.Hidden/d.Heads, d.VHidden/d.Heads)
		return &attentionKernel{core: core, mha: d}, err
	}
	d, err := graph.AttentionShape(ni.node)
	if err != nil {
		return nil, err
	}
	core, err := newAttnCore(ni, 3, d.Batch, d.Seq, d.Seq, d.Heads, d.Hidden/d.Heads, d.Hidden/d.Heads)
	k := &attentionKernel{core: core, packed: &d}
	if w := ni.in(1).value; w != nil {
		switch data := w.Data.(type) {
		case []float32:
			k.weights = asFloat64s(data)
		case []float64:
			k.weights = data
		}
	}
	return k, err
}

func (k *attentionKernel) run(rc *runCtx, ins, outs []any) error {
	if k.packed == nil {
		return floatIO(rc, k, ins, outs, multiHeadAttentionRun[float32], multiHeadAttentionRun[float64])
	}
	return floatIO(rc, k, ins, outs, attentionRun[float32], attentionRun[float64])
}

func attentionRun[T floatT](rc *runCtx, k *attentionKernel, ins, outs []any) error {
	d := k.packed
	x, w := ins[0].([]T), ins[1].([]T)
	bias := optFloats[T](ins, 2)
	rows, cols := d.Batch*d.Seq, 3*d.Hidden
	qkv := make([]float64, rows*cols)
	var beta float64
	if bias != nil {
		for r := range rows {
			for c, b := range bias[:cols] {
				qkv[r*cols+c] = float64(b)
			}
		}
		beta = 1
	}
	wf := k.weights
	if wf == nil {
		wf = asFloat64s(w[:d.In*cols])
	}
	gemm(rc.threads, false, false, rows, cols, d.In, 1, asFloat64s(x[:rows*d.In]), d.In, wf, cols, beta, qkv, cols)
	mask := k.core.mask(ids(ins, 3))
	attendAll(rc, &k.core, qkv, cols, qkv[d.Hidden:], cols, qkv[2*d.Hidden:], cols, optFloats[T](ins, 5), mask, outs[0].([]T))
	return nil
}

// attnCore is the part of ONNX Runtime's attention kernels after the
// projections: per batch and head, softmax(scale * Q K^T + attention_bias
// + mask) V over seq queries and total keys, heads of dh (Q, K) and dv (V)
// columns.
type attnCore struct {
	batch, seq, total, heads, dh, dv int
	scale                            float64
	// biasB and biasH are 1 when attention_bias broadcasts over batches
	// or heads (0 strides), else the sizes; 0 without attention_bias.
	biasB, biasH int
	form         graph.MaskForm
	// causal is set for unidirectional attention over more than one
	// query: a key after the query is masked.
	causal bool
	filter float64
}

// newAttnCore reads the attributes shared by Attention and
// MultiHeadAttention, the layout of the int32 mask at input mask and the
// broadcast of attention_bias (input 5 of both ops).
func newAttnCore(ni *nodeInfo, mask, batch, seq, total, heads, dh, dv int) (attnCore, error) {
	n := ni.node
	form, err := graph.MaskIndexForm(n, mask, batch, seq, total, n.Op == "Attention")
	c := attnCore{batch: batch, seq: seq, total: total, heads: heads, dh: dh, dv: dv, form: form,
		scale: float64(n.AttrFloat("scale")), filter: float64(n.AttrFloat("mask_filter_value")),
		causal: n.AttrInt("unidirectional") != 0 && seq > 1}
	if c.scale == 0 {
		c.scale = 1 / math.Sqrt(float64(dh))
	}
	if ab := ni.in(5); ab != nil {
		c.biasB, c.biasH = ab.shape[0], ab.shape[1]
	}
	return c, err
}

// mask returns the additive mask [batch, seq, total] of the int32 mask m
// (nil when absent) and of causality, as ONNX Runtime builds it:
// mask_filter_value where m excludes a key, and float32's lowest value
// (whatever m says) where a key follows the query; nil when nothing is
// masked.
func (c *attnCore) mask(m []int32) []float64 {
	if m == nil && !c.causal {
		return nil
	}
	st := c.seq * c.total
	out := make([]float64, c.batch*st)
	for b := 0; b < c.batch; b++ {
		p := out[b*st : (b+1)*st]
		row := p[:c.total]
		switch c.form {
		case graph.MaskEnd, graph.MaskEndStart:
			for t := max(int(m[b]), 0); t < c.total; t++ {
				row[t] = c.filter
			}
			if c.form == graph.MaskEndStart {
				for t := 0; t < min(int(m[c.batch+b]), c.total); t++ {
					row[t] = c.filter
				}
			}
		case graph.MaskKeys:
			for t, v := range m[b*c.total : (b+1)*c.total] {
				if v <= 0 {
					row[t] = c.filter
				}
			}
		case graph.MaskQueryKeys:
			for i, v := range m[b*st : (b+1)*st] {
				if v <= 0 {
					p[i] = c.filter
				}
			}
		}
		if c.form != graph.MaskQueryKeys {
			for s := 1; s < c.seq; s++ {
				copy(p[s*c.total:(s+1)*c.total], row)
			}
		}
		if c.causal {
			for s := 0; s < c.seq; s++ {
				for t := s + 1; t < c.total; t++ {
					p[s*c.total+t] = -math.MaxFloat32
				}
			}
		}
	}
	return out
}

// attendAll computes every batch and head into y [batch, seq, heads*dv].
// Query row (b, s) of head h starts at q[(b*seq+s)*qs + h*dh], key row
// (b, t) at k[(b*total+t)*ks + h*dh] and value row at v[(b*total+t)*vs +
// h*dv]; ab is attention_bias and mask the additive mask (either nil).
// Each head takes blocks of query rows: the scores of a block are one
// GEMM of its queries by the keys (in float64), then biased, masked and
// exponentiated row by row, and the weighted values another GEMM.
func attendAll[T floatT](rc *runCtx, c *attnCore, q []float64, qs int, k []float64, ks int, v []float64, vs int, ab []T, mask []float64, y []T) {
	st := c.seq * c.total
	rows := attnBlockRows(c.seq, c.total)
	parallelFor(rc.threads, c.batch*c.heads, st*(c.dh+c.dv), func(lo, hi int) {
		p, acc := make([]float64, rows*c.total), make([]float64, rows*c.dv)
		sums := make([]float64, rows)
		for bh := lo; bh < hi; bh++ {
			b, h := bh/c.heads, bh%c.heads
			var bias []T
			if ab != nil {
				off := ((b%c.biasB)*c.biasH + h%c.biasH) * st
				bias = ab[off : off+st]
			}
			var m []float64
			if mask != nil {
				m = mask[b*st : (b+1)*st]
			}
			keys, vals := k[b*c.total*ks+h*c.dh:], v[b*c.total*vs+h*c.dv:]
			for s0 := 0; s0 < c.seq; s0 += rows {
				n := min(rows, c.seq-s0)
				gemm(1, false, true, n, c.total, c.dh, c.scale, q[(b*c.seq+s0)*qs+h*c.dh:], qs, keys, ks, 0, p, c.total)
				for i := range n {
					s := s0 + i
					row := p[i*c.total : (i+1)*c.total]
					top := math.Inf(-1)
					for t := range row {
						dot := row[t]
						if bias != nil {
							dot += float64(bias[s*c.total+t])
						}
						if m != nil {
							dot += m[s*c.total+t]
						}
						row[t] = dot
						top = max(top, dot)
					}
					sum := 0.0
					for t, e := range row {
						row[t] = math.Exp(e - top)
						sum += row[t]
					}
					sums[i] = sum
				}
				gemm(1, false, false, n, c.dv, c.total, 1, p, c.total, vals, vs, 0, acc, c.dv)
				for i := range n {
					out := y[(b*c.seq+s0+i)*c.heads*c.dv+h*c.dv:][:c.dv]
					for j, a := range acc[i*c.dv : (i+1)*c.dv] {
						out[j] = T(a / sums[i])
					}
				}
			}
		}
	})
}

// attnBlockRows is the number of query rows attendAll scores at once: all
// of them, or as many as keep a block's scores within 1 Mi values.
func attnBlockRows(seq, total int) int {
	return max(1, min(seq, (1<<20)/max(total, 1)))
}

// asFloat64s returns x as float64s: x itself when it is []float64, else a
// converted copy.
func asFloat64s[T floatT](x []T) []float64 {
	if f, ok := any(x).([]float64); ok {
		return f
	}
	out := make([]float64, len(x))
	castNum(out, x)
	return out
}
