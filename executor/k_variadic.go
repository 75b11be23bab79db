package executor

import "github.com/xrl-dev/xrl/graph"

// Mean of any number of broadcast inputs: additions folded one input at a
// time into the output, then a division by the count. (Sum is the
// arithmetic kernel of its schema function, BinAdd.)

func init() {
	registerKernel(newMeanKernel, "Mean")
}

type meanKernel struct {
	add *binaryKernel
	n   int
}

func newMeanKernel(ni *nodeInfo) (kernel, error) {
	add, err := newBinaryKernelOp(ni, opAdd)
	if err != nil {
		return nil, err
	}
	if !isFloatDT(ni.out(0).dt) {
		return nil, errDType("Mean", ni.out(0).dt)
	}
	return &meanKernel{add: add, n: len(ni.ins)}, nil
}

func (k *meanKernel) inPlace() []int { return k.add.inPlace() }

func (k *meanKernel) run(rc *runCtx, ins, outs []any) error {
	if err := k.add.run(rc, ins, outs); err != nil {
		return err
	}
	if k.n == 1 {
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
