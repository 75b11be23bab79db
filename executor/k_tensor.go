package executor

import (
	"fmt"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newConcatKernel, "Concat")
	registerKernel(newSplitKernel, "Split")
	registerKernel(newSliceKernel, "Slice")
	registerKernel(newTransposeKernel, "Transpose")
	registerKernel(newExpandKernel, "Expand")
}

// plansKernel runs one copy plan per (input, output) pair.
type plansKernel struct {
	plans []*copyPlan
	src   []int // input index of each plan
	dst   []int // output index of each plan
}

func (k *plansKernel) run(rc *runCtx, ins, outs []any) error {
	for i, p := range k.plans {
		p.run(rc, outs[k.dst[i]], ins[k.src[i]])
	}
	return nil
}

func newConcatKernel(ni *nodeInfo) (kernel, error) { return newPiecesKernel(ni, true) }

func newSplitKernel(ni *nodeInfo) (kernel, error) { return newPiecesKernel(ni, false) }

// newPiecesKernel copies between a whole tensor and the pieces it is cut
// into along the "axis" attribute: the pieces (inputs) into the whole
// (output 0) for Concat, the whole (input 0) into the pieces (outputs) for
// Split.
func newPiecesKernel(ni *nodeInfo, concat bool) (kernel, error) {
	whole, pieces, side, other := ni.in(0), ni.outs, "output", "input"
	if concat {
		whole, pieces, side, other = ni.out(0), ni.ins, "input", "output"
	}
	axis, err := graph.NormAxis(ni.node.AttrInt("axis"), len(whole.shape))
	if err != nil {
		return nil, err
	}
	wstr := contiguousStrides(whole.shape)
	k := &plansKernel{}
	off := 0
	for i, p := range pieces {
		switch {
		case p == nil:
			return nil, fmt.Errorf("%s %d is omitted", side, i)
		case p.dt != whole.dt:
			return nil, fmt.Errorf("%s %d has dtype %v, want %v", side, i, p.dt, whole.dt)
		case len(p.shape) != len(whole.shape):
			return nil, fmt.Errorf("%s %d has rank %d, want %d", side, i, len(p.shape), len(whole.shape))
		}
		pstr := contiguousStrides(p.shape)
		if concat {
			k.plans = append(k.plans, newCopyPlan(p.shape, wstr, pstr, off*wstr[axis], 0))
			k.src, k.dst = append(k.src, i), append(k.dst, 0)
		} else {
			k.plans = append(k.plans, newCopyPlan(p.shape, pstr, wstr, 0, off*wstr[axis]))
			k.src, k.dst = append(k.src, 0), append(k.dst, i)
		}
		off += p.shape[axis]
	}
	if off != whole.shape[axis] {
		return nil, fmt.Errorf("%ss add up to %d along axis %d, %s has %d", side, off, axis, other, whole.shape[axis])
	}
	return k, nil
}

// constIntInputs returns the constant integer inputs first to last of ni
// (nil when omitted) and whether each is present.
func constIntInputs(ni *nodeInfo, first, last int) (vals [][]int64, has []bool, err error) {
	for i := first; i <= last; i++ {
		v, ok, err := ni.constInts(i)
		if err != nil {
			return nil, nil, err
		}
		vals, has = append(vals, v), append(has, ok)
	}
	return vals, has, nil
}

