package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// Index-driven data movement: GatherElements, GatherND, ScatterElements
// and ScatterND. Pure copies move elements by size; scatter reductions are
// typed.

func init() {
	registerKernel(newGatherElementsKernel, "GatherElements")
	registerKernel(newGatherNDKernel, "GatherND")
	registerKernel(newScatterElementsKernel, "ScatterElements")
	registerKernel(newScatterNDKernel, "ScatterND")
}

// indexData returns integer indices as int64 (copying int32 indices).
func indexData(d any) []int64 {
	switch s := d.(type) {
	case []int64:
		return s
	case []int32:
		out := make([]int64, len(s))
		for i, v := range s {
			out[i] = int64(v)
		}
		return out
	}
	return nil
}

func checkIndexDT(ni *nodeInfo, i int) error {
	if dt := ni.in(i).dt; dt != graph.Int64 && dt != graph.Int32 {
		return fmt.Errorf("%s has dtype %v, want int32 or int64", ni.inputName(i), dt)
	}
	return nil
}

// fixIndex maps v in [-n, n) to [0, n).
func fixIndex(v int64, n int) (int, error) {
	if i, ok := graph.WrapIndex(v, n); ok {
		return i, nil
	}
	return 0, fmt.Errorf("index %d is out of range for axis of size %d", v, n)
}

// elemAxisKernel serves GatherElements and ScatterElements: for every
// element of indices, its flat position in data with the axis coordinate
// replaced by the index.
type elemAxisKernel struct {
	idxShape, dataStr []int
	axis, axisLen     int
}

func newElemAxis(ni *nodeInfo) (*elemAxisKernel, error) {
	data, idx := ni.in(0), ni.in(1)
	if err := checkIndexDT(ni, 1); err != nil {
		return nil, err
	}
	ax, err := graph.NormAxis(ni.node.AttrInt("axis"), len(data.shape))
	if err != nil {
		return nil, err
	}
	for i, d := range idx.shape {
		if i != ax && d > data.shape[i] {
			return nil, fmt.Errorf("indices shape %v exceeds data shape %v on axis %d", idx.shape, data.shape, i)
		}
	}
	return &elemAxisKernel{idxShape: idx.shape, dataStr: contiguousStrides(data.shape), axis: ax, axisLen: data.shape[ax]}, nil
}

// positions returns the data offset of every index element.
func (k *elemAxisKernel) positions(idx []int64) ([]int, error) {
	pos := make([]int, len(idx))
	coord := make([]int, len(k.idxShape))
	for n := range idx {
		v, err := fixIndex(idx[n], k.axisLen)
		if err != nil {
			return nil, err
		}
		p := 0
		for i, c := range coord {
			if i == k.axis {
				c = v
			}
			p += c * k.dataStr[i]
		}
		pos[n] = p
		for i := len(coord) - 1; i >= 0; i-- {
			coord[i]++
			if coord[i] < k.idxShape[i] {
				break
			}
			coord[i] = 0
		}
	}
	return pos, nil
}

func newGatherElementsKernel(ni *nodeInfo) (kernel, error) {
	k, err := newElemAxis(ni)
	if err != nil {
		return nil, err
	}
	return &gatherBlocksKernel{blocks{k.positions, 1}}, nil
}

// blocks maps an indices input to the offsets of the blocks of block
// elements it addresses in the data.
type blocks struct {
	positions func([]int64) ([]int, error)
	block     int
}

// gatherBlocksKernel copies the blocks of the data (input 0) that the indices
// (input 1) address, one after another.
type gatherBlocksKernel struct{ blocks }

func (k *gatherBlocksKernel) run(rc *runCtx, ins, outs []any) error {
	pos, err := k.positions(indexData(ins[1]))
	if err != nil {
		return err
	}
	moveWords(pos, k.block, outs[0], ins[0], gatherSlices[uint8], gatherSlices[uint16], gatherSlices[uint32], gatherSlices[uint64])
	return nil
}

func newScatterElementsKernel(ni *nodeInfo) (kernel, error) {
	k, err := newElemAxis(ni)
	if err != nil {
		return nil, err
	}
	return newScatterKernel(ni, k.positions, 1)
}

// scatterKernel writes the updates (input 2) into a copy of the data (input 0), block
// elements at each offset that positions computes from the indices (input 1).
type scatterKernel struct {
	blocks
	reduction string
}

func newScatterKernel(ni *nodeInfo, positions func([]int64) ([]int, error), block int) (kernel, error) {
	reduction := ni.node.AttrString("reduction")
	if err := checkScatterDT(ni, reduction); err != nil {
		return nil, err
	}
	return &scatterKernel{blocks: blocks{positions, block}, reduction: reduction}, nil
}

