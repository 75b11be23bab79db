package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// Operators whose output is fixed at compile time (ConstantOfShape, Range,
// Size, EyeLike, the window functions) and layout operators: Trilu, Tile, CumSum, DepthToSpace
// and SpaceToDepth.

func init() {
	registerKernel(newConstantOfShapeKernel, "ConstantOfShape")
	registerKernel(newRangeKernel, "Range")
	registerKernel(newSizeKernel, "Size")
	registerKernel(newEyeLikeKernel, "EyeLike")
	registerKernel(newTriluKernel, "Trilu")
	registerKernel(newTileKernel, "Tile")
	registerKernel(newCumSumKernel, "CumSum")
	registerKernel(newSpaceDepthKernel, "DepthToSpace", "SpaceToDepth")
	registerKernel(newWindowKernel, "HannWindow", "HammingWindow", "BlackmanWindow")
}

// constOut returns a kernel writing the float64 values v to the output in
// its execution dtype.
func constOut(ni *nodeInfo, v []float64) (kernel, error) {
	out := ni.out(0)
	if !SupportsDType(out.dt) {
		return nil, errDType(ni.node.Op, out.dt)
	}
	t := &graph.Tensor{DType: graph.Float64, Shape: out.shape, Data: v}
	return constKernel{data: toExec(t, out.dt).Data}, nil
}

func newConstantOfShapeKernel(ni *nodeInfo) (kernel, error) {
	out := ni.out(0)
	fill := ni.node.AttrTensor("value")
	if fill == nil {
		fill = graph.FromFloat32([]float32{0}, 1)
	}
	if err := checkTensorData(fill); err != nil || fill.Len() != 1 {
		return nil, fmt.Errorf("attribute value must hold one supported element: %v", fill)
	}
	return constKernel{data: repeatData(toExec(fill, out.dt).Data, out.n)}, nil
}

// repeatData returns n copies of the single element of one.
func repeatData(one any, n int) any { return mustKind("repeatData", dtOfData(one)).fill(one, n) }

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func newRangeKernel(ni *nodeInfo) (kernel, error) {
	var v [3]float64
	for i := range v {
		f, _, err := ni.constFloats(i)
		if err != nil {
			return nil, err
		}
		if len(f) != 1 {
			return nil, fmt.Errorf("%s must be a scalar", ni.inputName(i))
		}
		v[i] = f[0]
	}
	out := ni.out(0)
	vals := make([]float64, out.n)
	for i := range vals {
		vals[i] = v[0] + float64(i)*v[2]
	}
	return constOut(ni, vals)
}

func newWindowKernel(ni *nodeInfo) (kernel, error) {
	v, _, err := ni.constInts(0)
	if err != nil {
		return nil, err
	}
	if len(v) != 1 || int(v[0]) != ni.out(0).n {
		return nil, fmt.Errorf("size %v does not match output shape %s", v, graph.ShapeString(ni.out(0).shape))
	}
	return constOut(ni, graph.WindowValues(ni.node.Op, v[0], ni.node.AttrInt("periodic") != 0))
}

func newSizeKernel(ni *nodeInfo) (kernel, error) {
	return constOut(ni, []float64{float64(ni.in(0).n)})
}

func newEyeLikeKernel(ni *nodeInfo) (kernel, error) {
	out := ni.out(0)
	rows, cols := out.shape[0], out.shape[1]
	k := int(ni.node.AttrInt("k"))
	vals := make([]float64, out.n)
	for i := 0; i < rows; i++ {
		if j := i + k; j >= 0 && j < cols {
			vals[i*cols+j] = 1
		}
	}
	return constOut(ni, vals)
}

// triluKernel zeroes one triangle of each trailing [rows, cols] matrix.
type triluKernel struct {
	rows, cols, k int
	upper         bool
}

func newTriluKernel(ni *nodeInfo) (kernel, error) {
	s := ni.in(0).shape
	k := &triluKernel{rows: s[len(s)-2], cols: s[len(s)-1], upper: ni.node.AttrInt("upper") != 0}
	if v, ok, err := ni.constInts(1); err != nil {
		return nil, err
	} else if ok && len(v) == 1 {
		k.k = int(max(min(v[0], 1<<40), -1<<40))
	}
	return k, nil
}

func (k *triluKernel) inPlace() []int { return []int{0} }

func (k *triluKernel) run(rc *runCtx, ins, outs []any) error {
	moveWords(rc, k, outs[0], ins[0], triluRun[uint8], triluRun[uint16], triluRun[uint32], triluRun[uint64])
	return nil
}

func triluRun[W any](_ *runCtx, k *triluKernel, y, x []W) {
	var zero W
	m := k.rows * k.cols
	for base := 0; base < len(x); base += m {
		for i := 0; i < k.rows; i++ {
			for j := 0; j < k.cols; j++ {
				p := base + i*k.cols + j
				keep := j-i <= k.k // lower triangle
				if k.upper {
					keep = j-i >= k.k
				}
				if keep {
					y[p] = x[p]
				} else {
					y[p] = zero
				}
			}
		}
	}
}

