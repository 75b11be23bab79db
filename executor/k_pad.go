package executor

import (
	"fmt"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newPadKernel, "Pad")
}

// padKernel is Pad. Constant mode fills the output and copies the kept
// part of the input; reflect, edge and wrap gather through per-axis index
// tables.
type padKernel struct {
	dt       graph.DType
	constant bool
	fill     *copyPlan // constant mode: the interior copy
	table    *tablePlan
	empty    bool // input has no elements: output is all fill value
}

func newPadKernel(ni *nodeInfo) (kernel, error) {
	in, out := ni.in(0), ni.out(0)
	r := len(in.shape)
	pads, _, err := ni.constInts(1)
	if err != nil {
		return nil, err
	}
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if a, ok, err := ni.constInts(3); err != nil {
		return nil, err
	} else if ok {
		axes = axes[:0]
		for _, x := range a {
			ax, err := graph.NormAxis(x, r)
			if err != nil {
				return nil, fmt.Errorf("axes: %w", err)
			}
			axes = append(axes, ax)
		}
	}
	if len(pads) != 2*len(axes) {
		return nil, fmt.Errorf("pads %v has %d values, want %d", pads, len(pads), 2*len(axes))
	}
	if v := ni.in(2); v != nil && v.n > 1 {
		return nil, fmt.Errorf("constant_value must be a scalar, got shape %s", graph.ShapeString(v.shape))
	}
	begin := make([]int, r)
	end := make([]int, r)
	for i, a := range axes {
		begin[a], end[a] = int(pads[i]), int(pads[i+len(axes)])
	}
	shape := make([]int, r)
	for a := range shape {
		shape[a] = in.shape[a] + begin[a] + end[a]
		if shape[a] < 0 {
			return nil, fmt.Errorf("pads %v crop axis %d below zero", pads, a)
		}
	}
	if !slices.Equal(shape, out.shape) {
		return nil, fmt.Errorf("padded shape %s differs from output shape %s", graph.ShapeString(shape), graph.ShapeString(out.shape))
	}
	k := &padKernel{dt: out.dt, empty: in.n == 0}
	mode := ni.node.AttrString("mode")
	switch mode {
	case "constant":
		k.constant = true
		// The kept input range on each axis and where it lands.
		dims := make([]int, r)
		sOff, dOff := 0, 0
		istr, ostr := contiguousStrides(in.shape), contiguousStrides(out.shape)
		for a := 0; a < r; a++ {
			lo := max(0, -begin[a])
			hi := in.shape[a] - max(0, -end[a])
			dims[a] = max(0, hi-lo)
			sOff += lo * istr[a]
			dOff += max(0, begin[a]) * ostr[a]
		}
		k.fill = newCopyPlan(dims, ostr, istr, dOff, sOff)
	case "reflect", "edge", "wrap":
		if in.n == 0 && out.n > 0 {
			return nil, fmt.Errorf("mode %q cannot pad an empty input", mode)
		}
		istr := contiguousStrides(in.shape)
		tbl := make([][]int, r)
		for a := 0; a < r; a++ {
			tbl[a] = make([]int, out.shape[a])
			n := in.shape[a]
			for o := range tbl[a] {
				tbl[a][o] = padIndex(mode, o-begin[a], n) * istr[a]
			}
		}
		k.table = newTablePlan(out.shape, tbl)
	default:
		return nil, fmt.Errorf("mode %q is not one of constant, reflect, edge, wrap", mode)
	}
	return k, nil
}

// padIndex maps a position i of the padded axis (relative to the input's
// first element) to an input index for the given mode.
func padIndex(mode string, i, n int) int {
	if i >= 0 && i < n {
		return i
	}
	switch mode {
	case "edge":
		return min(max(i, 0), n-1)
	case "wrap":
		return ((i % n) + n) % n
	}
	// reflect (mirror without repeating the edge)
	if n == 1 {
		return 0
	}
	period := 2 * (n - 1)
	i = ((i % period) + period) % period
	if i >= n {
		i = period - i
	}
	return i
}

func (k *padKernel) run(rc *runCtx, ins, outs []any) error {
	if !k.constant {
		k.table.run(rc, outs[0], ins[0])
		return nil
	}
	fillValue(outs[0], optIn(ins, 2))
	if !k.empty {
		k.fill.run(rc, outs[0], ins[0])
	}
	return nil
}

// fillValue sets every element of dst to the scalar in v (nil or empty
// means zero).
func fillValue(dst, v any) {
	if v == nil || graph.DataLen(v) == 0 {
		zeroData(dst)
		return
	}
	switch sizeOfData(dst) {
	case 1:
		fillWords(words[uint8](dst), words[uint8](v)[0])
	case 2:
		fillWords(words[uint16](dst), words[uint16](v)[0])
	case 4:
		fillWords(words[uint32](dst), words[uint32](v)[0])
	default:
		fillWords(words[uint64](dst), words[uint64](v)[0])
	}
}

func fillWords[W any](d []W, v W) {
	for i := range d {
		d[i] = v
	}
}

// tablePlan gathers out[o_0..o_k] = src[sum_a tbl[a][o_a]]: every output
// axis has a table of source offsets (Pad's reflect/edge/wrap, nearest
// Resize).
type tablePlan struct {
	dims []int
	tbl  [][]int
	n    int
	rows int
}

func newTablePlan(dims []int, tbl [][]int) *tablePlan {
	p := &tablePlan{dims: dims, tbl: tbl, n: graph.NumElements(dims)}
	if len(dims) == 0 {
		p.dims, p.tbl = []int{1}, [][]int{{0}}
	}
	p.rows = p.n / max(p.dims[len(p.dims)-1], 1)
	return p
}

func (p *tablePlan) run(rc *runCtx, dst, src any) {
	if p.n == 0 {
		return
	}
	moveWords(rc, p, dst, src, tableRun[uint8], tableRun[uint16], tableRun[uint32], tableRun[uint64])
}

func tableRun[W any](rc *runCtx, p *tablePlan, dst, src []W) {
	L := p.dims[len(p.dims)-1]
	if chunks(rc.threads, p.n, 2) <= 1 {
		tableRows(p, dst, src, 0, p.rows)
		return
	}
	parallelFor(rc.threads, p.rows, 2*L, func(lo, hi int) { tableRows(p, dst, src, lo, hi) })
}

// tableRows gathers output rows [lo, hi).
func tableRows[W any](p *tablePlan, dst, src []W, lo, hi int) {
	last := len(p.dims) - 1
	L := p.dims[last]
	inner := p.tbl[last]
	for r := lo; r < hi; r++ {
		off, q := 0, r
		for a := last - 1; a >= 0; a-- {
			off += p.tbl[a][q%p.dims[a]]
			q /= p.dims[a]
		}
		row := dst[r*L : (r+1)*L]
		for i, t := range inner {
			row[i] = src[off+t]
		}
	}
}
