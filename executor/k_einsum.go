package executor

import (
	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newEinsumKernel, "Einsum")
}

// einsumKernel evaluates an Einsum equation by iterating, for every output
// element, over the summed labels: each label has a stride per operand
// (the sum of the strides of the axes carrying it, so repeated labels walk
// diagonals).
type einsumKernel struct {
	outDims, sumDims []int
	outStr, sumStr   [][]int // [label][operand] strides
	nSum             int
}

func newEinsumKernel(ni *nodeInfo) (kernel, error) {
	out := ni.out(0)
	if !isNumericDT(out.dt) {
		return nil, errDType("Einsum", out.dt)
	}
	ranks := make([]int, len(ni.ins))
	shapes := make([][]int, len(ni.ins))
	for i, in := range ni.ins {
		ranks[i], shapes[i] = len(in.shape), in.shape
	}
	spec, err := graph.ParseEinsum(ni.node.AttrString("equation"), ranks)
	if err != nil {
		return nil, err
	}
	size, err := spec.Sizes(shapes)
	if err != nil {
		return nil, err
	}
	strideOf := func(l int) []int {
		st := make([]int, len(ni.ins))
		for k, labels := range spec.Inputs {
			cs := contiguousStrides(shapes[k])
			for i, m := range labels {
				if m == l && shapes[k][i] != 1 {
					st[k] += cs[i]
				}
			}
		}
		return st
	}
	k := &einsumKernel{nSum: 1}
	inOut := map[int]bool{}
	for _, l := range spec.Output {
		inOut[l] = true
		k.outDims = append(k.outDims, size[l])
		k.outStr = append(k.outStr, strideOf(l))
	}
	seen := map[int]bool{}
	for _, labels := range spec.Inputs {
		for _, l := range labels {
			if inOut[l] || seen[l] {
				continue
			}
			seen[l] = true
			k.sumDims = append(k.sumDims, size[l])
			k.sumStr = append(k.sumStr, strideOf(l))
			k.nSum *= size[l]
		}
	}
	return k, nil
}

func (k *einsumKernel) run(rc *runCtx, ins, outs []any) error {
	switch y := outs[0].(type) {
	case []float32:
		einsumRun(rc, k, y, typedIns[float32](ins))
	case []float64:
		einsumRun(rc, k, y, typedIns[float64](ins))
	case []int64:
		einsumRun(rc, k, y, typedIns[int64](ins))
	case []int32:
		einsumRun(rc, k, y, typedIns[int32](ins))
	default:
		return errDType("Einsum", dtOfData(outs[0]))
	}
	return nil
}

func typedIns[T any](ins []any) [][]T {
	out := make([][]T, len(ins))
	for i, d := range ins {
		out[i] = d.([]T)
	}
	return out
}

// offsets returns the per-operand offsets of multi-index number n over
// dims with per-label operand strides str.
func offsets(n int, dims []int, str [][]int, offs []int) {
	for k := range offs {
		offs[k] = 0
	}
	for i := len(dims) - 1; i >= 0; i-- {
		c := n % dims[i]
		n /= dims[i]
		for k := range offs {
			offs[k] += c * str[i][k]
		}
	}
}

func einsumRun[T numT](rc *runCtx, k *einsumKernel, y []T, xs [][]T) {
	parallelFor(rc.threads, len(y), k.nSum*len(xs), func(lo, hi int) {
		base := make([]int, len(xs))
		add := make([]int, len(xs))
		for o := lo; o < hi; o++ {
			offsets(o, k.outDims, k.outStr, base)
			var acc float64
			var iacc T
			for s := 0; s < k.nSum; s++ {
				offsets(s, k.sumDims, k.sumStr, add)
				p := T(1)
				for i, x := range xs {
					p *= x[base[i]+add[i]]
				}
				if graph.IsIntegral[T]() {
					iacc += p
				} else {
					acc += float64(p)
				}
			}
			if graph.IsIntegral[T]() {
				y[o] = iacc
			} else {
				y[o] = T(acc)
			}
		}
	})
}
