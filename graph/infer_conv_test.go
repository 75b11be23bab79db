package graph

import "testing"

// Conv, ConvTranspose, pooling, MatMul and Gemm shapes against
// hand-computed numbers.
func TestInferConvPool(t *testing.T) {
	runInferCases(t, []inferCase{
		// (224 + 3 + 3 - 7) / 2 + 1 = 112
		{name: "resnet stem", op: "Conv", args: []arg{f32(1, 3, 224, 224), f32(64, 3, 7, 7)},
			attrs: Attrs{"strides": IntsAttr(2, 2), "pads": IntsAttr(3, 3, 3, 3)}, want: []string{"1x64x112x112"}, dt: []DType{Float32}},
		{name: "bias", op: "Conv", args: []arg{f32(2, 3, 8, 8), f32(4, 3, 3, 3), f32(4)}, want: []string{"2x4x6x6"}},
		{name: "same upper odd", op: "Conv", args: []arg{f32(1, 3, 225, 225), f32(8, 3, 3, 3)},
			attrs: Attrs{"auto_pad": StringAttr("SAME_UPPER"), "strides": IntsAttr(2, 2)}, want: []string{"1x8x113x113"}},
		{name: "same lower", op: "Conv", args: []arg{f32(1, 3, 10, 10), f32(8, 3, 4, 4)},
			attrs: Attrs{"auto_pad": StringAttr("SAME_LOWER")}, want: []string{"1x8x10x10"}},
		// (10 - 3) / 3 + 1 = 3
		{name: "valid strided", op: "Conv", args: []arg{f32(1, 1, 10, 10), f32(1, 1, 3, 3)},
			attrs: Attrs{"auto_pad": StringAttr("VALID"), "strides": IntsAttr(3, 3), "pads": IntsAttr(5, 5, 5, 5)}, want: []string{"1x1x3x3"}},
		// dilated kernel (3-1)*2+1 = 5: 10 - 5 + 1 = 6
		{name: "dilation", op: "Conv", args: []arg{f32(1, 1, 10, 10), f32(1, 1, 3, 3)},
			attrs: Attrs{"dilations": IntsAttr(2, 2)}, want: []string{"1x1x6x6"}},
		{name: "group", op: "Conv", args: []arg{f32(1, 4, 8, 8), f32(8, 2, 3, 3)},
			attrs: Attrs{"group": IntAttr(2)}, want: []string{"1x8x6x6"}},
		{name: "depthwise", op: "Conv", args: []arg{f32(1, 32, 16, 16), f32(32, 1, 3, 3)},
			attrs: Attrs{"group": IntAttr(32), "pads": IntsAttr(1, 1, 1, 1)}, want: []string{"1x32x16x16"}},
		{name: "1d asymmetric pads", op: "Conv", args: []arg{f32(1, 2, 10), f32(4, 2, 3)},
			attrs: Attrs{"pads": IntsAttr(2, 0)}, want: []string{"1x4x10"}},
		{name: "3d", op: "Conv", args: []arg{f32(1, 1, 4, 6, 8), f32(2, 1, 3, 3, 3)}, want: []string{"1x2x2x4x6"}},
		{name: "float64", op: "Conv", args: []arg{f64(1, 1, 5, 5), f64(1, 1, 3, 3)}, want: []string{"1x1x3x3"}, dt: []DType{Float64}},
		{name: "group mismatch", op: "Conv", args: []arg{f32(1, 4, 8, 8), f32(8, 3, 3, 3)},
			attrs: Attrs{"group": IntAttr(2)}, err: "channels"},
		{name: "bad bias", op: "Conv", args: []arg{f32(1, 3, 8, 8), f32(4, 3, 3, 3), f32(5)}, err: "bias"},
		{name: "dtype mismatch", op: "Conv", args: []arg{f32(1, 3, 8, 8), f64(4, 3, 3, 3)}, err: "mismatched"},
		{name: "int input", op: "Conv", args: []arg{i64(1, 3, 8, 8), i64(4, 3, 3, 3)}, err: "floating-point"},
		{name: "kernel too big", op: "Conv", args: []arg{f32(1, 3, 2, 2), f32(4, 3, 3, 3)}, err: "smaller than the dilated kernel"},
		{name: "kernel_shape disagrees", op: "Conv", args: []arg{f32(1, 3, 8, 8), f32(4, 3, 3, 3)},
			attrs: Attrs{"kernel_shape": IntsAttr(5, 5)}, err: "kernel_shape"},
		{name: "bad pads length", op: "Conv", args: []arg{f32(1, 3, 8, 8), f32(4, 3, 3, 3)},
			attrs: Attrs{"pads": IntsAttr(1, 1)}, err: "pads"},
		{name: "bad auto_pad", op: "Conv", args: []arg{f32(1, 3, 8, 8), f32(4, 3, 3, 3)},
			attrs: Attrs{"auto_pad": StringAttr("SAME")}, err: "auto_pad"},
		{name: "missing weight", op: "Conv", args: []arg{f32(1, 3, 8, 8), absent}, err: "required input 1"},
		{name: "rank 2", op: "Conv", args: []arg{f32(3, 8), f32(4, 3)}, err: "rank >= 3"},

		// 2*(4-1) + 3 = 9
		{name: "stride 2", op: "ConvTranspose", args: []arg{f32(1, 8, 4, 4), f32(8, 3, 3, 3)},
			attrs: Attrs{"strides": IntsAttr(2, 2)}, want: []string{"1x3x9x9"}},
		// 2*3 + 1 + 3 - 2 = 8
		{name: "pads output_padding", op: "ConvTranspose", args: []arg{f32(1, 8, 4, 4), f32(8, 3, 3, 3)},
			attrs: Attrs{"strides": IntsAttr(2, 2), "pads": IntsAttr(1, 1, 1, 1), "output_padding": IntsAttr(1, 1)}, want: []string{"1x3x8x8"}},
		{name: "output_shape", op: "ConvTranspose", args: []arg{f32(1, 8, 4, 4), f32(8, 3, 3, 3)},
			attrs: Attrs{"strides": IntsAttr(2, 2), "output_shape": IntsAttr(10, 10)}, want: []string{"1x3x10x10"}},
		{name: "group", op: "ConvTranspose", args: []arg{f32(1, 8, 4, 4), f32(8, 3, 3, 3), f32(6)},
			attrs: Attrs{"group": IntAttr(2)}, want: []string{"1x6x6x6"}},
		{name: "same upper", op: "ConvTranspose", args: []arg{f32(1, 8, 4, 4), f32(8, 3, 3, 3)},
			attrs: Attrs{"strides": IntsAttr(2, 2), "auto_pad": StringAttr("SAME_UPPER")}, want: []string{"1x3x8x8"}},
		{name: "dilation", op: "ConvTranspose", args: []arg{f32(1, 1, 5), f32(1, 1, 3)},
			attrs: Attrs{"dilations": IntsAttr(2)}, want: []string{"1x1x9"}},
		{name: "channel mismatch", op: "ConvTranspose", args: []arg{f32(1, 4, 4, 4), f32(8, 3, 3, 3)}, err: "channels"},

		// (112 + 2 - 3) / 2 + 1 = 56
		{name: "resnet pool", op: "MaxPool", args: []arg{f32(1, 64, 112, 112)},
			attrs: Attrs{"kernel_shape": IntsAttr(3, 3), "strides": IntsAttr(2, 2), "pads": IntsAttr(1, 1, 1, 1)}, want: []string{"1x64x56x56"}},
		// floor((6-3)/2)+1 = 2 without ceil_mode, ceil(3/2)+1 = 3 with it
		{name: "floor", op: "MaxPool", args: []arg{f32(1, 1, 6, 6)},
			attrs: Attrs{"kernel_shape": IntsAttr(3, 3), "strides": IntsAttr(2, 2)}, want: []string{"1x1x2x2"}},
		{name: "ceil", op: "MaxPool", args: []arg{f32(1, 1, 6, 6)},
			attrs: Attrs{"kernel_shape": IntsAttr(3, 3), "strides": IntsAttr(2, 2), "ceil_mode": IntAttr(1)}, want: []string{"1x1x3x3"}},
		// ceil gives 3 windows starting at 0, 2, 4; 4 lies in the end padding and is dropped.
		{name: "ceil drops window in padding", op: "MaxPool", args: []arg{f32(1, 1, 3, 3)},
			attrs: Attrs{"kernel_shape": IntsAttr(1, 1), "strides": IntsAttr(2, 2), "pads": IntsAttr(0, 0, 1, 1), "ceil_mode": IntAttr(1)}, want: []string{"1x1x2x2"}},
		{name: "same upper", op: "MaxPool", args: []arg{f32(1, 1, 7, 7)},
			attrs: Attrs{"kernel_shape": IntsAttr(3, 3), "strides": IntsAttr(2, 2), "auto_pad": StringAttr("SAME_UPPER")}, want: []string{"1x1x4x4"}},
		{name: "valid", op: "MaxPool", args: []arg{f32(1, 1, 7, 7)},
			attrs: Attrs{"kernel_shape": IntsAttr(3, 3), "strides": IntsAttr(2, 2), "auto_pad": StringAttr("VALID")}, want: []string{"1x1x3x3"}},
		{name: "dilated", op: "MaxPool", args: []arg{f32(1, 1, 9, 9)},
			attrs: Attrs{"kernel_shape": IntsAttr(3, 3), "dilations": IntsAttr(2, 2)}, want: []string{"1x1x5x5"}},
		{name: "indices", op: "MaxPool", args: []arg{f32(1, 2, 4, 4)}, nOut: 2,
			attrs: Attrs{"kernel_shape": IntsAttr(2, 2), "strides": IntsAttr(2, 2)}, want: []string{"1x2x2x2", "1x2x2x2"}, dt: []DType{Float32, Int64}},
		{name: "int8", op: "MaxPool", args: []arg{{dt: Int8, shape: []int{1, 1, 4}}},
			attrs: Attrs{"kernel_shape": IntsAttr(2)}, want: []string{"1x1x3"}, dt: []DType{Int8}},
		{name: "no kernel", op: "MaxPool", args: []arg{f32(1, 1, 4, 4)}, err: "kernel_shape"},
		{name: "stride 0", op: "MaxPool", args: []arg{f32(1, 1, 4, 4)},
			attrs: Attrs{"kernel_shape": IntsAttr(2, 2), "strides": IntsAttr(0, 1)}, err: "strides"},
		{name: "halve", op: "AveragePool", args: []arg{f32(1, 3, 32, 32)},
			attrs: Attrs{"kernel_shape": IntsAttr(2, 2), "strides": IntsAttr(2, 2)}, want: []string{"1x3x16x16"}},
		{name: "ceil", op: "AveragePool", args: []arg{f32(1, 3, 5, 5)},
			attrs: Attrs{"kernel_shape": IntsAttr(2, 2), "strides": IntsAttr(2, 2), "ceil_mode": IntAttr(1)}, want: []string{"1x3x3x3"}},
		{name: "2d", op: "GlobalAveragePool", args: []arg{f32(2, 3, 7, 7)}, want: []string{"2x3x1x1"}},
		{name: "1d", op: "GlobalAveragePool", args: []arg{f32(2, 3, 7)}, want: []string{"2x3x1"}},
	})
}

