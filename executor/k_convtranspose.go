package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newConvTransposeKernel, "ConvTranspose")
}

// convTransposeKernel is ConvTranspose as GEMM + col2im per (batch,
// group): columns [M/g * taps, input positions] = W_gᵀ × X_g, then each
// column entry is added into the output position it lands on.
type convTransposeKernel struct {
	batch, c, m, groups int
	cg, mg              int
	inSp, outSp, taps   int
	geo                 *im2colGeo
	elem                int
}

func newConvTransposeKernel(ni *nodeInfo) (kernel, error) {
	x, w, out, err := convOperands(ni)
	if err != nil {
		return nil, err
	}
	sp := len(x.shape) - 2
	n := ni.node
	groups := int(n.AttrInt("group"))
	k := &convTransposeKernel{batch: x.shape[0], c: x.shape[1], groups: groups, elem: elemSize(x.dt)}
	if groups < 1 || k.c%groups != 0 || w.shape[0] != k.c {
		return nil, fmt.Errorf("group %d does not fit X channels %d and W %s", groups, k.c, graph.ShapeString(w.shape))
	}
	k.cg, k.mg = k.c/groups, w.shape[1]
	k.m = k.mg * groups
	if out.shape[1] != k.m {
		return nil, fmt.Errorf("output has %d channels, want %d", out.shape[1], k.m)
	}
	if b := ni.in(2); b != nil && (b.n != k.m || b.dt != x.dt) {
		return nil, fmt.Errorf("bias B has %v[%s], want %d values of %v", b.dt, graph.ShapeString(b.shape), k.m, x.dt)
	}
	// The scatter uses a Conv geometry whose "input" is this op's output.
	win, err := resolveWindow(n, out.shape[2:], x.shape[2:], w.shape[2:])
	if err != nil {
		return nil, err
	}
	outPad := n.AttrInts("output_padding")
	outShape := n.AttrInts("output_shape")
	autoPad := n.AttrString("auto_pad")
	for i := 0; i < sp; i++ {
		if win.kernel[i] != w.shape[2+i] {
			return nil, fmt.Errorf("kernel_shape %v disagrees with W %s", win.kernel, graph.ShapeString(w.shape))
		}
		if outShape == nil && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER" {
			continue // explicit pads (or VALID) as resolved
		}
		op := 0
		if len(outPad) == sp {
			op = int(outPad[i])
		}
		dk := (win.kernel[i]-1)*win.dilation[i] + 1
		total := max(0, win.stride[i]*(x.shape[2+i]-1)+op+dk-out.shape[2+i])
		if autoPad == "SAME_UPPER" {
			win.padBegin[i] = total / 2
		} else {
			win.padBegin[i] = total - total/2
		}
	}
	k.inSp, k.outSp, k.taps = graph.NumElements(x.shape[2:]), graph.NumElements(out.shape[2:]), win.kernelSize()
	k.geo = newIm2colGeo(win)
	return k, nil
}

func (k *convTransposeKernel) scratchBytes() int {
	return 8 * words8(k.mg*k.taps*k.inSp*k.elem)
}

func (k *convTransposeKernel) run(rc *runCtx, ins, outs []any) error {
	return floatXWB(rc, k, ins, outs, convTransposeRun[float32], convTransposeRun[float64])
}

func convTransposeRun[T floatT](rc *runCtx, k *convTransposeKernel, y, x, w, bias []T) {
	rows := k.mg * k.taps
	col := scratchView[T](rc, 0, rows*k.inSp)
	for n := 0; n < k.batch; n++ {
		for g := 0; g < k.groups; g++ {
			xg := x[(n*k.c+g*k.cg)*k.inSp : (n*k.c+(g+1)*k.cg)*k.inSp]
			yg := y[(n*k.m+g*k.mg)*k.outSp : (n*k.m+(g+1)*k.mg)*k.outSp]
			wg := w[g*k.cg*rows : (g+1)*k.cg*rows]
			for o := 0; o < k.mg; o++ {
				v := T(0)
				if bias != nil {
					v = bias[g*k.mg+o]
				}
				row := yg[o*k.outSp : (o+1)*k.outSp]
				for i := range row {
					row[i] = v
				}
			}
			gemm(rc.threads, true, false, rows, k.inSp, k.cg, 1, wg, rows, xg, k.inSp, 0, col, k.inSp)
			col2im(k.geo, yg, col, k.mg, rc.threads)
		}
	}
}
