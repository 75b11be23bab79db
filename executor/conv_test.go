package executor

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// convSpec is one Conv configuration for the naive comparison.
type convSpec struct {
	n, c, m, group int
	in, k          []int // spatial input and kernel sizes
	stride, dil    []int
	pads           []int // begin..., end...; nil with autoPad
	autoPad        string
	bias           bool
}

func (s convSpec) String() string {
	return fmt.Sprintf("N%d C%d M%d g%d in%v k%v s%v d%v p%v %s bias=%v", s.n, s.c, s.m, s.group, s.in, s.k, s.stride, s.dil, s.pads, s.autoPad, s.bias)
}

// geometry returns the output sizes and begin pads the spec implies.
func (s convSpec) geometry() (out, pb []int) {
	sp := len(s.in)
	out, pb = make([]int, sp), make([]int, sp)
	for i := 0; i < sp; i++ {
		dk := (s.k[i]-1)*s.dil[i] + 1
		switch s.autoPad {
		case "SAME_UPPER", "SAME_LOWER":
			out[i] = (s.in[i] + s.stride[i] - 1) / s.stride[i]
			total := max(0, (out[i]-1)*s.stride[i]+dk-s.in[i])
			pb[i] = total / 2
			if s.autoPad == "SAME_LOWER" {
				pb[i] = total - total/2
			}
		case "VALID":
			out[i] = (s.in[i]-dk)/s.stride[i] + 1
		default:
			pb[i] = s.pads[i]
			out[i] = (s.in[i]+s.pads[i]+s.pads[i+sp]-dk)/s.stride[i] + 1
		}
	}
	return out, pb
}

func (s convSpec) attrs() graph.Attrs {
	ints := func(v []int) graph.Attr {
		o := make([]int64, len(v))
		for i, x := range v {
			o[i] = int64(x)
		}
		return graph.IntsAttr(o...)
	}
	a := graph.Attrs{"strides": ints(s.stride), "dilations": ints(s.dil), "group": graph.IntAttr(int64(s.group))}
	if s.autoPad != "" {
		a["auto_pad"] = graph.StringAttr(s.autoPad)
	} else {
		a["pads"] = ints(s.pads)
	}
	return a
}

// naiveConv is direct convolution by the definition.
func naiveConv(s convSpec, x, w, b []float32) ([]int, []float64) {
	out, pb := s.geometry()
	cg, mg := s.c/s.group, s.m/s.group
	yShape := append([]int{s.n, s.m}, out...)
	y := make([]float64, graph.NumElements(yShape))
	kShape := s.k
	nk := graph.NumElements(kShape)
	inSp := graph.NumElements(s.in)
	xStr := strides(s.in)
	for i := range y {
		idx := unravel(i, yShape)
		n, m := idx[0], idx[1]
		g := m / mg
		sum := 0.0
		if s.bias {
			sum = float64(b[m])
		}
		for c := 0; c < cg; c++ {
			for t := 0; t < nk; t++ {
				tk := unravel(t, kShape)
				off, ok := 0, true
				for d := range s.in {
					p := idx[2+d]*s.stride[d] - pb[d] + tk[d]*s.dil[d]
					if p < 0 || p >= s.in[d] {
						ok = false
						break
					}
					off += p * xStr[d]
				}
				if !ok {
					continue
				}
				xv := x[(n*s.c+g*cg+c)*inSp+off]
				wv := w[(m*cg+c)*nk+t]
				sum += float64(xv) * float64(wv)
			}
		}
		y[i] = sum
	}
	return yShape, y
}

