package executor

import "github.com/xrl-dev/xrl/graph"

// Sum and Mean of any number of broadcast inputs: additions folded one
// input at a time into the output, then (Mean) a division by the count.

func init() {
	registerKernel(newSumKernel, "Sum", "Mean")
}

type sumKernel struct {
	add  *binaryKernel
	mean bool
	n    int
}

func newSumKernel(ni *nodeInfo) (kernel, error) {
	add, err := newBinaryKernelOp(ni, opAdd)
	if err != nil {
		return nil, err
	}
	k := &sumKernel{add: add, mean: ni.node.Op == "Mean", n: len(ni.ins)}
	if k.mean && !isFloatDT(ni.out(0).dt) {
		return nil, errDType("Mean", ni.out(0).dt)
	}
	return k, nil
}

func (k *sumKernel) inPlace() []int { return k.add.inPlace() }

func (k *sumKernel) run(rc *runCtx, ins, outs []any) error {
	if err := k.add.run(rc, ins, outs); err != nil {
		return err
	}
	if !k.mean || k.n == 1 {
		return nil
	}
	switch y := outs[0].(type) {
	case []float32:
		c := float32(k.n)
		mapRun(rc, y, y, 1, func(v float32) float32 { return v / c })
	case []float64:
		c := float64(k.n)
		mapRun(rc, y, y, 1, func(v float64) float64 { return v / c })
	default:
		return errDType("Mean", graph.Undefined)
	}
	return nil
}
