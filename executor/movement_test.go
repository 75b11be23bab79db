package executor

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// seqTensor returns a float32 tensor holding 0, 1, 2, ...
func seqTensor(shape ...int) *graph.Tensor {
	d := make([]float32, graph.NumElements(shape))
	for i := range d {
		d[i] = float32(i)
	}
	return graph.FromFloat32(d, shape...)
}

func TestTranspose(t *testing.T) {
	tests := []struct {
		shape []int
		perm  []int64
	}{
		{[]int{2, 3}, nil},
		{[]int{2, 3, 4}, []int64{1, 0, 2}},
		{[]int{2, 3, 4}, []int64{2, 0, 1}},
		{[]int{2, 3, 4, 5}, []int64{0, 2, 3, 1}},
		{[]int{1, 64, 3, 50}, []int64{0, 3, 1, 2}}, // tiled path
		{[]int{300, 200}, []int64{1, 0}},           // tiled, parallel
	}
	for _, tc := range tests {
		x := seqTensor(tc.shape...)
		r := len(tc.shape)
		perm := make([]int, r)
		for i := range perm {
			perm[i] = r - 1 - i
			if tc.perm != nil {
				perm[i] = int(tc.perm[i])
			}
		}
		out := make([]int, r)
		for i, p := range perm {
			out[i] = tc.shape[p]
		}
		want := make([]float64, x.Len())
		xs := strides(tc.shape)
		for i := range want {
			idx := unravel(i, out)
			f := 0
			for a, p := range perm {
				f += idx[a] * xs[p]
			}
			want[i] = float64(f)
		}
		var attrs graph.Attrs
		if tc.perm != nil {
			attrs = graph.Attrs{"perm": graph.IntsAttr(tc.perm...)}
		}
		bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
			got := runOp(t, "Transpose", []opInput{in(x)}, attrs, 1, opts)[0]
			checkClose(t, "Transpose", got, out, want, 0)
		})
	}
}

func TestSlice(t *testing.T) {
	x := seqTensor(4, 5, 6)
	tests := []struct {
		name                      string
		starts, ends, axes, steps []int64
		shape                     []int
		at                        func(i, j, k int) (int, int, int)
	}{
		{"basic", []int64{1, 0}, []int64{3, 4}, []int64{0, 2}, nil, []int{2, 5, 4},
			func(i, j, k int) (int, int, int) { return i + 1, j, k }},
		{"negative step", []int64{-1}, []int64{-100}, []int64{1}, []int64{-2}, []int{4, 3, 6},
			func(i, j, k int) (int, int, int) { return i, 4 - 2*j, k }},
		{"clamped", []int64{-100, 2}, []int64{100, 1000}, []int64{0, -1}, []int64{3, 1}, []int{2, 5, 4},
			func(i, j, k int) (int, int, int) { return 3 * i, j, k + 2 }},
		{"empty", []int64{3}, []int64{1}, []int64{2}, nil, []int{4, 5, 0}, nil},
	}
	for _, tc := range tests {
		ins := []opInput{in(x), konst(ints64(tc.starts...)), konst(ints64(tc.ends...)), konst(ints64(tc.axes...))}
		if tc.steps != nil {
			ins = append(ins, konst(ints64(tc.steps...)))
		}
		want := make([]float64, graph.NumElements(tc.shape))
		for f := range want {
			idx := unravel(f, tc.shape)
			a, b, c := tc.at(idx[0], idx[1], idx[2])
			want[f] = float64((a*5+b)*6 + c)
		}
		got := runOp(t, "Slice", ins, nil, 1, ExecOptions{})[0]
		checkClose(t, "Slice "+tc.name, got, tc.shape, want, 0)
	}
}

