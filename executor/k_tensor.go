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

func newConcatKernel(ni *nodeInfo) (kernel, error) {
	out := ni.out(0)
	axis, err := graph.NormAxis(ni.node.AttrInt("axis"), len(out.shape))
	if err != nil {
		return nil, err
	}
	ostr := contiguousStrides(out.shape)
	k := &plansKernel{}
	off := 0
	for i, in := range ni.ins {
		if in == nil || in.dt != out.dt {
			return nil, fmt.Errorf("input %d has dtype %v, want %v", i, dtOf(in), out.dt)
		}
		if len(in.shape) != len(out.shape) {
			return nil, fmt.Errorf("input %d has rank %d, want %d", i, len(in.shape), len(out.shape))
		}
		k.plans = append(k.plans, newCopyPlan(in.shape, ostr, contiguousStrides(in.shape), off*ostr[axis], 0))
		k.src = append(k.src, i)
		k.dst = append(k.dst, 0)
		off += in.shape[axis]
	}
	if off != out.shape[axis] {
		return nil, fmt.Errorf("inputs add up to %d along axis %d, output has %d", off, axis, out.shape[axis])
	}
	return k, nil
}

func newSplitKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	axis, err := graph.NormAxis(ni.node.AttrInt("axis"), len(in.shape))
	if err != nil {
		return nil, err
	}
	istr := contiguousStrides(in.shape)
	k := &plansKernel{}
	off := 0
	for j, o := range ni.outs {
		if o == nil {
			return nil, fmt.Errorf("output %d is omitted", j)
		}
		k.plans = append(k.plans, newCopyPlan(o.shape, contiguousStrides(o.shape), istr, 0, off*istr[axis]))
		k.src = append(k.src, 0)
		k.dst = append(k.dst, j)
		off += o.shape[axis]
	}
	if off != in.shape[axis] {
		return nil, fmt.Errorf("outputs add up to %d along axis %d, input has %d", off, axis, in.shape[axis])
	}
	return k, nil
}

func newSliceKernel(ni *nodeInfo) (kernel, error) {
	in, out := ni.in(0), ni.out(0)
	r := len(in.shape)
	starts, _, err := ni.constInts(1)
	if err != nil {
		return nil, err
	}
	ends, _, err := ni.constInts(2)
	if err != nil {
		return nil, err
	}
	axes, hasAxes, err := ni.constInts(3)
	if err != nil {
		return nil, err
	}
	steps, hasSteps, err := ni.constInts(4)
	if err != nil {
		return nil, err
	}
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
