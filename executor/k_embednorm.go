package executor

import (
	"fmt"
	"sync/atomic"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newEmbedNormKernel, kernelKey(graph.MicrosoftDomain, "EmbedLayerNormalization"))
}

// embedNormKernel is com.microsoft EmbedLayerNormalization: per token the
// sum of its word, position and segment embedding rows, layer-normalised
// over the hidden axis in float64, and per batch row the count of mask
// elements equal to 1.
type embedNormKernel struct {
	batch, seq, hidden int
	words, positions   int
	segments           int
	// posBroadcast is set when position_ids is [1, seq].
	posBroadcast bool
	eps          float64
}

func newEmbedNormKernel(ni *nodeInfo) (kernel, error) {
	if !isFloatDT(ni.in(2).dt) {
		return nil, errDType("EmbedLayerNormalization", ni.in(2).dt)
	}
	b, s, h, err := graph.EmbedNormShape(ni.node)
	if err != nil {
		return nil, err
	}
	k := &embedNormKernel{batch: b, seq: s, hidden: h, words: ni.in(2).shape[0], positions: ni.in(3).shape[0],
		eps: float64(ni.node.AttrFloat("epsilon"))}
	if seg := ni.in(4); seg != nil {
		k.segments = seg.shape[0]
	}
	if p := ni.in(8); p != nil {
		k.posBroadcast = p.shape[0] == 1 && b != 1
	}
	return k, nil
}

func (k *embedNormKernel) run(rc *runCtx, ins, outs []any) error {
	if len(outs) > 1 && outs[1] != nil {
		k.maskIndex(ins, outs[1].([]int32))
	}
	if _, ok := ins[2].([]float32); ok {
		return embedNormRun[float32](rc, k, ins, outs)
	}
	return embedNormRun[float64](rc, k, ins, outs)
}

// maskIndex writes each batch row's count of mask elements equal to 1 (0
// without a mask).
func (k *embedNormKernel) maskIndex(ins []any, out []int32) {
	clear(out)
	v := optIn(ins, 7)
	if v == nil {
		return
	}
	mask := v.([]int32)
	for b := range out {
		for _, m := range mask[b*k.seq : (b+1)*k.seq] {
			if m == 1 {
				out[b]++
			}
		}
	}
}

// ids returns int32 input i, nil when absent.
func ids(ins []any, i int) []int32 {
	if v := optIn(ins, i); v != nil {
		return v.([]int32)
	}
	return nil
}

func embedNormRun[T floatT](rc *runCtx, k *embedNormKernel, ins, outs []any) error {
	words, segs, pos := ids(ins, 0), ids(ins, 1), ids(ins, 8)
	wordE, posE, segE := ins[2].([]T), ins[3].([]T), optFloats[T](ins, 4)
	gamma, beta := ins[5].([]T), ins[6].([]T)
	y := outs[0].([]T)
	var sum []T
	if len(outs) > 2 && outs[2] != nil {
		sum = outs[2].([]T)
	}
	h := k.hidden
	var bad atomic.Value
	parallelFor(rc.threads, k.batch*k.seq, 6*h, func(lo, hi int) {
		s := make([]float64, h)
		for t := lo; t < hi; t++ {
			w, p, g := int(words[t]), t%k.seq, 0
			switch {
			case k.posBroadcast:
				p = int(pos[t%k.seq])
			case pos != nil:
				p = int(pos[t])
			}
			if segs != nil {
				g = int(segs[t])
			}
			if w < 0 || w >= k.words || p < 0 || p >= k.positions || (segE != nil && (g < 0 || g >= k.segments)) {
				bad.Store(fmt.Errorf("token %d: word %d, position %d or segment %d outside the embedding tables (%d, %d, %d rows)",
					t, w, p, g, k.words, k.positions, k.segments))
				return
			}
			for i := range s {
				v := float64(wordE[w*h+i]) + float64(posE[p*h+i])
				if segE != nil {
					v += float64(segE[g*h+i])
				}
				s[i] = v
			}
			if sum != nil {
				for i, v := range s {
					sum[t*h+i] = T(v)
				}
			}
			normRow(y[t*h:(t+1)*h], s, gamma, beta, k.eps, false)
		}
	})
	if err, ok := bad.Load().(error); ok {
		return err
	}
	return nil
}