func (k *scatterKernel) run(rc *runCtx, ins, outs []any) error {
	pos, err := k.positions(indexData(ins[1]))
	if err != nil {
		return err
	}
	copyData(outs[0], ins[0])
	return scatterInto(k.reduction, outs[0], ins[2], pos, k.block)
}

func checkScatterDT(ni *nodeInfo, reduction string) error {
	if reduction != "none" && !isNumericDT(ni.out(0).dt) {
		return errDType(ni.node.Op+" with reduction "+reduction, ni.out(0).dt)
	}
	return nil
}

// scatterInto writes blocks of L updates to dst at each position (element
// offsets), combining by reduction.
func scatterInto(reduction string, dst, upd any, pos []int, L int) error {
	if reduction == "none" {
		switch sizeOfData(dst) {
		case 1:
			scatterCopy(words[uint8](dst), words[uint8](upd), pos, L)
		case 2:
			scatterCopy(words[uint16](dst), words[uint16](upd), pos, L)
		case 4:
			scatterCopy(words[uint32](dst), words[uint32](upd), pos, L)
		default:
			scatterCopy(words[uint64](dst), words[uint64](upd), pos, L)
		}
		return nil
	}
	switch d := dst.(type) {
	case []float32:
		scatterReduce(reduction, d, upd.([]float32), pos, L)
	case []float64:
		scatterReduce(reduction, d, upd.([]float64), pos, L)
	case []int64:
		scatterReduce(reduction, d, upd.([]int64), pos, L)
	case []int32:
		scatterReduce(reduction, d, upd.([]int32), pos, L)
	default:
		return errDType("scatter reduction", dtOfData(dst))
	}
	return nil
}

func scatterCopy[W any](dst, upd []W, pos []int, L int) {
	for i, p := range pos {
		copy(dst[p:p+L], upd[i*L:(i+1)*L])
	}
}

func scatterReduce[T numT](reduction string, dst, upd []T, pos []int, L int) {
	for i, p := range pos {
		d, u := dst[p:p+L], upd[i*L:(i+1)*L]
		for j, v := range u {
			switch reduction {
			case "add":
				d[j] += v
			case "mul":
				d[j] *= v
			case "max":
				d[j] = max(d[j], v)
			case "min":
				d[j] = min(d[j], v)
			}
		}
	}
}

// ndKernel serves GatherND and ScatterND: indices [..., k] address slices
// of L contiguous elements of data, after b batch axes.
type ndKernel struct {
	k, L, batch, perBatch int   // perBatch: index tuples per batch entry
	dims, str             []int // data dims and strides for the k addressed axes
	batchStr              int   // data elements per batch entry
}

func newND(ni *nodeInfo, batchDims int) (*ndKernel, error) {
	data, idx := ni.in(0), ni.in(1)
	if err := checkIndexDT(ni, 1); err != nil {
		return nil, err
	}
	q := len(idx.shape)
	k := &ndKernel{k: idx.shape[q-1], L: 1, batch: 1}
	st := contiguousStrides(data.shape)
	for i := 0; i < batchDims; i++ {
		k.batch *= data.shape[i]
	}
	k.batchStr = 1
	for _, d := range data.shape[batchDims:] {
		k.batchStr *= d
	}
	for _, d := range data.shape[batchDims+k.k:] {
		k.L *= d
	}
	k.dims = data.shape[batchDims : batchDims+k.k]
	k.str = st[batchDims : batchDims+k.k]
	tuples := idx.n / max(k.k, 1)
	k.perBatch = tuples / max(k.batch, 1)
	return k, nil
}

// positions returns the data offset of the slice each index tuple names.
func (k *ndKernel) positions(idx []int64) ([]int, error) {
	n := len(idx) / max(k.k, 1)
	pos := make([]int, n)
	for t := range pos {
		p := (t / max(k.perBatch, 1)) * k.batchStr
		for j := 0; j < k.k; j++ {
			v, err := fixIndex(idx[t*k.k+j], k.dims[j])
			if err != nil {
				return nil, err
			}
			p += v * k.str[j]
		}
		pos[t] = p
	}
	return pos, nil
}

func newGatherNDKernel(ni *nodeInfo) (kernel, error) {
	k, err := newND(ni, int(ni.node.AttrInt("batch_dims")))
	if err != nil {
		return nil, err
	}
	return &gatherBlocksKernel{blocks{k.positions, k.L}}, nil
}

// gatherSlices copies the L elements of src at each offset in pos to dst, one
// after another.
func gatherSlices[W any](pos []int, L int, dst, src []W) {
	if L == 1 {
		for i, p := range pos {
			dst[i] = src[p]
		}
		return
	}
	for i, p := range pos {
		copy(dst[i*L:(i+1)*L], src[p:p+L])
	}
}

func newScatterNDKernel(ni *nodeInfo) (kernel, error) {
	k, err := newND(ni, 0)
	if err != nil {
		return nil, err
	}
	return newScatterKernel(ni, k.positions, k.L)
}