func newSliceKernel(ni *nodeInfo) (kernel, error) {
	in, out := ni.in(0), ni.out(0)
	r := len(in.shape)
	args, has, err := constIntInputs(ni, 1, 4)
	if err != nil {
		return nil, err
	}
	starts, ends, axes, steps := args[0], args[1], args[2], args[3]
	hasAxes, hasSteps := has[2], has[3]
	if len(starts) != len(ends) || (hasAxes && len(axes) != len(starts)) || (hasSteps && len(steps) != len(starts)) {
		return nil, fmt.Errorf("starts, ends, axes and steps have different lengths")
	}
	begin := make([]int, r)
	step := make([]int, r)
	size := slices.Clone(in.shape)
	for i := range step {
		step[i] = 1
	}
	for i := range starts {
		a := i
		if hasAxes {
			if a, err = graph.NormAxis(axes[i], r); err != nil {
				return nil, err
			}
		}
		s := int64(1)
		if hasSteps {
			s = steps[i]
		}
		if s == 0 {
			return nil, fmt.Errorf("step on axis %d is 0", a)
		}
		b, n := sliceRange(starts[i], ends[i], s, int64(in.shape[a]))
		begin[a], step[a], size[a] = int(b), int(s), int(n)
	}
	if !slices.Equal(size, out.shape) {
		return nil, fmt.Errorf("slice selects %s but the output shape is %s", graph.ShapeString(size), graph.ShapeString(out.shape))
	}
	istr := contiguousStrides(in.shape)
	sstr := make([]int, r)
	off := 0
	for a := 0; a < r; a++ {
		sstr[a] = istr[a] * step[a]
		off += begin[a] * istr[a]
	}
	return &plansKernel{plans: []*copyPlan{newCopyPlan(size, contiguousStrides(size), sstr, 0, off)}, src: []int{0}, dst: []int{0}}, nil
}

// sliceRange clamps start and end like numpy and returns the first index
// and the number of elements selected with step.
func sliceRange(start, end, step, dim int64) (int64, int64) {
	if start < 0 {
		start += dim
	}
	if end < 0 {
		end += dim
	}
	if step > 0 {
		start = min(max(start, 0), dim)
		end = min(max(end, 0), dim)
		if end <= start {
			return 0, 0
		}
		return start, (end - start + step - 1) / step
	}
	start = min(max(start, -1), dim-1)
	end = min(max(end, -1), dim-1)
	if start <= end {
		return 0, 0
	}
	return start, (start - end - step - 1) / -step
}

func newTransposeKernel(ni *nodeInfo) (kernel, error) {
	in, out := ni.in(0), ni.out(0)
	r := len(in.shape)
	perm := ni.node.AttrInts("perm")
	if perm == nil {
		perm = make([]int64, r)
		for i := range perm {
			perm[i] = int64(r - 1 - i)
		}
	}
	if len(perm) != r {
		return nil, fmt.Errorf("perm %v has %d entries for rank %d", perm, len(perm), r)
	}
	istr := contiguousStrides(in.shape)
	sstr := make([]int, r)
	dims := make([]int, r)
	seen := make([]bool, r)
	for i, p := range perm {
		if p < 0 || int(p) >= r || seen[p] {
			return nil, fmt.Errorf("perm %v is not a permutation", perm)
		}
		seen[p] = true
		sstr[i] = istr[p]
		dims[i] = in.shape[p]
	}
	if !slices.Equal(dims, out.shape) {
		return nil, fmt.Errorf("permuted shape %s differs from output shape %s", graph.ShapeString(dims), graph.ShapeString(out.shape))
	}
	return &plansKernel{plans: []*copyPlan{newCopyPlan(dims, contiguousStrides(dims), sstr, 0, 0)}, src: []int{0}, dst: []int{0}}, nil
}

func newExpandKernel(ni *nodeInfo) (kernel, error) {
	in, out := ni.in(0), ni.out(0)
	r := len(out.shape)
	if len(in.shape) > r {
		return nil, fmt.Errorf("input rank %d exceeds output rank %d", len(in.shape), r)
	}
	istr := contiguousStrides(in.shape)
	sstr := make([]int, r)
	for i := range sstr {
		j := i - (r - len(in.shape))
		if j < 0 || in.shape[j] == 1 {
			continue
		}
		if in.shape[j] != out.shape[i] {
			return nil, fmt.Errorf("input shape %s does not broadcast to %s", graph.ShapeString(in.shape), graph.ShapeString(out.shape))
		}
		sstr[i] = istr[j]
	}
	return &plansKernel{plans: []*copyPlan{newCopyPlan(out.shape, contiguousStrides(out.shape), sstr, 0, 0)}, src: []int{0}, dst: []int{0}}, nil
}