func TestConvAgainstNaive(t *testing.T) {
	one := func(v ...int) []int { return v }
	var specs []convSpec
	for _, group := range []int{1, 2, 4} {
		for _, stride := range []int{1, 2} {
			for _, dil := range []int{1, 2} {
				for _, ap := range []string{"", "SAME_UPPER", "SAME_LOWER", "VALID"} {
					s := convSpec{n: 2, c: 4, m: 4, group: group, in: one(7, 6), k: one(3, 2),
						stride: one(stride, 1), dil: one(dil, 1), autoPad: ap, bias: stride == 1}
					if ap == "" {
						s.pads = one(1, 0, 2, 1)
					}
					specs = append(specs, s)
				}
			}
		}
	}
	specs = append(specs,
		convSpec{n: 1, c: 3, m: 5, group: 1, in: one(9), k: one(3), stride: one(2), dil: one(1), pads: one(1, 1), bias: true},                         // 1-D
		convSpec{n: 1, c: 2, m: 3, group: 1, in: one(4, 5, 3), k: one(2, 3, 2), stride: one(1, 2, 1), dil: one(1, 1, 2), pads: one(0, 1, 1, 1, 0, 1)}, // 3-D
		convSpec{n: 1, c: 8, m: 6, group: 1, in: one(5, 5), k: one(1, 1), stride: one(1, 1), dil: one(1, 1), pads: one(0, 0, 0, 0), bias: true},       // pointwise
		convSpec{n: 1, c: 8, m: 6, group: 2, in: one(6, 6), k: one(1, 1), stride: one(2, 2), dil: one(1, 1), pads: one(0, 0, 0, 0)},                   // strided 1x1
		convSpec{n: 1, c: 16, m: 32, group: 1, in: one(40, 40), k: one(3, 3), stride: one(1, 1), dil: one(1, 1), pads: one(1, 1, 1, 1), bias: true},   // parallel im2col + gemm
		convSpec{n: 2, c: 32, m: 32, group: 32, in: one(20, 20), k: one(3, 3), stride: one(1, 1), dil: one(1, 1), autoPad: "SAME_UPPER", bias: true},  // depthwise, job-parallel
		convSpec{n: 1, c: 4, m: 8, group: 1, in: one(3, 3), k: one(5, 5), stride: one(1, 1), dil: one(1, 1), pads: one(2, 2, 2, 2)},                   // kernel larger than input
		convSpec{n: 1, c: 4, m: 4, group: 1, in: one(1), k: one(5), stride: one(1), dil: one(1), pads: one(2, 2), bias: true},                         // taps entirely in the padding
		convSpec{n: 1, c: 2, m: 3, group: 1, in: one(2, 1), k: one(3, 5), stride: one(1, 1), dil: one(1, 1), pads: one(1, 2, 1, 2)},
	)
	r := rand.New(rand.NewPCG(13, 14))
	for _, s := range specs {
		x := randTensor(r, -1, 1, append([]int{s.n, s.c}, s.in...)...)
		w := randTensor(r, -1, 1, append([]int{s.m, s.c / s.group}, s.k...)...)
		b := randTensor(r, -1, 1, s.m)
		shape, want := naiveConv(s, x.Float32s(), w.Float32s(), b.Float32s())
		ins := []opInput{in(x), konst(w)}
		if s.bias {
			ins = append(ins, konst(b))
		}
		bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
			got := runOp(t, "Conv", ins, s.attrs(), 1, opts)[0]
			checkClose(t, "Conv "+s.String(), got, shape, want, 1e-4)
		})
	}
}

func TestConvThreadsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	s := convSpec{n: 1, c: 16, m: 24, group: 1, in: []int{30, 30}, k: []int{3, 3}, stride: []int{1, 1}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}}
	x := randTensor(r, -1, 1, 1, 16, 30, 30)
	w := randTensor(r, -1, 1, 24, 16, 3, 3)
	one := runOp(t, "Conv", []opInput{in(x), konst(w)}, s.attrs(), 1, ExecOptions{Threads: 1})[0]
	four := runOp(t, "Conv", []opInput{in(x), konst(w)}, s.attrs(), 1, ExecOptions{Threads: 4})[0]
	want, _ := one.AsFloat64()
	checkClose(t, "Conv threads", four, one.Shape, want, 1e-6)
}

// naiveConvTranspose scatters every input element through the kernel.
func naiveConvTranspose(x, w []float32, xShape, wShape []int, group int, stride, dil, pb, outSp []int, bias []float32) ([]int, []float64) {
	n, c := xShape[0], xShape[1]
	mg := wShape[1]
	cg := c / group
	m := mg * group
	sp := xShape[2:]
	kShape := wShape[2:]
	yShape := append([]int{n, m}, outSp...)
	y := make([]float64, graph.NumElements(yShape))
	ys := strides(yShape)
	nk := graph.NumElements(kShape)
	for i, xv := range x {
		idx := unravel(i, xShape)
		g := idx[1] / cg
		for mm := 0; mm < mg; mm++ {
			for t := 0; t < nk; t++ {
				tk := unravel(t, kShape)
				off, ok := idx[0]*ys[0]+(g*mg+mm)*ys[1], true
				for d := range sp {
					p := idx[2+d]*stride[d] - pb[d] + tk[d]*dil[d]
					if p < 0 || p >= outSp[d] {
						ok = false
						break
					}
					off += p * ys[2+d]
				}
				if ok {
					y[off] += float64(xv) * float64(w[(idx[1]*mg+mm)*nk+t])
				}
			}
		}
	}
	if bias != nil {
		for i := range y {
			y[i] += float64(bias[unravel(i, yShape)[1]])
		}
	}
	return yShape, y
}