func TestConcatSplit(t *testing.T) {
	a, b := seqTensor(2, 1, 3), seqTensor(2, 2, 3)
	got := runOp(t, "Concat", []opInput{in(a), in(b)}, graph.Attrs{"axis": graph.IntAttr(1)}, 1, ExecOptions{})[0]
	checkClose(t, "Concat", got, []int{2, 3, 3}, []float64{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0)
	x := seqTensor(2, 5)
	outs := runOp(t, "Split", []opInput{in(x), konst(ints64(2, 3))}, graph.Attrs{"axis": graph.IntAttr(-1)}, 2, ExecOptions{})
	checkClose(t, "Split 0", outs[0], []int{2, 2}, []float64{0, 1, 5, 6}, 0)
	checkClose(t, "Split 1", outs[1], []int{2, 3}, []float64{2, 3, 4, 7, 8, 9}, 0)
	outs = runOp(t, "Split", []opInput{in(x)}, nil, 2, ExecOptions{})
	checkClose(t, "Split equal", outs[1], []int{1, 5}, []float64{5, 6, 7, 8, 9}, 0)
	bools := &graph.Tensor{DType: graph.Bool, Shape: []int{2}, Data: []bool{true, false}}
	got = runOp(t, "Concat", []opInput{in(bools), in(bools)}, graph.Attrs{"axis": graph.IntAttr(0)}, 1, ExecOptions{})[0]
	if !slices.Equal(got.Data.([]bool), []bool{true, false, true, false}) {
		t.Fatalf("Concat bool = %v", got.Data)
	}
}

func TestPad(t *testing.T) {
	x := graph.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	tests := []struct {
		mode  string
		pads  []int64
		shape []int
		want  []float64
	}{
		{"constant", []int64{1, 0, 0, 1}, []int{3, 4}, []float64{9, 9, 9, 9, 1, 2, 3, 9, 4, 5, 6, 9}},
		{"constant", []int64{0, -1, 0, 0}, []int{2, 2}, []float64{2, 3, 5, 6}},
		{"reflect", []int64{0, 2, 0, 1}, []int{2, 6}, []float64{3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5}},
		{"edge", []int64{1, 1, 0, 0}, []int{3, 4}, []float64{1, 1, 2, 3, 1, 1, 2, 3, 4, 4, 5, 6}},
		{"wrap", []int64{0, 1, 0, 2}, []int{2, 6}, []float64{3, 1, 2, 3, 1, 2, 6, 4, 5, 6, 4, 5}},
	}
	for _, tc := range tests {
		bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
			got := runOp(t, "Pad", []opInput{in(x), konst(ints64(tc.pads...)), in(scalarF(9))},
				graph.Attrs{"mode": graph.StringAttr(tc.mode)}, 1, opts)[0]
			checkClose(t, "Pad "+tc.mode, got, tc.shape, tc.want, 0)
		})
	}
	// axes input: pad only the last axis.
	got := runOp(t, "Pad", []opInput{in(x), konst(ints64(1, 0)), absentInput, konst(ints64(-1))}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Pad axes", got, []int{2, 4}, []float64{0, 1, 2, 3, 0, 4, 5, 6}, 0)
}

