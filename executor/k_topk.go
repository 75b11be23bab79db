package executor

import (
	"fmt"
	"sort"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newTopKKernel, "TopK")
	registerKernel(newOneHotKernel, "OneHot")
}

// topKKernel selects along one axis viewed as [outer, n, inner].
type topKKernel struct {
	outer, n, inner, k int
	largest            bool
	fn                 func(rc *runCtx, k *topKKernel, vals any, idx []int64, x any)
}

var topKRuns = numFns[func(rc *runCtx, k *topKKernel, vals any, idx []int64, x any)]{
	topKRun[float32], topKRun[float64], topKRun[int64], topKRun[int32], topKRun[int16],
	topKRun[int8], topKRun[uint64], topKRun[uint32], topKRun[uint16], topKRun[uint8],
}

func newTopKKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	fn, err := topKRuns.forDT("TopK", in.dt)
	if err != nil {
		return nil, err
	}
	ax, err := graph.NormAxis(ni.node.AttrInt("axis"), len(in.shape))
	if err != nil {
		return nil, err
	}
	k := &topKKernel{n: in.shape[ax], k: ni.out(0).shape[ax],
		largest: ni.node.AttrInt("largest") != 0, fn: fn}
	k.outer, k.inner = aroundAxis(in.shape, ax)
	return k, nil
}

func (k *topKKernel) run(rc *runCtx, ins, outs []any) error {
	idx := outs[1]
	if idx == nil {
		idx = make([]int64, k.outer*k.k*k.inner)
	}
	k.fn(rc, k, outs[0], idx.([]int64), ins[0])
	return nil
}

func topKRun[T numT](rc *runCtx, k *topKKernel, valsd any, idx []int64, xd any) {
	vals, x := valsd.([]T), xd.([]T)
	parallelFor(rc.threads, k.outer*k.inner, k.n*8, func(lo, hi int) {
		order := make([]int, k.n)
		for l := lo; l < hi; l++ {
			o, in := l/k.inner, l%k.inner
			base := o*k.n*k.inner + in
			for i := range order {
				order[i] = i
			}
			at := func(i int) T { return x[base+order[i]*k.inner] }
			sort.SliceStable(order, func(i, j int) bool {
				if k.largest {
					return at(i) > at(j)
				}
				return at(i) < at(j)
			})
			ob := o*k.k*k.inner + in
			for j := 0; j < k.k; j++ {
				vals[ob+j*k.inner] = x[base+order[j]*k.inner]
				idx[ob+j*k.inner] = int64(order[j])
			}
		}
	})
}

// oneHotKernel writes values[1] where the new axis equals the index.
type oneHotKernel struct {
	outer, depth, inner int
}

func newOneHotKernel(ni *nodeInfo) (kernel, error) {
	idx, out := ni.in(0), ni.out(0)
	ax, err := graph.NormAxis(ni.node.AttrInt("axis"), len(out.shape))
	if err != nil {
		return nil, err
	}
	if !isNumericDT(idx.dt) || out.dt != ni.in(2).dt {
		return nil, fmt.Errorf("indices %v and values %v: want numeric indices and values of the output dtype", idx.dt, ni.in(2).dt)
	}
	k := &oneHotKernel{depth: out.shape[ax]}
	k.outer, k.inner = aroundAxis(out.shape, ax)
	return k, nil
}

func (k *oneHotKernel) run(rc *runCtx, ins, outs []any) error {
	idx := toInt64Data(ins[0])
	moveWords(k, idx, outs[0], ins[2], oneHotRun[uint8], oneHotRun[uint16], oneHotRun[uint32], oneHotRun[uint64])
	return nil
}

func oneHotRun[W any](k *oneHotKernel, idx []int64, y, vals []W) {
	off, on := vals[0], vals[1]
	for i := range y {
		y[i] = off
	}
	for p, v := range idx {
		if v < 0 {
			v += int64(k.depth)
		}
		if v < 0 || v >= int64(k.depth) {
			continue // out-of-range indices give an all-off row
		}
		o, in := p/k.inner, p%k.inner
		y[(o*k.depth+int(v))*k.inner+in] = on
	}
}

// toInt64Data converts numeric data to int64 (floats truncate).
func toInt64Data(d any) []int64 {
	out := make([]int64, graph.DataLen(d))
	if f, err := toInt64s.forDT("toInt64Data", dtOfData(d)); err == nil {
		f(out, d)
	}
	return out
}

var toInt64s = numFns[func(out []int64, d any)]{
	convertTo[float32], convertTo[float64], convertTo[int64], convertTo[int32], convertTo[int16],
	convertTo[int8], convertTo[uint64], convertTo[uint32], convertTo[uint16], convertTo[uint8],
}

func convertTo[T numT](out []int64, d any) {
	s := d.([]T)
	for i, v := range s {
		out[i] = int64(v)
	}
}