func TestConvTransposeAgainstNaive(t *testing.T) {
	tests := []struct {
		x, w       []int
		group      int
		stride     []int
		dil        []int
		pads       []int
		outPad     []int
		outShape   []int
		autoPad    string
		bias       bool
		wantSp, pb []int
	}{
		{x: []int{1, 2, 3, 3}, w: []int{2, 3, 3, 3}, group: 1, stride: []int{1, 1}, dil: []int{1, 1}, pads: []int{0, 0, 0, 0}, wantSp: []int{5, 5}, pb: []int{0, 0}, bias: true},
		{x: []int{2, 4, 3, 4}, w: []int{4, 1, 3, 2}, group: 2, stride: []int{2, 3}, dil: []int{1, 2}, pads: []int{1, 0, 0, 1}, wantSp: []int{6, 11}, pb: []int{1, 0}},
		{x: []int{1, 1, 3, 3}, w: []int{1, 2, 3, 3}, group: 1, stride: []int{3, 2}, dil: []int{1, 1}, pads: []int{0, 0, 0, 0}, outPad: []int{1, 1}, wantSp: []int{10, 8}, pb: []int{0, 0}},
		{x: []int{1, 1, 3, 3}, w: []int{1, 2, 3, 3}, group: 1, stride: []int{2, 2}, dil: []int{1, 1}, autoPad: "SAME_UPPER", wantSp: []int{6, 6}, pb: []int{0, 0}},
		{x: []int{1, 1, 3, 3}, w: []int{1, 2, 3, 3}, group: 1, stride: []int{2, 2}, dil: []int{1, 1}, autoPad: "SAME_LOWER", wantSp: []int{6, 6}, pb: []int{1, 1}},
		{x: []int{1, 3, 5}, w: []int{3, 2, 4}, group: 1, stride: []int{2}, dil: []int{1}, pads: []int{1, 2}, wantSp: []int{9}, pb: []int{1}, bias: true},
		{x: []int{1, 2, 8, 8}, w: []int{2, 8, 4, 4}, group: 1, stride: []int{2, 2}, dil: []int{1, 1}, outShape: []int{16, 16}, wantSp: []int{16, 16}, pb: []int{1, 1}},
	}
	r := rand.New(rand.NewPCG(17, 18))
	for i, tc := range tests {
		x := randTensor(r, -1, 1, tc.x...)
		w := randTensor(r, -1, 1, tc.w...)
		m := tc.w[1] * tc.group
		b := randTensor(r, -1, 1, m)
		var bias []float32
		ins := []opInput{in(x), konst(w)}
		if tc.bias {
			bias = b.Float32s()
			ins = append(ins, konst(b))
		}
		ints := func(v []int) graph.Attr {
			o := make([]int64, len(v))
			for i, x := range v {
				o[i] = int64(x)
			}
			return graph.IntsAttr(o...)
		}
		attrs := graph.Attrs{"group": graph.IntAttr(int64(tc.group)), "strides": ints(tc.stride), "dilations": ints(tc.dil)}
		if tc.pads != nil {
			attrs["pads"] = ints(tc.pads)
		}
		if tc.outPad != nil {
			attrs["output_padding"] = ints(tc.outPad)
		}
		if tc.outShape != nil {
			attrs["output_shape"] = ints(tc.outShape)
		}
		if tc.autoPad != "" {
			attrs["auto_pad"] = graph.StringAttr(tc.autoPad)
		}
		shape, want := naiveConvTranspose(x.Float32s(), w.Float32s(), tc.x, tc.w, tc.group, tc.stride, tc.dil, tc.pb, tc.wantSp, bias)
		bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
			got := runOp(t, "ConvTranspose", ins, attrs, 1, opts)[0]
			checkClose(t, fmt.Sprintf("ConvTranspose case %d", i), got, shape, want, 1e-4)
		})
	}
}