func TestExpandGather(t *testing.T) {
	x := graph.FromFloat32([]float32{1, 2, 3}, 3, 1)
	got := runOp(t, "Expand", []opInput{in(x), konst(ints64(2, 1, 2))}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Expand", got, []int{2, 3, 2}, []float64{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}, 0)

	data := seqTensor(3, 4)
	idx := graph.FromInt64([]int64{2, -3, 0, 2}, 2, 2)
	got = runOp(t, "Gather", []opInput{in(data), in(idx)}, graph.Attrs{"axis": graph.IntAttr(1)}, 1, ExecOptions{})[0]
	checkClose(t, "Gather axis 1", got, []int{3, 2, 2}, []float64{2, 1, 0, 2, 6, 5, 4, 6, 10, 9, 8, 10}, 0)
	idx32 := &graph.Tensor{DType: graph.Int32, Shape: []int{2}, Data: []int32{2, 0}}
	got = runOp(t, "Gather", []opInput{in(data), in(idx32)}, nil, 1, ExecOptions{})[0]
	checkClose(t, "Gather axis 0 int32", got, []int{2, 4}, []float64{8, 9, 10, 11, 0, 1, 2, 3}, 0)
	if _, err := tryOp("Gather", []opInput{in(data), in(graph.FromInt64([]int64{3}, 1))}, nil, 1, ExecOptions{}); err == nil {
		t.Fatal("Gather with an out-of-range index did not fail")
	}
}

func TestShapeOps(t *testing.T) {
	x := seqTensor(2, 3, 1)
	flat := []float64{0, 1, 2, 3, 4, 5}
	tests := []struct {
		op    string
		ins   []opInput
		attrs graph.Attrs
		shape []int
	}{
		{"Reshape", []opInput{in(x), konst(ints64(3, -1))}, nil, []int{3, 2}},
		{"Reshape", []opInput{in(x), konst(ints64(0, 3))}, nil, []int{2, 3}},
		{"Flatten", []opInput{in(x)}, graph.Attrs{"axis": graph.IntAttr(2)}, []int{6, 1}},
		{"Squeeze", []opInput{in(x)}, nil, []int{2, 3}},
		{"Squeeze", []opInput{in(x), konst(ints64(-1))}, nil, []int{2, 3}},
		{"Unsqueeze", []opInput{in(x), konst(ints64(0, 4))}, nil, []int{1, 2, 3, 1, 1}},
		{"Identity", []opInput{in(x)}, nil, []int{2, 3, 1}},
		{"Dropout", []opInput{in(x)}, nil, []int{2, 3, 1}},
	}
	for _, tc := range tests {
		got := runOp(t, tc.op, tc.ins, tc.attrs, 1, ExecOptions{})[0]
		checkClose(t, tc.op, got, tc.shape, flat, 0)
	}
	got := runOp(t, "Shape", []opInput{in(x)}, graph.Attrs{"start": graph.IntAttr(1)}, 1, ExecOptions{})[0]
	checkClose(t, "Shape", got, []int{2}, []float64{3, 1}, 0)
	outs := runOp(t, "Dropout", []opInput{in(x), in(scalarF(0.5))}, nil, 2, ExecOptions{})
	if !slices.Equal(outs[1].Data.([]bool), []bool{true, true, true, true, true, true}) {
		t.Fatalf("Dropout mask = %v, want all true", outs[1].Data)
	}
	on := &graph.Tensor{DType: graph.Bool, Data: []bool{true}}
	if _, err := tryOp("Dropout", []opInput{in(x), in(scalarF(0.5)), in(on)}, nil, 1, ExecOptions{}); err == nil {
		t.Fatal("training-mode Dropout with ratio 0.5 did not fail")
	}
	outs = runOp(t, "Dropout", []opInput{in(x), in(scalarF(0)), in(on)}, nil, 1, ExecOptions{})
	checkClose(t, "Dropout training ratio 0", outs[0], []int{2, 3, 1}, flat, 0)
}

func TestConstant(t *testing.T) {
	tests := []struct {
		attrs graph.Attrs
		dt    graph.DType
		want  []float64
	}{
		{graph.Attrs{"value": graph.TensorAttr(graph.FromFloat32([]float32{1, 2}, 2))}, graph.Float32, []float64{1, 2}},
		{graph.Attrs{"value_ints": graph.IntsAttr(4, 5, 6)}, graph.Int64, []float64{4, 5, 6}},
		{graph.Attrs{"value_float": graph.FloatAttr(2.5)}, graph.Float32, []float64{2.5}},
	}
	for _, tc := range tests {
		got := runOp(t, "Constant", nil, tc.attrs, 1, ExecOptions{})[0]
		if got.DType != tc.dt {
			t.Fatalf("Constant dtype %v, want %v", got.DType, tc.dt)
		}
		checkClose(t, "Constant", got, got.Shape, tc.want, 0)
	}
}

func TestReduce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := randTensor(r, -1, 1, 3, 4, 5, 2)
	xs := x.Float32s()
	shape := x.Shape
	tests := []struct {
		axes []int64
		keep bool
	}{
		{[]int64{1}, true}, {[]int64{0, 2}, false}, {[]int64{-1}, true}, {nil, false},
		{[]int64{0, 1, 2, 3}, true}, {[]int64{3, 1}, false},
	}
	for _, op := range []string{"ReduceSum", "ReduceMean", "ReduceMax"} {
		for _, tc := range tests {
			red := make([]bool, 4)
			for _, a := range tc.axes {
				red[(int(a)+4)%4] = true
			}
			if tc.axes == nil {
				red = []bool{true, true, true, true}
			}
			var outShape, keepShape []int
			for a, d := range shape {
				if red[a] {
					keepShape = append(keepShape, 1)
					if tc.keep {
						outShape = append(outShape, 1)
					}
				} else {
					keepShape = append(keepShape, d)
					outShape = append(outShape, d)
				}
			}
			n := graph.NumElements(keepShape)
			want := make([]float64, n)
			cnt := make([]float64, n)
			for i := range want {
				if op == "ReduceMax" {
					want[i] = -1e300
				}
			}
			ks := strides(keepShape)
			for i, v := range xs {
				idx := unravel(i, shape)
				o := 0
				for a := range idx {
					if !red[a] {
						o += idx[a] * ks[a]
					}
				}
				if op == "ReduceMax" {
					want[o] = max(want[o], float64(v))
				} else {
					want[o] += float64(v)
				}
				cnt[o]++
			}
			if op == "ReduceMean" {
				for i := range want {
					want[i] /= cnt[i]
				}
			}
			ins := []opInput{in(x)}
			if tc.axes != nil {
				ins = append(ins, konst(ints64(tc.axes...)))
			}
			keep := int64(0)
			if tc.keep {
				keep = 1
			}
			bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
				got := runOp(t, op, ins, graph.Attrs{"keepdims": graph.IntAttr(keep)}, 1, opts)[0]
				checkClose(t, op, got, outShape, want, 1e-5)
			})
		}
	}
	xi := graph.FromInt64([]int64{1, 2, 3, 4}, 2, 2)
	got := runOp(t, "ReduceMean", []opInput{in(xi), konst(ints64(1))}, nil, 1, ExecOptions{})[0]
	checkClose(t, "ReduceMean int64", got, []int{2, 1}, []float64{1, 3}, 0)
	got = runOp(t, "ReduceSum", []opInput{in(xi), konst(ints64())}, graph.Attrs{"noop_with_empty_axes": graph.IntAttr(1)}, 1, ExecOptions{})[0]
	checkClose(t, "ReduceSum noop", got, []int{2, 2}, []float64{1, 2, 3, 4}, 0)
}
