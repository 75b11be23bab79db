package graph

import (
	"math"
	"testing"
)

// Shape and data-movement ops, including the forms older opsets map to
// (absent optional inputs that earlier opsets did not have).
func TestInferTensorOps(t *testing.T) {
	runInferCases(t, []inferCase{
		{name: "0 and -1", op: "Reshape", args: []arg{f32(2, 3, 4), ints(0, -1)}, want: []string{"2x12"}},
		{name: "-1 only", op: "Reshape", args: []arg{f32(2, 3, 4), ints(-1)}, want: []string{"24"}},
		{name: "0 in middle", op: "Reshape", args: []arg{f32(2, 3, 4), ints(4, 0, -1)}, want: []string{"4x3x2"}},
		{name: "to scalar", op: "Reshape", args: []arg{f32(1, 1), ints()}, want: []string{"scalar"}},
		{name: "allowzero", op: "Reshape", args: []arg{f32(0, 3), ints(0, 3)}, attrs: Attrs{"allowzero": IntAttr(1)}, want: []string{"0x3"}},
		{name: "0 copies without allowzero", op: "Reshape", args: []arg{f32(0, 3), ints(0, 3)}, want: []string{"0x3"}},
		{name: "int32 shape", op: "Reshape", args: []arg{f32(6), {val: &Tensor{DType: Int32, Shape: []int{2}, Data: []int32{2, 3}}}}, want: []string{"2x3"}},
		{name: "two -1", op: "Reshape", args: []arg{f32(2, 3), ints(-1, -1)}, err: "more than one -1"},
		{name: "size mismatch", op: "Reshape", args: []arg{f32(2, 3), ints(4, 2)}, err: "cannot reshape"},
		{name: "-1 indivisible", op: "Reshape", args: []arg{f32(2, 3), ints(4, -1)}, err: "cannot reshape"},
		{name: "unknown shape", op: "Reshape", args: []arg{f32(2, 3), i64(2)}, err: "input 1 \"in1\" (shape) must be a constant"},
		{name: "float shape", op: "Reshape", args: []arg{f32(2, 3), floats(6)}, err: "want int64"},

		{name: "axis 2", op: "Flatten", args: []arg{f32(2, 3, 4, 5)}, attrs: Attrs{"axis": IntAttr(2)}, want: []string{"6x20"}},
		{name: "default", op: "Flatten", args: []arg{f32(2, 3, 4)}, want: []string{"2x12"}},
		{name: "axis 0", op: "Flatten", args: []arg{f32(2, 3)}, attrs: Attrs{"axis": IntAttr(0)}, want: []string{"1x6"}},
		{name: "axis -1", op: "Flatten", args: []arg{f32(2, 3, 4)}, attrs: Attrs{"axis": IntAttr(-1)}, want: []string{"6x4"}},
		{name: "axis rank", op: "Flatten", args: []arg{f32(2, 3)}, attrs: Attrs{"axis": IntAttr(2)}, want: []string{"6x1"}},
		{name: "axis too big", op: "Flatten", args: []arg{f32(2, 3)}, attrs: Attrs{"axis": IntAttr(3)}, err: "out of range"},

		{name: "all ones (pre-13 without axes)", op: "Squeeze", args: []arg{f32(1, 3, 1, 5)}, want: []string{"3x5"}},
		{name: "axes -2", op: "Squeeze", args: []arg{f32(1, 3, 1, 5), ints(-2)}, want: []string{"1x3x5"}},
		{name: "not 1", op: "Squeeze", args: []arg{f32(1, 3), ints(1)}, err: "size is not 1"},
		{name: "repeat", op: "Squeeze", args: []arg{f32(1, 3), ints(0, -2)}, err: "repeats"},
		{name: "ends", op: "Unsqueeze", args: []arg{f32(3, 4), ints(0, -1)}, want: []string{"1x3x4x1"}},
		{name: "middle", op: "Unsqueeze", args: []arg{f32(3, 4), ints(1)}, want: []string{"3x1x4"}},
		{name: "scalar", op: "Unsqueeze", args: []arg{f32(), ints(0)}, want: []string{"1"}},
		{name: "out of range", op: "Unsqueeze", args: []arg{f32(3), ints(3)}, err: "out of range"},
		{name: "no axes", op: "Unsqueeze", args: []arg{f32(3)}, err: "at least 2"},

		{name: "default reverses", op: "Transpose", args: []arg{f32(2, 3, 4)}, want: []string{"4x3x2"}},
		{name: "perm", op: "Transpose", args: []arg{f32(2, 3, 4)}, attrs: Attrs{"perm": IntsAttr(1, 0, 2)}, want: []string{"3x2x4"}},
		{name: "bad perm", op: "Transpose", args: []arg{f32(2, 3, 4)}, attrs: Attrs{"perm": IntsAttr(0, 0, 1)}, err: "not a permutation"},
		{name: "short perm", op: "Transpose", args: []arg{f32(2, 3, 4)}, attrs: Attrs{"perm": IntsAttr(1, 0)}, err: "rank 3"},

		{name: "grow", op: "Expand", args: []arg{f32(3, 1), ints(2, 1, 6)}, want: []string{"2x3x6"}},
		{name: "smaller shape", op: "Expand", args: []arg{f32(3, 1), ints(1)}, want: []string{"3x1"}},
		{name: "incompatible", op: "Expand", args: []arg{f32(3, 2), ints(4)}, err: "cannot broadcast"},

		{name: "axis 1", op: "Concat", args: []arg{f32(2, 3), f32(2, 5)}, attrs: Attrs{"axis": IntAttr(1)}, want: []string{"2x8"}},
		{name: "axis -1 three", op: "Concat", args: []arg{i64(1), i64(2), i64(3)}, attrs: Attrs{"axis": IntAttr(-1)}, want: []string{"6"}},
		{name: "off-axis mismatch", op: "Concat", args: []arg{f32(2, 3), f32(3, 3)}, attrs: Attrs{"axis": IntAttr(1)}, err: "differs"},
		{name: "rank mismatch", op: "Concat", args: []arg{f32(2, 3), f32(3)}, attrs: Attrs{"axis": IntAttr(0)}, err: "rank differs"},
		{name: "dtype mismatch", op: "Concat", args: []arg{f32(2), i64(2)}, attrs: Attrs{"axis": IntAttr(0)}, err: "mismatched"},

		{name: "equal (pre-18 form)", op: "Split", args: []arg{f32(6, 4)}, nOut: 3, want: []string{"2x4", "2x4", "2x4"}},
		{name: "split input (13+)", op: "Split", args: []arg{f32(6, 4), ints(1, 5)}, nOut: 2, want: []string{"1x4", "5x4"}},
		{name: "axis -1", op: "Split", args: []arg{f32(6, 4), ints(3, 1)}, attrs: Attrs{"axis": IntAttr(-1)}, nOut: 2, want: []string{"6x3", "6x1"}},
		{name: "num_outputs uneven (18+)", op: "Split", args: []arg{f32(10)}, attrs: Attrs{"num_outputs": IntAttr(4)}, nOut: 4,
			want: []string{"3", "3", "3", "1"}},
		{name: "num_outputs even", op: "Split", args: []arg{f32(2, 8)}, attrs: Attrs{"num_outputs": IntAttr(2), "axis": IntAttr(1)}, nOut: 2,
			want: []string{"2x4", "2x4"}},
		{name: "num_outputs count", op: "Split", args: []arg{f32(10)}, attrs: Attrs{"num_outputs": IntAttr(3)}, nOut: 2, err: "num_outputs is 3"},
		{name: "uneven without num_outputs", op: "Split", args: []arg{f32(7)}, nOut: 2, err: "does not split evenly"},
		{name: "bad sum", op: "Split", args: []arg{f32(7), ints(3, 3)}, nOut: 2, err: "sums to 6"},
		{name: "count", op: "Split", args: []arg{f32(7), ints(3, 4)}, nOut: 3, err: "3 outputs"},

		{name: "basic", op: "Slice", args: []arg{f32(10), ints(2), ints(8)}, want: []string{"6"}},
		{name: "int64 max end", op: "Slice", args: []arg{f32(10), ints(1), ints(math.MaxInt64)}, want: []string{"9"}},
		{name: "reverse all", op: "Slice", args: []arg{f32(10), ints(-1), ints(math.MinInt64), absent, ints(-1)}, want: []string{"10"}},
		{name: "reverse -11", op: "Slice", args: []arg{f32(10), ints(-1), ints(-11), ints(0), ints(-1)}, want: []string{"10"}},
		// 8, 5, 2
		{name: "step -3", op: "Slice", args: []arg{f32(10), ints(8), ints(1), ints(0), ints(-3)}, want: []string{"3"}},
		// start clamps to 9: 9, 7
		{name: "neg step start past end", op: "Slice", args: []arg{f32(10), ints(20), ints(6), ints(0), ints(-2)}, want: []string{"2"}},
		// 0, 2, 4 on the last axis
		{name: "axes -1 step 2", op: "Slice", args: []arg{f32(4, 10), ints(0), ints(5), ints(-1), ints(2)}, want: []string{"4x3"}},
		{name: "two axes", op: "Slice", args: []arg{f32(4, 10, 6), ints(1, -3), ints(3, 100), ints(0, 2)}, want: []string{"2x10x3"}},
		{name: "empty", op: "Slice", args: []arg{f32(10), ints(12), ints(20)}, want: []string{"0"}},
		{name: "backwards with positive step", op: "Slice", args: []arg{f32(10), ints(5), ints(2)}, want: []string{"0"}},
		{name: "step 0", op: "Slice", args: []arg{f32(10), ints(0), ints(5), ints(0), ints(0)}, err: "contains 0"},
		{name: "length mismatch", op: "Slice", args: []arg{f32(10, 3), ints(0, 0), ints(5)}, err: "equal lengths"},
		{name: "repeated axis", op: "Slice", args: []arg{f32(10, 3), ints(0, 0), ints(5, 5), ints(0, -2)}, err: "repeats"},
		{name: "unknown starts", op: "Slice", args: []arg{f32(10), i64(1), ints(5)}, err: "(starts) must be a constant"},

		{name: "axis 1", op: "Gather", args: []arg{f32(5, 4, 3), ints(0, 2)}, attrs: Attrs{"axis": IntAttr(1)}, want: []string{"5x2x3"}},
		{name: "scalar index", op: "Gather", args: []arg{f32(5, 4), scalarI64(-1)}, want: []string{"4"}},
		{name: "2d indices", op: "Gather", args: []arg{f32(5, 4), i32(2, 3)}, want: []string{"2x3x4"}},
		{name: "out of range", op: "Gather", args: []arg{f32(5, 4), ints(5)}, err: "out of range"},
		{name: "float indices", op: "Gather", args: []arg{f32(5, 4), f32(2)}, err: "int32 or int64"},

		{name: "all axes", op: "Pad", args: []arg{f32(1, 3, 4, 4), ints(0, 0, 1, 1, 0, 0, 1, 1)}, want: []string{"1x3x6x6"}},
		{name: "axes (18+)", op: "Pad", args: []arg{f32(1, 3, 4, 4), ints(1, 1, 2, 2), absent, ints(2, -1)}, want: []string{"1x3x7x7"}},
		{name: "negative crops", op: "Pad", args: []arg{f32(5, 5), ints(-1, 0, -2, 0)}, want: []string{"2x5"}},
		{name: "value", op: "Pad", args: []arg{f32(2), ints(1, 1), f32()}, attrs: Attrs{"mode": StringAttr("reflect")}, want: []string{"4"}},
		{name: "value dtype", op: "Pad", args: []arg{f32(2), ints(1, 1), f64()}, err: "mismatched"},
		{name: "bad length", op: "Pad", args: []arg{f32(2, 2), ints(1, 1)}, err: "want 4"},
		{name: "bad mode", op: "Pad", args: []arg{f32(2), ints(1, 1)}, attrs: Attrs{"mode": StringAttr("mirror")}, err: "mode"},
		{name: "too negative", op: "Pad", args: []arg{f32(2), ints(-2, -1)}, err: "negative"},

		{name: "scales", op: "Resize", args: []arg{f32(1, 3, 10, 10), absent, floats(1, 1, 2, 2)}, want: []string{"1x3x20x20"}},
		{name: "fractional scales", op: "Resize", args: []arg{f32(1, 3, 10, 10), absent, floats(1, 1, 0.5, 1.55)}, want: []string{"1x3x5x15"}},
		{name: "sizes", op: "Resize", args: []arg{f32(1, 3, 10, 10), absent, absent, ints(1, 3, 7, 9)}, want: []string{"1x3x7x9"}},
		{name: "empty roi and scales", op: "Resize", args: []arg{f32(1, 3, 10, 10), floats(), floats(), ints(1, 3, 7, 9)}, want: []string{"1x3x7x9"}},
		{name: "axes", op: "Resize", args: []arg{f32(1, 3, 10, 10), absent, absent, ints(5, 6)}, attrs: Attrs{"axes": IntsAttr(2, 3)}, want: []string{"1x3x5x6"}},
		// scale min(5/10, 5/20) = 0.25: round(2.5) = 3, 5
		{name: "not_larger", op: "Resize", args: []arg{f32(1, 3, 10, 20), absent, absent, ints(5, 5)},
			attrs: Attrs{"axes": IntsAttr(2, 3), "keep_aspect_ratio_policy": StringAttr("not_larger")}, want: []string{"1x3x3x5"}},
		{name: "not_smaller", op: "Resize", args: []arg{f32(1, 3, 10, 20), absent, absent, ints(5, 5)},
			attrs: Attrs{"axes": IntsAttr(2, 3), "keep_aspect_ratio_policy": StringAttr("not_smaller")}, want: []string{"1x3x5x10"}},
		{name: "both", op: "Resize", args: []arg{f32(1, 3, 10, 10), absent, floats(1, 1, 2, 2), ints(1, 3, 7, 9)}, err: "only one"},
		{name: "neither", op: "Resize", args: []arg{f32(1, 3, 10, 10)}, err: "must be given"},
		{name: "bad mode", op: "Resize", args: []arg{f32(1, 3, 10, 10), absent, floats(1, 1, 2, 2)}, attrs: Attrs{"mode": StringAttr("area")}, err: "mode"},
		{name: "scales length", op: "Resize", args: []arg{f32(1, 3, 10, 10), absent, floats(2, 2)}, err: "want 4"},
		{name: "unknown scales", op: "Resize", args: []arg{f32(1, 3, 10, 10), absent, f32(4)}, err: "(scales) must be a constant"},
	})
}

