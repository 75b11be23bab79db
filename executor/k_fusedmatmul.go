package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newFusedMatMulKernel, kernelKey(graph.MicrosoftDomain, "FusedMatMul"))
}

// fusedMatMulKernel is com.microsoft FusedMatMul: alpha * A' B' per batch
// element with MatMul's batch broadcasting, A' and B' read transposed in
// place when transA or transB is set.
type fusedMatMulKernel struct {
	d          graph.MatMulDims
	alpha      float64
	aOff, bOff []int
}

func newFusedMatMulKernel(ni *nodeInfo) (kernel, error) {
	a, b, out := ni.in(0), ni.in(1), ni.out(0)
	if !isFloatDT(a.dt) || a.dt != b.dt {
		return nil, fmt.Errorf("FusedMatMul of %v by %v is not supported by the Go executor", a.dt, b.dt)
	}
	d, _, err := graph.FusedMatMulDims(ni.node)
	if err != nil {
		return nil, err
	}
	k := &fusedMatMulKernel{d: d, alpha: float64(ni.node.AttrFloat("alpha"))}
	batch := out.shape[:len(out.shape)-2]
	k.aOff, k.bOff = batchOffsets(batch, a.shape[:len(a.shape)-2], b.shape[:len(b.shape)-2], d.M*d.K, d.K*d.N)
	return k, nil
}

func (k *fusedMatMulKernel) run(rc *runCtx, ins, outs []any) error {
	floatCAB(rc, k, outs[0], ins[0], ins[1], fusedMatMulRun[float32], fusedMatMulRun[float64])
	return nil
}

func fusedMatMulRun[T floatT](rc *runCtx, k *fusedMatMulKernel, c, a, b []T) {
	d := k.d
	lda, ldb := d.K, d.N
	if d.TransA {
		lda = d.M
	}
	if d.TransB {
		ldb = d.K
	}
	mn := d.M * d.N
	for i := range k.aOff {
		gemm(rc.threads, d.TransA, d.TransB, d.M, d.N, d.K, T(k.alpha), a[k.aOff[i]:], lda, b[k.bOff[i]:], ldb, 0, c[i*mn:(i+1)*mn], d.N)
	}
}
