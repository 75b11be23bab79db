package executor

import "fmt"

// ReverseSequence: for each batch index, the first sequence_lens elements
// along the time axis in reverse order, the rest copied.

func init() {
	registerKernel(newReverseSequenceKernel, "ReverseSequence")
}

// reverseSeqKernel views the input as [d0, d1, inner] with the batch and
// time axes among the first two: element (b, t) starts at
// (b*bStride + t*tStride) * inner.
type reverseSeqKernel struct {
	batch, time, inner int
	bStride, tStride   int
}

func newReverseSequenceKernel(ni *nodeInfo) (kernel, error) {
	s := ni.in(0).shape
	_, inner := aroundAxis(s, 1)
	k := &reverseSeqKernel{batch: s[1], time: s[0], inner: inner, bStride: 1, tStride: s[1]}
	if ni.node.AttrInt("batch_axis") == 0 {
		k.batch, k.time, k.bStride, k.tStride = s[0], s[1], s[1], 1
	}
	return k, nil
}

func (k *reverseSeqKernel) run(rc *runCtx, ins, outs []any) error {
	for b, l := range ins[1].([]int64) {
		if l < 0 || l > int64(k.time) {
			return fmt.Errorf("sequence_lens[%d] = %d outside [0, %d]", b, l, k.time)
		}
	}
	moveWords(k, ins[1].([]int64), outs[0], ins[0], reverseSeqRun[uint8], reverseSeqRun[uint16], reverseSeqRun[uint32], reverseSeqRun[uint64])
	return nil
}

func reverseSeqRun[W any](k *reverseSeqKernel, lens []int64, y, x []W) {
	for b := range k.batch {
		l := int(lens[b])
		for t := range k.time {
			src := t
			if t < l {
				src = l - 1 - t
			}
			d := (b*k.bStride + t*k.tStride) * k.inner
			o := (b*k.bStride + src*k.tStride) * k.inner
			copy(y[d:d+k.inner], x[o:o+k.inner])
		}
	}
}
