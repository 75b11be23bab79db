package executor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// naivePool pools by the definition; it also returns MaxPool's flat
// argmax indices.
func naivePool(isMax bool, x []float32, xShape, k, stride, dil, pb, pe, out []int, includePad bool) ([]float64, []float64) {
	n, c := xShape[0], xShape[1]
	sp := xShape[2:]
	yShape := append([]int{n, c}, out...)
	y := make([]float64, graph.NumElements(yShape))
	arg := make([]float64, len(y))
	inSp := graph.NumElements(sp)
	xs := strides(sp)
	nk := graph.NumElements(k)
	for i := range y {
		idx := unravel(i, yShape)
		plane := (idx[0]*c + idx[1]) * inSp
		best, at, sum, cnt := math.Inf(-1), -1, 0.0, 0
		for t := 0; t < nk; t++ {
			tk := unravel(t, k)
			off, inside, inPad := 0, true, true
			for d := range sp {
				p := idx[2+d]*stride[d] - pb[d] + tk[d]*dil[d]
				if p < 0 || p >= sp[d] {
					inside = false
				}
				if p >= sp[d]+pe[d] {
					inPad = false
				}
				off += p * xs[d]
			}
			if inside {
				v := float64(x[plane+off])
				sum += v
				cnt++
				if v > best {
					best, at = v, plane+off
				}
			} else if includePad && inPad {
				cnt++
			}
		}
		if isMax {
			y[i], arg[i] = best, float64(at)
		} else {
			y[i] = sum / float64(cnt)
		}
	}
	return y, arg
}

func TestPoolsAgainstNaive(t *testing.T) {
	tests := []struct {
		x             []int
		k, s, d       []int
		pb, pe        []int
		ceil, include bool
		out           []int
	}{
		{x: []int{1, 2, 6, 6}, k: []int{2, 2}, s: []int{2, 2}, d: []int{1, 1}, pb: []int{0, 0}, pe: []int{0, 0}, out: []int{3, 3}},
		{x: []int{2, 3, 7, 5}, k: []int{3, 3}, s: []int{2, 1}, d: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 0}, out: []int{4, 4}},
		{x: []int{2, 3, 7, 5}, k: []int{3, 3}, s: []int{2, 1}, d: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 0}, include: true, out: []int{4, 4}},
		{x: []int{1, 1, 5, 5}, k: []int{2, 2}, s: []int{2, 2}, d: []int{1, 1}, pb: []int{0, 0}, pe: []int{0, 0}, ceil: true, out: []int{3, 3}},
		{x: []int{1, 2, 8, 8}, k: []int{2, 3}, s: []int{1, 2}, d: []int{2, 2}, pb: []int{0, 1}, pe: []int{1, 1}, out: []int{7, 3}},
		{x: []int{1, 2, 9}, k: []int{4}, s: []int{3}, d: []int{1}, pb: []int{2}, pe: []int{1}, out: []int{3}},
		{x: []int{1, 1, 4, 4, 4}, k: []int{2, 2, 2}, s: []int{2, 2, 2}, d: []int{1, 1, 1}, pb: []int{0, 0, 0}, pe: []int{0, 0, 0}, out: []int{2, 2, 2}},
		{x: []int{1, 64, 32, 32}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, out: []int{16, 16}}, // parallel
	}
	r := rand.New(rand.NewPCG(19, 20))
	ints := func(v []int) graph.Attr {
		o := make([]int64, len(v))
		for i, x := range v {
			o[i] = int64(x)
		}
		return graph.IntsAttr(o...)
	}
	for i, tc := range tests {
		x := randTensor(r, -1, 1, tc.x...)
		attrs := graph.Attrs{"kernel_shape": ints(tc.k), "strides": ints(tc.s), "pads": ints(append(append([]int{}, tc.pb...), tc.pe...))}
		if tc.ceil {
			attrs["ceil_mode"] = graph.IntAttr(1)
		}
		yShape := append([]int{tc.x[0], tc.x[1]}, tc.out...)
		for _, op := range []string{"MaxPool", "AveragePool"} {
			a := graph.Attrs{}
			for k, v := range attrs {
				a[k] = v
			}
			if op == "MaxPool" {
				a["dilations"] = ints(tc.d)
			} else if tc.d[0] != 1 {
				continue // AveragePool dilations need opset 19
			}
			if tc.include && op == "AveragePool" {
				a["count_include_pad"] = graph.IntAttr(1)
			}
			want, arg := naivePool(op == "MaxPool", x.Float32s(), tc.x, tc.k, tc.s, tc.d, tc.pb, tc.pe, tc.out, tc.include)
			what := fmt.Sprintf("%s case %d", op, i)
			bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
				nOut := 1
				if op == "MaxPool" {
					nOut = 2
				}
				outs := runOp(t, op, []opInput{in(x)}, a, nOut, opts)
				checkClose(t, what, outs[0], yShape, want, 1e-5)
				if op == "MaxPool" {
					checkClose(t, what+" indices", outs[1], yShape, arg, 0)
				}
			})
		}
	}
}

