package executor

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newAttentionKernel, kernelKey(graph.MicrosoftDomain, "Attention"))
}

// attentionKernel is ONNX Runtime's com.microsoft Attention in the form
// graph.AttentionShape accepts: a packed QKV projection, then per batch
// and head softmax(scale * Q K^T + attention_bias) V, accumulated in
// float64.
type attentionKernel struct {
	d     graph.AttentionDims
	scale float64
	// biasB and biasH are 1 when attention_bias broadcasts over batches
	// or heads (0 strides), else the sizes.
	biasB, biasH int
}

func newAttentionKernel(ni *nodeInfo) (kernel, error) {
	if !isFloatDT(ni.in(0).dt) {
		return nil, errDType("Attention", ni.in(0).dt)
	}
	d, err := graph.AttentionShape(ni.node)
	if err != nil {
		return nil, err
	}
	k := &attentionKernel{d: d, scale: float64(ni.node.AttrFloat("scale"))}
	if k.scale == 0 {
		k.scale = 1 / math.Sqrt(float64(d.Hidden/d.Heads))
	}
	if ab := ni.in(5); ab != nil {
		k.biasB, k.biasH = ab.shape[0], ab.shape[1]
	}
	return k, nil
}

func (k *attentionKernel) run(rc *runCtx, ins, outs []any) error {
	return floatIO(rc, k, ins, outs, attentionRun[float32], attentionRun[float64])
}

func attentionRun[T floatT](rc *runCtx, k *attentionKernel, ins, outs []any) error {
	d := k.d
	x, w := ins[0].([]T), ins[1].([]T)
	var bias, ab []T
	if v := optIn(ins, 2); v != nil {
		bias = v.([]T)
	}
	if v := optIn(ins, 5); v != nil {
		ab = v.([]T)
	}
	y := outs[0].([]T)
	rows, cols := d.Batch*d.Seq, 3*d.Hidden
	qkv := make([]float64, rows*cols)
	parallelFor(rc.threads, rows, cols*d.In, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			out := qkv[r*cols : (r+1)*cols]
			for c := range out {
				s := 0.0
				if bias != nil {
					s = float64(bias[c])
				}
				out[c] = s
			}
			for i, xv := range x[r*d.In : (r+1)*d.In] {
				xf := float64(xv)
				for c, wv := range w[i*cols : (i+1)*cols] {
					out[c] += xf * float64(wv)
				}
			}
		}
	})
	dh := d.Hidden / d.Heads
	parallelFor(rc.threads, d.Batch*d.Heads, d.Seq*d.Seq*dh, func(lo, hi int) {
		p := make([]float64, d.Seq)
		for bh := lo; bh < hi; bh++ {
			b, h := bh/d.Heads, bh%d.Heads
			var bias []T
			if ab != nil {
				off := ((b%k.biasB)*k.biasH + h%k.biasH) * d.Seq * d.Seq
				bias = ab[off : off+d.Seq*d.Seq]
			}
			attentionHead(k, qkv[b*d.Seq*cols:], y[b*d.Seq*d.Hidden:], bias, p, h*dh, dh)
		}
	})
	return nil
}

// attentionHead computes one head of one batch: qkv holds the batch's
// [seq, 3*hidden] projections, the head's columns start at off in each of
// Q, K and V; the result goes to columns [off, off+dh) of y's rows.
func attentionHead[T floatT](k *attentionKernel, qkv []float64, y, bias []T, p []float64, off, dh int) {
	d := k.d
	cols := 3 * d.Hidden
	for i := 0; i < d.Seq; i++ {
		q := qkv[i*cols+off : i*cols+off+dh]
		top := math.Inf(-1)
		for j := range p {
			kr := qkv[j*cols+d.Hidden+off : j*cols+d.Hidden+off+dh]
			s := 0.0
			for t, qv := range q {
				s += qv * kr[t]
			}
			s *= k.scale
			if bias != nil {
				s += float64(bias[i*d.Seq+j])
			}
			p[j] = s
			top = max(top, s)
		}
		sum := 0.0
		for j, s := range p {
			p[j] = math.Exp(s - top)
			sum += p[j]
		}
		out := y[i*d.Hidden+off : i*d.Hidden+off+dh]
		for t := range out {
			acc := 0.0
			for j, pj := range p {
				acc += pj * qkv[j*cols+2*d.Hidden+off+t]
			}
			out[t] = T(acc / sum)
		}
	}
}