func TestInferReduce(t *testing.T) {
	var cases []inferCase
	for _, op := range []string{"ReduceMean", "ReduceSum", "ReduceMax"} {
		cases = append(cases,
			inferCase{name: "axes keepdims", op: op, args: []arg{f32(2, 3, 4), ints(1)}, want: []string{"2x1x4"}},
			inferCase{name: "no keepdims", op: op, args: []arg{f32(2, 3, 4), ints(1)}, attrs: Attrs{"keepdims": IntAttr(0)}, want: []string{"2x4"}},
			inferCase{name: "negative axes", op: op, args: []arg{f32(2, 3, 4), ints(-1, 0)}, want: []string{"1x3x1"}},
			inferCase{name: "all (no axes input)", op: op, args: []arg{f32(2, 3, 4)}, want: []string{"1x1x1"}},
			inferCase{name: "all to scalar", op: op, args: []arg{f32(2, 3, 4)}, attrs: Attrs{"keepdims": IntAttr(0)}, want: []string{"scalar"}},
			inferCase{name: "empty axes noop", op: op, args: []arg{f32(2, 3, 4), ints()}, attrs: Attrs{"noop_with_empty_axes": IntAttr(1)}, want: []string{"2x3x4"}},
			inferCase{name: "int", op: op, args: []arg{i64(2, 3), ints(0)}, want: []string{"1x3"}, dt: []DType{Int64}},
			inferCase{name: "axis out of range", op: op, args: []arg{f32(2, 3), ints(2)}, err: "out of range"},
			inferCase{name: "unknown axes", op: op, args: []arg{f32(2, 3), i64(1)}, err: "(axes) must be a constant"},
		)
	}
	runInferCases(t, cases)
}
