package executor

import "fmt"

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss over input
// [N, C, d...] viewed as [N, C, D] with targets [N, D]; sums in float64.

func init() {
	registerKernel(newLossKernel, "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss")
}

type lossKernel struct {
	n, c, d   int
	softmax   bool
	reduction string
	ignore    int64
	hasIgnore bool
}

func newLossKernel(ni *nodeInfo) (kernel, error) {
	in := ni.in(0)
	if !isFloatDT(in.dt) {
		return nil, errDType(ni.node.Op, in.dt)
	}
	if err := checkIndexDT(ni, 1); err != nil {
		return nil, err
	}
	k := &lossKernel{n: in.shape[0], c: in.shape[1], d: 1, softmax: ni.node.Op == "SoftmaxCrossEntropyLoss",
		reduction: ni.node.AttrString("reduction"), hasIgnore: ni.node.HasAttr("ignore_index")}
	if k.hasIgnore {
		k.ignore = ni.node.AttrInt("ignore_index")
	}
	for _, v := range in.shape[2:] {
		k.d *= v
	}
	return k, nil
}

func (k *lossKernel) run(rc *runCtx, ins, outs []any) error {
	return floatIO(rc, k, ins, outs, lossIO[float32], lossIO[float64])
}

// lossIO reads the typed operands: the weights and the log-probability
// output are optional.
func lossIO[T floatT](rc *runCtx, k *lossKernel, ins, outs []any) error {
	var lp []T
	if len(outs) > 1 {
		lp, _ = outs[1].([]T)
	}
	w, _ := optIn(ins, 2).([]T)
	return lossRun(rc, k, outs[0].([]T), lp, ins[0].([]T), w, indexData(ins[1]))
}

func lossRun[T floatT](rc *runCtx, k *lossKernel, y, logProb, x, w []T, target []int64) error {
	if k.softmax {
		if logProb == nil {
			logProb = make([]T, len(x))
		}
		lines := &axisLineKernel{axisLines: axisLines{outer: k.n, n: k.c, inner: k.d}}
		axisLineRun(rc, lines, logProb, x)
		x = logProb
	}
	var sum, wsum float64
	for i := 0; i < k.n; i++ {
		for j := 0; j < k.d; j++ {
			p := i*k.d + j
			t := target[p]
			loss, wt := 0.0, 0.0
			if !(k.hasIgnore && t == k.ignore) {
				if t < 0 || t >= int64(k.c) {
					return fmt.Errorf("target %d is out of range for %d classes", t, k.c)
				}
				wt = 1
				if w != nil {
					wt = float64(w[t])
				}
				loss = -float64(x[(i*k.c+int(t))*k.d+j]) * wt
			}
			if k.reduction == "none" {
				y[p] = T(loss)
			}
			sum += loss
			wsum += wt
		}
	}
	switch k.reduction {
	case "sum":
		y[0] = T(sum)
	case "mean":
		y[0] = T(sum / wsum) // 0/0 = NaN when every target is ignored
	}
	return nil
}
