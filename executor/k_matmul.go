package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newMatMulKernel, "MatMul")
	registerKernel(newGemmKernel, "Gemm")
}

// matMulKernel is MatMul with numpy semantics. Batches whose B operand is
// shared are flattened into one large product; otherwise each batch runs
// its own product (spread over workers when the products are small).
type matMulKernel struct {
	m, n, k int
	batches int
	aOff    []int // per batch element offset of A
	bOff    []int // per batch element offset of B
	flatten bool  // one product of (batches*m) × k by k × n
}

func newMatMulKernel(ni *nodeInfo) (kernel, error) {
	a, b, out := ni.in(0), ni.in(1), ni.out(0)
	if !isFloatDT(a.dt) || a.dt != b.dt {
		return nil, fmt.Errorf("MatMul of %v by %v is not supported by the Go executor", a.dt, b.dt)
	}
	return newMatMulGeometry(a, b, out)
}

// newMatMulGeometry returns the batches and offsets of the product of a
// and b into out, whatever their element types.
func newMatMulGeometry(a, b, out *valInfo) (*matMulKernel, error) {
	as, bs := a.shape, b.shape
	if len(as) == 0 || len(bs) == 0 {
		return nil, fmt.Errorf("MatMul operands must have rank >= 1")
	}
	if len(as) == 1 {
		as = []int{1, as[0]}
	}
	if len(bs) == 1 {
		bs = []int{bs[0], 1}
	}
	k := &matMulKernel{m: as[len(as)-2], k: as[len(as)-1], n: bs[len(bs)-1]}
	if bs[len(bs)-2] != k.k {
		return nil, fmt.Errorf("inner dimensions differ: %s and %s", graph.ShapeString(a.shape), graph.ShapeString(b.shape))
	}
	ab, bb := as[:len(as)-2], bs[:len(bs)-2]
	batch := broadcastShape(ab, bb)
	k.batches = graph.NumElements(batch)
	if k.batches*k.m*k.n != out.n {
		return nil, fmt.Errorf("output has %d elements, want %d", out.n, k.batches*k.m*k.n)
	}
	bShared := graph.NumElements(bb) == 1
	aFull := graph.NumElements(ab) == k.batches
	if bShared && aFull {
		k.flatten = true
		return k, nil
	}
	k.aOff, k.bOff = batchOffsets(batch, ab, bb, k.m*k.k, k.k*k.n)
	return k, nil
}

// batchOffsets returns, for every element of the broadcast batch shape
// batch of two operands with batch shapes ab and bb whose matrices hold
// aSize and bSize elements, the offsets of its matrices in each operand.
func batchOffsets(batch, ab, bb []int, aSize, bSize int) (aOff, bOff []int) {
	n := graph.NumElements(batch)
	p := newBcastPlan(batch, ab, bb)
	aOff, bOff = make([]int, n), make([]int, n)
	offs := make([]int, 2)
	for i := 0; i < n; i++ {
		p.rowOffsets(i/p.inner, offs)
		j := i % p.inner
		aOff[i] = (offs[0] + j*p.innerStride(0)) * aSize
		bOff[i] = (offs[1] + j*p.innerStride(1)) * bSize
	}
	return aOff, bOff
}

func (k *matMulKernel) run(rc *runCtx, ins, outs []any) error {
	floatCAB(rc, k, outs[0], ins[0], ins[1], matMulRun[float32], matMulRun[float64])
	return nil
}

func matMulRun[T floatT](rc *runCtx, k *matMulKernel, c, a, b []T) {
	if k.flatten {
		gemm(rc.threads, false, false, k.batches*k.m, k.n, k.k, 1, a, k.k, b, k.n, 0, c, k.n)
		return
	}
	work := k.m * k.n * k.k
	if k.batches >= rc.threads && work < 1<<22 {
		if chunks(rc.threads, k.batches, work) <= 1 {
			matMulBatches(k, 0, k.batches, 1, c, a, b)
			return
		}
		parallelFor(rc.threads, k.batches, work, func(lo, hi int) { matMulBatches(k, lo, hi, 1, c, a, b) })
		return
	}
	matMulBatches(k, 0, k.batches, rc.threads, c, a, b)
}

// matMulBatches runs the products of batches [lo, hi).
func matMulBatches[T floatT](k *matMulKernel, lo, hi, threads int, c, a, b []T) {
	mn := k.m * k.n
	for i := lo; i < hi; i++ {
		gemm(threads, false, false, k.m, k.n, k.k, 1, a[k.aOff[i]:], k.k, b[k.bOff[i]:], k.n, 0, c[i*mn:(i+1)*mn], k.n)
	}
}

// gemmKernel is Gemm: Y = alpha*A'*B' + beta*C with C broadcast to [M,N].
type gemmKernel struct {
	m, n, k     int
	tA, tB      bool
	alpha, beta float64
	hasC        bool
	cPlan       *copyPlan // broadcast of C into Y
}

func newGemmKernel(ni *nodeInfo) (kernel, error) {
	a, b, c, out := ni.in(0), ni.in(1), ni.in(2), ni.out(0)
	if !isFloatDT(a.dt) || a.dt != b.dt {
		return nil, fmt.Errorf("Gemm of %v by %v is not supported by the Go executor", a.dt, b.dt)
	}
	if len(a.shape) != 2 || len(b.shape) != 2 || len(out.shape) != 2 {
		return nil, fmt.Errorf("Gemm operands must be 2-D")
	}
	n := ni.node
	k := &gemmKernel{tA: n.AttrInt("transA") != 0, tB: n.AttrInt("transB") != 0,
		alpha: float64(n.AttrFloat("alpha")), beta: float64(n.AttrFloat("beta"))}
	k.m, k.k = a.shape[0], a.shape[1]
	if k.tA {
		k.m, k.k = k.k, k.m
	}
	kb := b.shape[0]
	k.n = b.shape[1]
	if k.tB {
		kb, k.n = k.n, kb
	}
	if kb != k.k || out.shape[0] != k.m || out.shape[1] != k.n {
		return nil, fmt.Errorf("shapes %s, %s and output %s do not agree", graph.ShapeString(a.shape), graph.ShapeString(b.shape), graph.ShapeString(out.shape))
	}
	if c != nil && k.beta != 0 {
		if c.dt != a.dt {
			return nil, fmt.Errorf("C has dtype %v, want %v", c.dt, a.dt)
		}
		p, err := expandPlan(c.shape, out.shape)
		if err != nil {
			return nil, fmt.Errorf("C: %w", err)
		}
		k.hasC, k.cPlan = true, p
	}
	return k, nil
}

func (k *gemmKernel) run(rc *runCtx, ins, outs []any) error {
	if k.hasC {
		k.cPlan.run(rc, outs[0], ins[2])
	}
	floatCAB(rc, k, outs[0], ins[0], ins[1], gemmRun[float32], gemmRun[float64])
	return nil
}

func gemmRun[T floatT](rc *runCtx, k *gemmKernel, y, a, b []T) {
	lda, ldb := k.k, k.n
	if k.tA {
		lda = k.m
	}
	if k.tB {
		ldb = k.k
	}
	beta := T(0)
	if k.hasC {
		beta = T(k.beta)
	}
	gemm(rc.threads, k.tA, k.tB, k.m, k.n, k.k, T(k.alpha), a, lda, b, ldb, beta, y, k.n)
}
