package graph

import "testing"

// Elementwise ops, broadcasting, dtype rules, normalisation and misc ops.
func TestInferElementwise(t *testing.T) {
	var cases []inferCase
	for _, op := range []string{"Sqrt", "Exp", "Log", "Erf", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid", "HardSwish", "Relu"} {
		cases = append(cases,
			inferCase{name: "f32", op: op, args: []arg{f32(2, 3)}, want: []string{"2x3"}, dt: []DType{Float32}},
			inferCase{name: "f64 scalar", op: op, args: []arg{f64()}, want: []string{"scalar"}, dt: []DType{Float64}},
			inferCase{name: "f16", op: op, args: []arg{{dt: Float16, shape: []int{4}}}, want: []string{"4"}, dt: []DType{Float16}},
		)
	}
	for _, op := range []string{"Sqrt", "Exp", "Log", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid", "HardSwish"} {
		cases = append(cases, inferCase{name: "int rejected", op: op, args: []arg{i64(2)}, err: "floating-point"})
	}
	cases = append(cases,
		inferCase{name: "int", op: "Relu", args: []arg{i32(5)}, want: []string{"5"}, dt: []DType{Int32}},
		inferCase{name: "bool rejected", op: "Relu", args: []arg{boolean(5)}, err: "numeric"},
	)
	for _, op := range []string{"Add", "Sub", "Mul", "Div"} {
		cases = append(cases,
			inferCase{name: "same", op: op, args: []arg{f32(2, 3), f32(2, 3)}, want: []string{"2x3"}, dt: []DType{Float32}},
			inferCase{name: "trailing", op: op, args: []arg{f32(2, 3, 4), f32(4)}, want: []string{"2x3x4"}},
			inferCase{name: "both ways", op: op, args: []arg{f32(2, 1, 4), f32(3, 1)}, want: []string{"2x3x4"}},
			inferCase{name: "scalar", op: op, args: []arg{f32(), f32(2, 2)}, want: []string{"2x2"}},
			inferCase{name: "zero dim", op: op, args: []arg{f32(0, 3), f32(1, 3)}, want: []string{"0x3"}},
			inferCase{name: "int64", op: op, args: []arg{i64(3), i64(1)}, want: []string{"3"}, dt: []DType{Int64}},
			inferCase{name: "incompatible", op: op, args: []arg{f32(2, 3), f32(4, 3)}, err: "cannot broadcast"},
			inferCase{name: "f32+f64", op: op, args: []arg{f32(2), f64(2)}, err: "mismatched input dtypes"},
			inferCase{name: "bool", op: op, args: []arg{boolean(2), boolean(2)}, err: "numeric"},
			inferCase{name: "missing B", op: op, args: []arg{f32(2)}, err: "at least 2"},
		)
	}
	cases = append(cases,
		inferCase{name: "bool out", op: "Equal", args: []arg{i64(2, 1), i64(3)}, want: []string{"2x3"}, dt: []DType{Bool}},
		inferCase{name: "bools", op: "Equal", args: []arg{boolean(2), boolean(2)}, want: []string{"2"}, dt: []DType{Bool}},
		inferCase{name: "mismatch", op: "Equal", args: []arg{i64(2), i32(2)}, err: "mismatched"},
		inferCase{name: "int exponent", op: "Pow", args: []arg{f32(2, 3), i64()}, want: []string{"2x3"}, dt: []DType{Float32}},
		inferCase{name: "broadcast", op: "Pow", args: []arg{f64(3, 1), f64(4)}, want: []string{"3x4"}, dt: []DType{Float64}},
		inferCase{name: "one", op: "Max", args: []arg{f32(2, 3)}, want: []string{"2x3"}},
		inferCase{name: "three", op: "Max", args: []arg{f32(2, 1), f32(1, 3), f32(3)}, want: []string{"2x3"}},
		inferCase{name: "mismatch", op: "Max", args: []arg{f32(2), f32(2), f64(2)}, err: "mismatched"},
		inferCase{name: "two", op: "Min", args: []arg{i64(4, 1), i64(5)}, want: []string{"4x5"}, dt: []DType{Int64}},
		inferCase{name: "none", op: "Min", args: nil, err: "at least 1"},
		inferCase{name: "three way", op: "Where", args: []arg{boolean(2, 1), f32(1, 3), f32(2, 3)}, want: []string{"2x3"}, dt: []DType{Float32}},
		inferCase{name: "cond not bool", op: "Where", args: []arg{f32(2), f32(2), f32(2)}, err: "want bool"},
		inferCase{name: "xy mismatch", op: "Where", args: []arg{boolean(2), f32(2), i64(2)}, err: "mismatched"},
		inferCase{name: "no bounds", op: "Clip", args: []arg{f32(2, 3)}, want: []string{"2x3"}},
		inferCase{name: "max only", op: "Clip", args: []arg{f32(2, 3), absent, f32()}, want: []string{"2x3"}},
		inferCase{name: "both", op: "Clip", args: []arg{i32(4), i32(), i32(1)}, want: []string{"4"}, dt: []DType{Int32}},
		inferCase{name: "bound dtype", op: "Clip", args: []arg{f32(4), f64()}, err: "mismatched"},
		inferCase{name: "bound shape", op: "Clip", args: []arg{f32(4), f32(2)}, err: "scalar"},
	)
	runInferCases(t, cases)
}

