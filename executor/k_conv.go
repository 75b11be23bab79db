package executor

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

func init() {
	registerKernel(newConvKernel, "Conv")
}

// convKernel is Conv as im2col + GEMM per (batch, group): the column
// matrix [C/g * taps, out positions] is multiplied by the group's weights
// [M/g, C/g * taps]. Pointwise convolutions (1×1, stride 1, no padding)
// multiply the input directly. Many small groups (depthwise) run in
// parallel, each worker with its own column buffer; otherwise im2col and
// the GEMM are parallel inside one group.
type convKernel struct {
	batch, c, m, groups int
	cg, mg              int
	inSp, outSp, taps   int
	geo                 *im2colGeo
	direct              bool
	jobPar              bool
	threads             int
	elem                int
}

// convOperands returns the input X, weights W and output Y of a Conv or
// ConvTranspose node after checking that the Go executor supports them:
// float X and W of one dtype, equal ranks, 1 to 3 spatial axes.
func convOperands(ni *nodeInfo) (x, w, out *valInfo, err error) {
	x, w, out = ni.in(0), ni.in(1), ni.out(0)
	op := ni.node.Op
	if !isFloatDT(x.dt) || w.dt != x.dt {
		return nil, nil, nil, fmt.Errorf("%s of %v by %v is not supported by the Go executor", op, x.dt, w.dt)
	}
	r := len(x.shape)
	if r < 3 || len(w.shape) != r || len(out.shape) != r {
		return nil, nil, nil, fmt.Errorf("X, W and Y must have the same rank >= 3")
	}
	if r-2 > 3 {
		return nil, nil, nil, fmt.Errorf("%s with %d spatial axes is not supported by the Go executor (at most 3)", op, r-2)
	}
	return x, w, out, nil
}

func newConvKernel(ni *nodeInfo) (kernel, error) {
	x, w, out, err := convOperands(ni)
	if err != nil {
		return nil, err
	}
	groups := int(ni.node.AttrInt("group"))
	k := &convKernel{batch: x.shape[0], c: x.shape[1], m: w.shape[0], groups: groups,
		threads: ni.threads, elem: elemSize(x.dt)}
	if groups < 1 || k.c%groups != 0 || k.m%groups != 0 || w.shape[1]*groups != k.c {
		return nil, fmt.Errorf("group %d does not fit X channels %d and W %s", groups, k.c, graph.ShapeString(w.shape))
	}
	k.cg, k.mg = k.c/groups, k.m/groups
	win, err := resolveWindow(ni.node, x.shape[2:], out.shape[2:], w.shape[2:])
	if err != nil {
		return nil, err
	}
	for i, kd := range win.kernel {
		if kd != w.shape[2+i] {
			return nil, fmt.Errorf("kernel_shape %v disagrees with W %s", win.kernel, graph.ShapeString(w.shape))
		}
	}
	if b := ni.in(2); b != nil && (b.n != k.m || b.dt != x.dt) {
		return nil, fmt.Errorf("bias B has %v[%s], want %d values of %v", b.dt, graph.ShapeString(b.shape), k.m, x.dt)
	}
	k.inSp, k.outSp, k.taps = graph.NumElements(x.shape[2:]), graph.NumElements(out.shape[2:]), win.kernelSize()
	k.geo = newIm2colGeo(win)
	k.direct = k.taps == 1 && k.inSp == k.outSp
	for i := range win.kernel {
		if win.stride[i] != 1 || win.padBegin[i] != 0 || win.padEnd[i] != 0 {
			k.direct = false
		}
	}
	jobs := k.batch * k.groups
	perJob := k.mg * k.cg * k.taps * k.outSp
	k.jobPar = jobs >= 2*k.threads || (jobs >= k.threads && perJob < 1<<22)
	return k, nil
}

// colElems is the size of one column buffer.
func (k *convKernel) colElems() int { return k.cg * k.taps * k.outSp }

func (k *convKernel) scratchBytes() int {
	if k.direct {
		return 0
	}
	per := 8 * words8(k.colElems()*k.elem)
	if k.jobPar {
		return per * k.threads
	}
	return per
}

func (k *convKernel) run(rc *runCtx, ins, outs []any) error {
	return floatXWB(rc, k, ins, outs, convRun[float32], convRun[float64])
}

func convRun[T floatT](rc *runCtx, k *convKernel, y, x, w, bias []T) {
	jobs := k.batch * k.groups
	if k.jobPar && chunks(rc.threads, jobs, 1<<20) > 1 {
		colBytes := 8 * words8(k.colElems()*k.elem)
		parallelForW(rc.threads, jobs, 1<<20, func(worker, lo, hi int) {
			var col []T
			if !k.direct {
				col = scratchView[T](rc, worker*colBytes, k.colElems())
			}
			for j := lo; j < hi; j++ {
				convJob(k, j, col, 1, y, x, w, bias)
			}
		})
		return
	}
	var col []T
	if !k.direct {
		col = scratchView[T](rc, 0, k.colElems())
	}
	threads := rc.threads
	if k.jobPar {
		threads = 1
	}
	for j := 0; j < jobs; j++ {
		convJob(k, j, col, threads, y, x, w, bias)
	}
}

// convJob computes one (batch, group) pair: bias, im2col and the GEMM.
func convJob[T floatT](k *convKernel, j int, col []T, threads int, y, x, w, bias []T) {
	kk := k.cg * k.taps
	n, g := j/k.groups, j%k.groups
	xg := x[(n*k.c+g*k.cg)*k.inSp : (n*k.c+(g+1)*k.cg)*k.inSp]
	yg := y[(n*k.m+g*k.mg)*k.outSp : (n*k.m+(g+1)*k.mg)*k.outSp]
	wg := w[g*k.mg*kk : (g+1)*k.mg*kk]
	beta := T(0)
	if bias != nil {
		for o := 0; o < k.mg; o++ {
			v := bias[g*k.mg+o]
			row := yg[o*k.outSp : (o+1)*k.outSp]
			for i := range row {
				row[i] = v
			}
		}
		beta = 1
	}
	src := xg
	if !k.direct {
		im2col(k.geo, col, xg, k.cg, threads)
		src = col
	}
	gemm(threads, false, false, k.mg, k.outSp, kk, 1, wg, kk, src, k.outSp, beta, yg, k.outSp)
}