// newTileKernel copies the input once per tile with a copy plan whose
// destination offset selects the tile.
func newTileKernel(ni *nodeInfo) (kernel, error) {
	in, out := ni.in(0), ni.out(0)
	if in.dt != out.dt {
		return nil, fmt.Errorf("input has dtype %v, output %v", in.dt, out.dt)
	}
	r := len(in.shape)
	ostr := contiguousStrides(out.shape)
	istr := contiguousStrides(in.shape)
	reps := make([]int, r)
	tiles := 1
	for i := range reps {
		if in.shape[i] == 0 {
			return &plansKernel{}, nil
		}
		reps[i] = out.shape[i] / in.shape[i]
		tiles *= reps[i]
	}
	k := &plansKernel{}
	coord := make([]int, r)
	for t := 0; t < tiles; t++ {
		off := 0
		for i, c := range coord {
			off += c * in.shape[i] * ostr[i]
		}
		k.plans = append(k.plans, newCopyPlan(in.shape, ostr, istr, off, 0))
		k.src, k.dst = append(k.src, 0), append(k.dst, 0)
		for i := r - 1; i >= 0; i-- {
			coord[i]++
			if coord[i] < reps[i] {
				break
			}
			coord[i] = 0
		}
	}
	return k, nil
}

// cumSumKernel runs along one axis viewed as [outer, n, inner].
type cumSumKernel struct {
	outer, n, inner    int
	exclusive, reverse bool
	fn                 func(k *cumSumKernel, y, x any)
}

func newCumSumKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	fn, err := cumSumRuns.forDT("CumSum", in.dt)
	if err != nil {
		return nil, err
	}
	a, _, err := ni.constInts(1)
	if err != nil {
		return nil, err
	}
	if len(a) != 1 {
		return nil, fmt.Errorf("axis must be one value, got %v", a)
	}
	ax, err := graph.NormAxis(a[0], len(in.shape))
	if err != nil {
		return nil, err
	}
	k := &cumSumKernel{n: in.shape[ax], fn: fn,
		exclusive: ni.node.AttrInt("exclusive") != 0, reverse: ni.node.AttrInt("reverse") != 0}
	k.outer, k.inner = aroundAxis(in.shape, ax)
	return k, nil
}

func (k *cumSumKernel) run(rc *runCtx, ins, outs []any) error {
	k.fn(k, outs[0], ins[0])
	return nil
}

var cumSumRuns = numFns[func(k *cumSumKernel, y, x any)]{
	cumSumRun[float32], cumSumRun[float64], cumSumRun[int64], cumSumRun[int32], cumSumRun[int16],
	cumSumRun[int8], cumSumRun[uint64], cumSumRun[uint32], cumSumRun[uint16], cumSumRun[uint8],
}

func cumSumRun[T numT](k *cumSumKernel, yd, xd any) {
	y, x := yd.([]T), xd.([]T)
	for o := 0; o < k.outer; o++ {
		for in := 0; in < k.inner; in++ {
			base := o*k.n*k.inner + in
			var acc T
			for s := 0; s < k.n; s++ {
				j := s
				if k.reverse {
					j = k.n - 1 - s
				}
				p := base + j*k.inner
				v := x[p]
				if k.exclusive {
					y[p] = acc
					acc += v
				} else {
					acc += v
					y[p] = acc
				}
			}
		}
	}
}

// newSpaceDepthKernel plans DepthToSpace and SpaceToDepth as one 6-D
// strided copy.
func newSpaceDepthKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	b := int(ni.node.AttrInt("blocksize"))
	N, C, H, W := in.shape[0], in.shape[1], in.shape[2], in.shape[3]
	var dims, src []int
	switch {
	case ni.node.Op == "SpaceToDepth":
		// output [N, b1, b2, C, H/b, W/b] from input [N, C, H/b, b1, W/b, b2]
		h, w := H/b, W/b
		s := contiguousStrides([]int{N, C, h, b, w, b})
		dims = []int{N, b, b, C, h, w}
		src = []int{s[0], s[3], s[5], s[1], s[2], s[4]}
	case ni.node.AttrString("mode") == "CRD":
		// output [N, C/b², H, b1, W, b2] from input [N, C/b², b1, b2, H, W]
		c := C / (b * b)
		s := contiguousStrides([]int{N, c, b, b, H, W})
		dims = []int{N, c, H, b, W, b}
		src = []int{s[0], s[1], s[4], s[2], s[5], s[3]}
	default:
		// DCR: output [N, C/b², H, b1, W, b2] from input [N, b1, b2, C/b², H, W]
		c := C / (b * b)
		s := contiguousStrides([]int{N, b, b, c, H, W})
		dims = []int{N, c, H, b, W, b}
		src = []int{s[0], s[3], s[4], s[1], s[5], s[2]}
	}
	p := newCopyPlan(dims, contiguousStrides(dims), src, 0, 0)
	return &plansKernel{plans: []*copyPlan{p}, src: []int{0}, dst: []int{0}}, nil
}