func TestInferNormMisc(t *testing.T) {
	runInferCases(t, []inferCase{
		{name: "default axis", op: "Softmax", args: []arg{f32(2, 3, 4)}, want: []string{"2x3x4"}},
		{name: "axis 0", op: "Softmax", args: []arg{f32(2, 3)}, attrs: Attrs{"axis": IntAttr(0)}, want: []string{"2x3"}},
		{name: "axis out of range", op: "Softmax", args: []arg{f32(2, 3)}, attrs: Attrs{"axis": IntAttr(2)}, err: "out of range"},
		{name: "int", op: "Softmax", args: []arg{i64(2)}, err: "floating-point"},

		{name: "Y only", op: "LayerNormalization", args: []arg{f32(2, 5, 8), f32(8), f32(8)}, want: []string{"2x5x8"}},
		{name: "stats last axis", op: "LayerNormalization", args: []arg{f32(2, 5, 8), f32(8)}, nOut: 3,
			want: []string{"2x5x8", "2x5x1", "2x5x1"}, dt: []DType{Float32, Float32, Float32}},
		{name: "stats axis 1", op: "LayerNormalization", args: []arg{f64(2, 5, 8), f64(5, 8)}, nOut: 3,
			attrs: Attrs{"axis": IntAttr(1)}, want: []string{"2x5x8", "2x1x1", "2x1x1"}, dt: []DType{Float64, Float32, Float32}},
		{name: "skip Mean", op: "LayerNormalization", args: []arg{f32(2, 8), f32(8)}, nOut: 3,
			want: []string{"2x8", "-", "2x1"}},
		{name: "bad scale", op: "LayerNormalization", args: []arg{f32(2, 8), f32(4)}, err: "not broadcastable"},
		{name: "bad axis", op: "LayerNormalization", args: []arg{f32(2, 8), f32(8)}, attrs: Attrs{"axis": IntAttr(-3)}, err: "out of range"},

		{name: "inference", op: "BatchNormalization", args: []arg{f32(1, 3, 4, 4), f32(3), f32(3), f32(3), f32(3)}, want: []string{"1x3x4x4"}},
		{name: "old training outputs", op: "BatchNormalization", args: []arg{f32(2, 3, 4), f32(3), f32(3), f32(3), f32(3)}, nOut: 5,
			want: []string{"2x3x4", "3", "3", "3", "3"}},
		{name: "6 outputs", op: "BatchNormalization", args: []arg{f32(2, 3), f32(3), f32(3), f32(3), f32(3)}, nOut: 6, err: "at most 5"},
		{name: "bad param", op: "BatchNormalization", args: []arg{f32(1, 3, 4, 4), f32(3), f32(4), f32(3), f32(3)}, err: "want [3]"},
		{name: "missing var", op: "BatchNormalization", args: []arg{f32(1, 3, 4, 4), f32(3), f32(3), f32(3)}, err: "at least 5"},

		{name: "copy", op: "Identity", args: []arg{{dt: String, shape: []int{2}}}, want: []string{"2"}, dt: []DType{String}},
		{name: "output only", op: "Dropout", args: []arg{f32(2, 3)}, want: []string{"2x3"}},
		{name: "mask", op: "Dropout", args: []arg{f32(2, 3), floats(0.5), absent}, nOut: 2, want: []string{"2x3", "2x3"}, dt: []DType{Float32, Bool}},
		{name: "training_mode", op: "Dropout", args: []arg{f32(2), f32(), boolean()}, want: []string{"2"}},
		{name: "ratio int", op: "Dropout", args: []arg{f32(2), i64()}, err: "floating-point"},

		{name: "value_ints", op: "Constant", attrs: Attrs{"value_ints": IntsAttr(1, 2, 3)}, want: []string{"3"}, dt: []DType{Int64}},
		{name: "value_float", op: "Constant", attrs: Attrs{"value_float": FloatAttr(2)}, want: []string{"scalar"}, dt: []DType{Float32}},
		{name: "value_floats", op: "Constant", attrs: Attrs{"value_floats": FloatsAttr(1, 2)}, want: []string{"2"}, dt: []DType{Float32}},
		{name: "value_int", op: "Constant", attrs: Attrs{"value_int": IntAttr(7)}, want: []string{"scalar"}, dt: []DType{Int64}},
		{name: "value_string", op: "Constant", attrs: Attrs{"value_string": StringAttr("a")}, want: []string{"scalar"}, dt: []DType{String}},
		{name: "value_strings", op: "Constant", attrs: Attrs{"value_strings": StringsAttr("a", "b")}, want: []string{"2"}, dt: []DType{String}},
		{name: "value", op: "Constant", attrs: Attrs{"value": TensorAttr(NewTensor(Float64, 2, 2))}, want: []string{"2x2"}, dt: []DType{Float64}},
		{name: "none", op: "Constant", err: "exactly one"},
		{name: "two", op: "Constant", attrs: Attrs{"value_int": IntAttr(1), "value_float": FloatAttr(1)}, err: "exactly one"},

		{name: "all", op: "Shape", args: []arg{f32(2, 3, 4)}, want: []string{"3"}, dt: []DType{Int64}},
		{name: "start", op: "Shape", args: []arg{f32(2, 3, 4)}, attrs: Attrs{"start": IntAttr(1)}, want: []string{"2"}},
		{name: "end -1", op: "Shape", args: []arg{f32(2, 3, 4)}, attrs: Attrs{"end": IntAttr(-1)}, want: []string{"2"}},
		{name: "start past end", op: "Shape", args: []arg{f32(2, 3, 4)}, attrs: Attrs{"start": IntAttr(5)}, want: []string{"0"}},
		{name: "scalar", op: "Shape", args: []arg{f32()}, want: []string{"0"}},

		{name: "to int64", op: "Cast", args: []arg{f32(2, 3)}, attrs: Attrs{"to": IntAttr(int64(Int64))}, want: []string{"2x3"}, dt: []DType{Int64}},
		{name: "to float16", op: "Cast", args: []arg{i64(4)}, attrs: Attrs{"to": IntAttr(int64(Float16))}, want: []string{"4"}, dt: []DType{Float16}},
		{name: "bad to", op: "Cast", args: []arg{f32(2)}, attrs: Attrs{"to": IntAttr(99)}, err: "not a valid dtype"},
	})
}
