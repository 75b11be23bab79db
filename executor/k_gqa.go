package executor

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newGroupQueryKernel, kernelKey(graph.MicrosoftDomain, "GroupQueryAttention"))
}

// groupQueryKernel is ONNX Runtime's com.microsoft GroupQueryAttention
// in the form graph.GroupQueryShape accepts (a whole prompt, no cache):
// query and key rotated (rotate-half rotary at positions 0..seq-1),
// every query head attending its key/value head (causally unless causal
// is 0, plus attention_bias), in float64.
type groupQueryKernel struct {
	d    graph.GroupQueryDims
	core attnCore
}

func newGroupQueryKernel(ni *nodeInfo) (kernel, error) {
	if !isFloatDT(ni.in(0).dt) {
		return nil, errDType(ni.node.Op, ni.in(0).dt)
	}
	d, err := graph.GroupQueryShape(ni.node)
	if err != nil {
		return nil, err
	}
	scale := float64(ni.node.AttrFloat("scale"))
	core := attnCore{batch: d.Batch, seq: d.Seq, total: d.Seq, heads: d.Heads, dh: d.HeadSize, dv: d.HeadSize,
		scale: scale, causal: d.Seq > 1 && ni.node.AttrInt("causal") != 0}
	if ab := ni.in(10); ab != nil {
		core.biasB, core.biasH = ab.shape[0], ab.shape[1]
	}
	if core.scale == 0 {
		core.scale = 1 / math.Sqrt(float64(d.HeadSize))
	}
	return &groupQueryKernel{d: d, core: core}, nil
}

func (k *groupQueryKernel) run(rc *runCtx, ins, outs []any) error {
	return floatIO(rc, k, ins, outs, groupQueryRun[float32], groupQueryRun[float64])
}

func groupQueryRun[T floatT](rc *runCtx, k *groupQueryKernel, ins, outs []any) error {
	d := k.d
	seqlens, total := ins[5].([]int32), ins[6].([]int32)
	if int(total[0]) != d.Seq {
		return fmt.Errorf("GroupQueryAttention: total_sequence_length %d, the prompt has %d positions (a cache is not supported)", total[0], d.Seq)
	}
	for b, s := range seqlens[:d.Batch] {
		if int(s) != d.Seq-1 {
			return fmt.Errorf("GroupQueryAttention: seqlens_k[%d] is %d, want %d (the whole prompt)", b, s, d.Seq-1)
		}
	}
	hs, qw, kw := d.HeadSize, d.Heads*d.HeadSize, d.KVHeads*d.HeadSize
	rows := d.Batch * d.Seq
	q, key, val := make([]float64, rows*qw), make([]float64, rows*kw), make([]float64, rows*kw)
	if d.Packed {
		x := ins[0].([]T)
		w := qw + 2*kw
		for r := range rows {
			castNum(q[r*qw:(r+1)*qw], x[r*w:r*w+qw])
			castNum(key[r*kw:(r+1)*kw], x[r*w+qw:r*w+qw+kw])
			castNum(val[r*kw:(r+1)*kw], x[r*w+qw+kw:(r+1)*w])
		}
	} else {
		castNum(q, ins[0].([]T)[:rows*qw])
		castNum(key, ins[1].([]T)[:rows*kw])
		castNum(val, ins[2].([]T)[:rows*kw])
	}
	if d.CacheRows > 0 {
		cos, sin := asFloat64s(ins[7].([]T)), asFloat64s(ins[8].([]T))
		rotateHalf(q, d.Seq, d.Heads, hs, cos, sin)
		rotateHalf(key, d.Seq, d.KVHeads, hs, cos, sin)
	}
	// Each query head reads key/value head h/group: widen K and V to the
	// query's heads and attend as multi-head attention does.
	group := d.Heads / d.KVHeads
	kq, vq := make([]float64, rows*qw), make([]float64, rows*qw)
	for r := range rows {
		for h := range d.Heads {
			src := r*kw + (h/group)*hs
			copy(kq[r*qw+h*hs:r*qw+(h+1)*hs], key[src:src+hs])
			copy(vq[r*qw+h*hs:r*qw+(h+1)*hs], val[src:src+hs])
		}
	}
	attendAll(rc, &k.core, q, qw, kq, qw, vq, qw, optFloats[T](ins, 10), k.core.mask(nil), outs[0].([]T))
	// present_key (rotated) and present_value in [batch, kv heads, seq, h].
	for i, x := range [][]float64{key, val} {
		if i+1 >= len(outs) || outs[i+1] == nil {
			continue
		}
		y := outs[i+1].([]T)
		for b := range d.Batch {
			for s := range d.Seq {
				for h := range d.KVHeads {
					src := (b*d.Seq+s)*kw + h*hs
					dst := ((b*d.KVHeads+h)*d.Seq + s) * hs
					castNum(y[dst:dst+hs], x[src:src+hs])
				}
			}
		}
	}
	return nil
}

// rotateHalf applies the rotate-half rotary embedding in place to x
// [rows, heads*h] whose row r holds position r%seq: with c = h/2, element
// j < c becomes x[j]*cos[p][j] - x[j+c]*sin[p][j] and element j+c becomes
// x[j+c]*cos[p][j] + x[j]*sin[p][j], cos and sin [positions, c].
func rotateHalf(x []float64, seq, heads, h int, cos, sin []float64) {
	c := h / 2
	for r := range len(x) / (heads * h) {
		p := r % seq
		cr, sr := cos[p*c:(p+1)*c], sin[p*c:(p+1)*c]
		for hd := range heads {
			v := x[(r*heads+hd)*h:][:h]
			for j := range c {
				a, b := v[j], v[j+c]
				v[j] = a*cr[j] - b*sr[j]
				v[j+c] = b*cr[j] + a*sr[j]
			}
		}
	}
}
