package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newGatherKernel, "Gather")
}

// gatherKernel is Gather along one axis with run-time indices: for every
// outer position and index it copies one contiguous inner block.
type gatherKernel struct {
	outer, axisLen, inner, nIdx int
}

func newGatherKernel(ni *nodeInfo) (kernel, error) {
	data, idx := ni.in(0), ni.in(1)
	if idx.dt != graph.Int64 && idx.dt != graph.Int32 {
		return nil, fmt.Errorf("indices have dtype %v, want int32 or int64", idx.dt)
	}
	axis, err := graph.NormAxis(ni.node.AttrInt("axis"), len(data.shape))
	if err != nil {
		return nil, err
	}
	k := &gatherKernel{axisLen: data.shape[axis], nIdx: idx.n}
	k.outer, k.inner = aroundAxis(data.shape, axis)
	if want := k.outer * k.nIdx * k.inner; want != ni.out(0).n {
		return nil, fmt.Errorf("output has %d elements, want %d", ni.out(0).n, want)
	}
	return k, nil
}

func (k *gatherKernel) run(rc *runCtx, ins, outs []any) error {
	var idx []int64
	switch s := ins[1].(type) {
	case []int64:
		idx = s
	case []int32:
		idx = scratchView[int64](rc, 0, len(s))
		for i, v := range s {
			idx[i] = int64(v)
		}
	}
	for _, v := range idx {
		if v < -int64(k.axisLen) || v >= int64(k.axisLen) {
			return fmt.Errorf("index %d is out of range for axis of size %d", v, k.axisLen)
		}
	}
	moveWords(k, idx, outs[0], ins[0], gatherRun[uint8], gatherRun[uint16], gatherRun[uint32], gatherRun[uint64])
	return nil
}

func (k *gatherKernel) scratchBytes() int { return 8 * k.nIdx }

func gatherRun[W any](k *gatherKernel, idx []int64, dst, src []W) {
	L := k.inner
	d := 0
	for o := 0; o < k.outer; o++ {
		base := o * k.axisLen * L
		for _, v := range idx {
			if v < 0 {
				v += int64(k.axisLen)
			}
			s := base + int(v)*L
			if L == 1 {
				dst[d] = src[s]
			} else {
				copy(dst[d:d+L], src[s:s+L])
			}
			d += L
		}
	}
}