func TestMaxPoolIntsAndStorageOrder(t *testing.T) {
	x := &graph.Tensor{DType: graph.Uint8, Shape: []int{1, 1, 2, 3}, Data: []uint8{1, 9, 3, 4, 5, 200}}
	attrs := graph.Attrs{"kernel_shape": graph.IntsAttr(2, 2), "storage_order": graph.IntAttr(1)}
	outs := runOp(t, "MaxPool", []opInput{in(x)}, attrs, 2, ExecOptions{})
	checkClose(t, "MaxPool uint8", outs[0], []int{1, 1, 1, 2}, []float64{9, 200}, 0)
	// Column-major positions: (0,1) -> 1*2+0 = 2, (1,2) -> 2*2+1 = 5.
	checkClose(t, "MaxPool indices column-major", outs[1], []int{1, 1, 1, 2}, []float64{2, 5}, 0)
}

func TestGlobalAveragePool(t *testing.T) {
	x := seqTensor(2, 2, 2, 3)
	bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
		got := runOp(t, "GlobalAveragePool", []opInput{in(x)}, nil, 1, opts)[0]
		checkClose(t, "GlobalAveragePool", got, []int{2, 2, 1, 1}, []float64{2.5, 8.5, 14.5, 20.5}, 1e-6)
	})
}

func TestMatMulAgainstNaive(t *testing.T) {
	tests := []struct{ a, b []int }{
		{[]int{3, 4}, []int{4, 5}},
		{[]int{4}, []int{4, 5}},
		{[]int{3, 4}, []int{4}},
		{[]int{4}, []int{4}},
		{[]int{2, 3, 4}, []int{4, 5}},        // flattened
		{[]int{2, 3, 4}, []int{2, 4, 5}},     // batched
		{[]int{2, 1, 3, 4}, []int{3, 4, 2}},  // broadcast batch
		{[]int{3, 4}, []int{2, 4, 5}},        // shared A
		{[]int{8, 16, 32}, []int{8, 32, 16}}, // batch-parallel
		{[]int{300, 200}, []int{200, 260}},   // tiled, parallel
		{[]int{2, 0, 4}, []int{4, 3}},        // empty
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, tc := range tests {
		a := randTensor(r, -1, 1, tc.a...)
		b := randTensor(r, -1, 1, tc.b...)
		as, bs := tc.a, tc.b
		if len(as) == 1 {
			as = []int{1, as[0]}
		}
		if len(bs) == 1 {
			bs = []int{bs[0], 1}
		}
		m, k, n := as[len(as)-2], as[len(as)-1], bs[len(bs)-1]
		batch := broadcastShape(as[:len(as)-2], bs[:len(bs)-2])
		full := append(append([]int{}, batch...), m, n)
		want := make([]float64, graph.NumElements(full))
		for i := range want {
			idx := unravel(i, full)
			bi := idx[:len(batch)]
			aBase := bcastIndex(bi, as[:len(as)-2]) * m * k
			bBase := bcastIndex(bi, bs[:len(bs)-2]) * k * n
			row, col := idx[len(batch)], idx[len(batch)+1]
			s := 0.0
			for l := 0; l < k; l++ {
				s += float64(a.Float32s()[aBase+row*k+l]) * float64(b.Float32s()[bBase+l*n+col])
			}
			want[i] = s
		}
		shape := append([]int{}, batch...)
		if len(tc.a) > 1 {
			shape = append(shape, m)
		}
		if len(tc.b) > 1 {
			shape = append(shape, n)
		}
		bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
			got := runOp(t, "MatMul", []opInput{in(a), in(b)}, nil, 1, opts)[0]
			checkClose(t, fmt.Sprintf("MatMul %v x %v", tc.a, tc.b), got, shape, want, 1e-4)
		})
	}
}

func TestGemmAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const m, k, n = 5, 7, 3
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			for _, cShape := range [][]int{nil, {n}, {m, 1}, {m, n}, {}} {
				as, bs := []int{m, k}, []int{k, n}
				if tA {
					as = []int{k, m}
				}
				if tB {
					bs = []int{n, k}
				}
				a, b := randTensor(r, -1, 1, as...), randTensor(r, -1, 1, bs...)
				c := randTensor(r, -1, 1, cShape...)
				want := make([]float64, m*n)
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						s := 0.0
						for l := 0; l < k; l++ {
							av := a.Float32s()[i*k+l]
							if tA {
								av = a.Float32s()[l*m+i]
							}
							bv := b.Float32s()[l*n+j]
							if tB {
								bv = b.Float32s()[j*k+l]
							}
							s += float64(av) * float64(bv)
						}
						want[i*n+j] = 0.5 * s
						if cShape != nil {
							want[i*n+j] += 2 * float64(c.Float32s()[bcastIndex([]int{i, j}, cShape)])
						}
					}
				}
				attrs := graph.Attrs{"alpha": graph.FloatAttr(0.5), "beta": graph.FloatAttr(2),
					"transA": graph.IntAttr(b2i(tA)), "transB": graph.IntAttr(b2i(tB))}
				ins := []opInput{in(a), konst(b)}
				if cShape != nil {
					ins = append(ins, konst(c))
				}
				bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
					got := runOp(t, "Gemm", ins, attrs, 1, opts)[0]
					checkClose(t, fmt.Sprintf("Gemm tA=%v tB=%v C%v", tA, tB, cShape), got, []int{m, n}, want, 1e-5)
				})
			}
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestResize(t *testing.T) {
	x := graph.FromFloat32([]float32{1, 2, 3, 4}, 1, 1, 2, 2)
	tests := []struct {
		name  string
		attrs graph.Attrs
		scale []float32
		shape []int
		want  []float64
	}{
		{"nearest asymmetric x2", graph.Attrs{"mode": graph.StringAttr("nearest"), "coordinate_transformation_mode": graph.StringAttr("asymmetric")},
			[]float32{1, 1, 2, 2}, []int{1, 1, 4, 4}, []float64{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}},
		{"linear half_pixel x2", graph.Attrs{"mode": graph.StringAttr("linear")},
			[]float32{1, 1, 2, 2}, []int{1, 1, 4, 4}, []float64{
				1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4}},
		{"linear align_corners x1.5", graph.Attrs{"mode": graph.StringAttr("linear"), "coordinate_transformation_mode": graph.StringAttr("align_corners")},
			[]float32{1, 1, 1.5, 1.5}, []int{1, 1, 3, 3}, []float64{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}},
		{"tf_crop_and_resize extrapolation", graph.Attrs{"mode": graph.StringAttr("linear"), "coordinate_transformation_mode": graph.StringAttr("tf_crop_and_resize"), "extrapolation_value": graph.FloatAttr(-7)},
			[]float32{1, 1, 1, 1}, []int{1, 1, 2, 2}, nil},
	}
	for _, tc := range tests {
		ins := []opInput{in(x), absentInput, konst(graph.FromFloat32(tc.scale, 4))}
		want := tc.want
		if tc.want == nil {
			// roi [0.5, 1.5] on both spatial axes: output 0 samples the
			// centre (2.5), output 1 lies outside and takes the
			// extrapolation value.
			ins[1] = konst(graph.FromFloat32([]float32{0, 0, 0.5, 0.5, 1, 1, 1.5, 1.5}, 8))
			want = []float64{2.5, -7, -7, -7}
		}
		bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
			got := runOp(t, "Resize", ins, tc.attrs, 1, opts)[0]
			checkClose(t, "Resize "+tc.name, got, tc.shape, want, 1e-6)
		})
	}
	// sizes instead of scales, int64 data through the nearest gather.
	xi := graph.FromInt64([]int64{1, 2, 3, 4, 5, 6}, 2, 3)
	got := runOp(t, "Resize", []opInput{in(xi), absentInput, absentInput, konst(ints64(1, 2))}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Resize sizes int64", got, []int{1, 2}, []float64{1, 3}, 0)
}