func TestInferMatMulGemm(t *testing.T) {
	runInferCases(t, []inferCase{
		{name: "2d", op: "MatMul", args: []arg{f32(2, 3), f32(3, 4)}, want: []string{"2x4"}},
		{name: "batch broadcast", op: "MatMul", args: []arg{f32(5, 1, 2, 3), f32(4, 3, 6)}, want: []string{"5x4x2x6"}},
		{name: "batch times 2d", op: "MatMul", args: []arg{f32(8, 2, 3), f32(3, 4)}, want: []string{"8x2x4"}},
		{name: "1d left", op: "MatMul", args: []arg{f32(3), f32(3, 4)}, want: []string{"4"}},
		{name: "1d right", op: "MatMul", args: []arg{f32(2, 3), f32(3)}, want: []string{"2"}},
		{name: "1d both", op: "MatMul", args: []arg{f32(3), f32(3)}, want: []string{"scalar"}},
		{name: "1d left batched right", op: "MatMul", args: []arg{f32(3), f32(7, 3, 4)}, want: []string{"7x4"}},
		{name: "batched 1d right", op: "MatMul", args: []arg{f32(5, 2, 3), f32(3)}, want: []string{"5x2"}},
		{name: "int32", op: "MatMul", args: []arg{i32(2, 3), i32(3, 4)}, want: []string{"2x4"}, dt: []DType{Int32}},
		{name: "inner mismatch", op: "MatMul", args: []arg{f32(2, 3), f32(4, 5)}, err: "inner"},
		{name: "batch mismatch", op: "MatMul", args: []arg{f32(2, 2, 3), f32(3, 3, 4)}, err: "broadcast"},
		{name: "scalar", op: "MatMul", args: []arg{f32(), f32(3)}, err: "rank >= 1"},
		{name: "dtype mismatch", op: "MatMul", args: []arg{f32(2, 3), f64(3, 4)}, err: "mismatched"},

		{name: "plain", op: "Gemm", args: []arg{f32(4, 3), f32(3, 5)}, want: []string{"4x5"}},
		{name: "transA", op: "Gemm", args: []arg{f32(3, 4), f32(3, 5)}, attrs: Attrs{"transA": IntAttr(1)}, want: []string{"4x5"}},
		{name: "transB", op: "Gemm", args: []arg{f32(4, 3), f32(5, 3)}, attrs: Attrs{"transB": IntAttr(1)}, want: []string{"4x5"}},
		{name: "both", op: "Gemm", args: []arg{f32(3, 4), f32(5, 3)}, attrs: Attrs{"transA": IntAttr(1), "transB": IntAttr(1)}, want: []string{"4x5"}},
		{name: "C vector", op: "Gemm", args: []arg{f32(4, 3), f32(3, 5), f32(5)}, want: []string{"4x5"}},
		{name: "C column", op: "Gemm", args: []arg{f32(4, 3), f32(3, 5), f32(4, 1)}, want: []string{"4x5"}},
		{name: "C scalar", op: "Gemm", args: []arg{f32(4, 3), f32(3, 5), f32()}, want: []string{"4x5"}},
		{name: "C bad", op: "Gemm", args: []arg{f32(4, 3), f32(3, 5), f32(3)}, err: "not broadcastable"},
		{name: "inner mismatch", op: "Gemm", args: []arg{f32(4, 3), f32(5, 3)}, err: "inner"},
		{name: "3d", op: "Gemm", args: []arg{f32(1, 4, 3), f32(3, 5)}, err: "2-D"},
	})
}
