package executor

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// Table-driven tests for behaviour of the newer kernels that ONNX 1.12's
// conformance data does not cover: opset 18-21 operators (Gelu, Mish,
// GroupNormalization; expected values from PyTorch's functional ops),
// integer types, reductions inside scatters, attribute corners, and for
// BitShift, CastLike, Det, ReverseSequence, linear quantisation, the
// integer matrix products and convolutions, GridSample, RoiAlign and the
// window functions: broadcasting, saturation, ties, per-axis parameters,
// pivoting, an all-zero DynamicQuantizeLinear input, padding modes
// (values from PyTorch) and a symmetric window of one element.

func f32s(v ...float32) *graph.Tensor { return graph.FromFloat32(v, len(v)) }

func i32s(v ...int32) *graph.Tensor {
	return &graph.Tensor{DType: graph.Int32, Shape: []int{len(v)}, Data: v}
}

func u8s(v ...uint8) *graph.Tensor {
	return &graph.Tensor{DType: graph.Uint8, Shape: []int{len(v)}, Data: v}
}

func i8s(v ...int8) *graph.Tensor {
	return &graph.Tensor{DType: graph.Int8, Shape: []int{len(v)}, Data: v}
}

func u32s(v ...uint32) *graph.Tensor {
	return &graph.Tensor{DType: graph.Uint32, Shape: []int{len(v)}, Data: v}
}

func reshapeT(t *graph.Tensor, shape ...int) *graph.Tensor {
	return &graph.Tensor{DType: t.DType, Shape: shape, Data: t.Data}
}

func TestNewOpKernels(t *testing.T) {
	act := f32s(-3, -1, 0, 0.5, 2, 25)
	// GridSample's expected values are torch.nn.functional.grid_sample's.
	gsX := reshapeT(f32s(0, 1, 2, 3, 4, 5), 1, 1, 2, 3)
	gsGrid := reshapeT(f32s(-1.7, 0.3, 1.4, -1.2, 0.1, 2.5), 1, 1, 3, 2)
	gnX := reshapeT(f32s(-1.0, -0.63, -0.26, 0.11, 0.48, 0.85, -0.88, -0.51, -0.14, 0.23, 0.6, 0.97,
		-0.76, -0.39, -0.02, 0.35, 0.72, 1.09, -0.64, -0.27, 0.1, 0.47, 0.84, -0.89), 1, 4, 3, 2)
	tests := []struct {
		name  string
		op    string
		ins   []opInput
		attrs graph.Attrs
		out   int // output index compared
		shape []int
		want  []float64
		tol   float64
	}{
		{"gelu erf", "Gelu", []opInput{in(act)}, nil, 0, []int{6},
			[]float64{-0.00404969409489031, -0.15865525393145702, 0, 0.34573123063700656, 1.9544997361036416, 25}, 1e-6},
		{"gelu tanh", "Gelu", []opInput{in(act)}, graph.Attrs{"approximate": graph.StringAttr("tanh")}, 0, []int{6},
			[]float64{-0.0036373920817729943, -0.15880800939172324, 0, 0.34571400982514394, 1.954597694087775, 25}, 1e-6},
		{"mish", "Mish", []opInput{in(act)}, nil, 0, []int{6},
			[]float64{-0.1456474612756246, -0.30340146137410895, 0, 0.3752452113048951, 1.9439589595339946, 25}, 1e-6},
		{"group norm", "GroupNormalization", []opInput{in(gnX), konst(f32s(1, 2, 0.5, -1)), konst(f32s(0, 0.1, 0.2, 0.3))},
			graph.Attrs{"num_groups": graph.IntAttr(2)}, 0, []int{1, 4, 3, 2},
			[]float64{-1.5518033980904387, -0.9688924769803247, -0.3859815558702106, 0.1969293652399033, 0.7798402863500176,
				1.3627512074601318, -2.625502414920264, -1.4596805727000355, -0.293858730479807, 0.8719631117404214,
				2.03778495396065, 3.2036067961808783, -0.44437964933764623, -0.15003338976365974, 0.1443128698103268,
				0.4386591293843133, 0.7330053889582998, 1.0273516485322862, 1.397831995167841, 0.8091394760198679,
				0.22044695687189494, -0.3682455622760767, -0.9569380814240511, 1.7955972108083638}, 1e-4},
		{"mod int sign of divisor", "Mod", []opInput{in(i32s(-4, 7, 5, 6)), in(i32s(3, -3, -2, 3))}, nil, 0, []int{4},
			[]float64{2, -2, -1, 0}, 0},
		{"mod int fmod", "Mod", []opInput{in(i32s(-4, 7, 5, 6)), in(i32s(3, -3, -2, 3))}, graph.Attrs{"fmod": graph.IntAttr(1)}, 0, []int{4},
			[]float64{-1, 1, 1, 0}, 0},
		{"mod int zero divisor", "Mod", []opInput{in(i32s(5)), in(i32s(0))}, nil, 0, []int{1}, []float64{0}, 0},
		{"abs int", "Abs", []opInput{in(i32s(-3, 0, 5))}, nil, 0, []int{3}, []float64{3, 0, 5}, 0},
		{"neg int", "Neg", []opInput{in(i32s(-3, 0, 5))}, nil, 0, []int{3}, []float64{3, 0, -5}, 0},
		{"sign int", "Sign", []opInput{in(i32s(-3, 0, 5))}, nil, 0, []int{3}, []float64{-1, 0, 1}, 0},
		{"round half even", "Round", []opInput{in(f32s(-2.5, -1.5, 0.5, 1.5, 2.4))}, nil, 0, []int{5}, []float64{-2, -2, 0, 2, 2}, 0},
		{"scatter elements mul", "ScatterElements", []opInput{in(f32s(1, 2, 3, 4)), in(ints64(1, 1, 3)), in(f32s(5, 2, 0.5))},
			graph.Attrs{"reduction": graph.StringAttr("mul")}, 0, []int{4}, []float64{1, 20, 3, 2}, 0},
		{"scatter elements max", "ScatterElements", []opInput{in(f32s(1, 2, 3, 4)), in(ints64(1, 1, -1)), in(f32s(5, 2, 0.5))},
			graph.Attrs{"reduction": graph.StringAttr("max")}, 0, []int{4}, []float64{1, 5, 3, 4}, 0},
		{"scatter elements min", "ScatterElements", []opInput{in(f32s(1, 2, 3, 4)), in(ints64(1, 1, 3)), in(f32s(5, 2, 0.5))},
			graph.Attrs{"reduction": graph.StringAttr("min")}, 0, []int{4}, []float64{1, 2, 3, 0.5}, 0},
		{"scatter nd min rows", "ScatterND", []opInput{in(reshapeT(f32s(1, 2, 3, 4), 2, 2)), in(reshapeT(ints64(1, 1), 2, 1)),
			in(reshapeT(f32s(0, 9, 5, 1), 2, 2))}, graph.Attrs{"reduction": graph.StringAttr("min")}, 0, []int{2, 2},
			[]float64{1, 2, 0, 1}, 0},
		{"gather nd batch", "GatherND", []opInput{in(reshapeT(f32s(0, 1, 2, 3, 4, 5, 6, 7), 2, 2, 2)), in(reshapeT(ints64(1, 0), 2, 1))},
			graph.Attrs{"batch_dims": graph.IntAttr(1)}, 0, []int{2, 2}, []float64{2, 3, 4, 5}, 0},
		{"gather elements negative", "GatherElements", []opInput{in(reshapeT(f32s(1, 2, 3, 4), 2, 2)), in(reshapeT(ints64(-1, 0, 0, 0), 2, 2))},
			graph.Attrs{"axis": graph.IntAttr(1)}, 0, []int{2, 2}, []float64{2, 1, 3, 3}, 0},
		{"range int negative step", "Range", []opInput{konst(ints64(10)), konst(ints64(4)), konst(ints64(-3))}, nil, 0, []int{2},
			[]float64{10, 7}, 0},
		{"range float", "Range", []opInput{konst(scalarF(1)), konst(scalarF(2)), konst(scalarF(0.25))}, nil, 0, []int{4},
			[]float64{1, 1.25, 1.5, 1.75}, 0},
		{"cumsum reverse exclusive int", "CumSum", []opInput{in(i32s(1, 2, 3, 4)), konst(ints64(0))},
			graph.Attrs{"reverse": graph.IntAttr(1), "exclusive": graph.IntAttr(1)}, 0, []int{4}, []float64{9, 7, 4, 0}, 0},
		{"topk smallest ties values", "TopK", []opInput{in(ints64(3, 1, 3, 1)), konst(ints64(3))},
			graph.Attrs{"largest": graph.IntAttr(0)}, 0, []int{3}, []float64{1, 1, 3}, 0},
		{"topk smallest ties indices", "TopK", []opInput{in(ints64(3, 1, 3, 1)), konst(ints64(3))},
			graph.Attrs{"largest": graph.IntAttr(0)}, 1, []int{3}, []float64{1, 3, 0}, 0},
		{"one hot axis 0 float indices", "OneHot", []opInput{in(f32s(2, -1, 0)), konst(ints64(3)), in(f32s(-1, 7))},
			graph.Attrs{"axis": graph.IntAttr(0)}, 0, []int{3, 3}, []float64{-1, -1, 7, -1, -1, -1, 7, 7, -1}, 0},
		{"einsum matmul", "Einsum", []opInput{in(reshapeT(f32s(1, 2, 3, 4, 5, 6), 2, 3)), in(reshapeT(f32s(1, 0, 0, 1, 1, 1), 3, 2))},
			graph.Attrs{"equation": graph.StringAttr("ij,jk->ik")}, 0, []int{2, 2}, []float64{4, 5, 10, 11}, 0},
		{"einsum trace implicit", "Einsum", []opInput{in(reshapeT(f32s(1, 2, 3, 4), 2, 2))},
			graph.Attrs{"equation": graph.StringAttr("ii")}, 0, []int{}, []float64{5}, 0},
		{"einsum ellipsis broadcast", "Einsum", []opInput{in(reshapeT(f32s(1, 2, 3, 4), 2, 2)), in(f32s(10, 100))},
			graph.Attrs{"equation": graph.StringAttr("...j,j->...")}, 0, []int{2}, []float64{210, 430}, 0},
		{"hardmax first of ties", "Hardmax", []opInput{in(reshapeT(f32s(1, 3, 3, 0), 1, 4))}, nil, 0, []int{1, 4},
			[]float64{0, 1, 0, 0}, 0},
		{"constant of shape int32", "ConstantOfShape", []opInput{konst(ints64(2, 1))},
			graph.Attrs{"value": graph.TensorAttr(&graph.Tensor{DType: graph.Int32, Shape: []int{1}, Data: []int32{-7}})}, 0,
			[]int{2, 1}, []float64{-7, -7}, 0},
		{"eye like shifted", "EyeLike", []opInput{in(reshapeT(f32s(0, 0, 0, 0, 0, 0), 2, 3))}, graph.Attrs{"k": graph.IntAttr(1)}, 0,
			[]int{2, 3}, []float64{0, 1, 0, 0, 0, 1}, 0},
		{"trilu lower k=-1", "Trilu", []opInput{in(reshapeT(f32s(1, 2, 3, 4, 5, 6, 7, 8, 9), 3, 3)), konst(ints64(-1))},
			graph.Attrs{"upper": graph.IntAttr(0)}, 0, []int{3, 3}, []float64{0, 0, 0, 4, 0, 0, 7, 8, 0}, 0},
		{"sum three broadcast", "Sum", []opInput{in(reshapeT(f32s(1, 2), 2, 1)), in(f32s(10, 20, 30)), in(scalarF(100))}, nil, 0,
			[]int{2, 3}, []float64{111, 121, 131, 112, 122, 132}, 0},
		{"mean two", "Mean", []opInput{in(f32s(1, 2)), in(f32s(3, 6))}, nil, 0, []int{2}, []float64{2, 4}, 0},
		{"prelu channel slope", "PRelu", []opInput{in(reshapeT(f32s(-1, 2, -3, 4), 1, 2, 2)), konst(reshapeT(f32s(0.5, 2), 2, 1))}, nil, 0,
			[]int{1, 2, 2}, []float64{-0.5, 2, -6, 4}, 0},
		{"reduce prod int", "ReduceProd", []opInput{in(reshapeT(i32s(1, 2, 3, 4), 2, 2)), konst(ints64(1))}, graph.Attrs{"keepdims": graph.IntAttr(0)}, 0,
			[]int{2}, []float64{2, 12}, 0},
		{"reduce log sum exp large", "ReduceLogSumExp", []opInput{in(f32s(1000, 1000))}, graph.Attrs{"keepdims": graph.IntAttr(0)}, 0,
			[]int{}, []float64{1000.6931471805599}, 1e-6},
		{"argmin last index", "ArgMin", []opInput{in(f32s(2, 1, 5, 1))}, graph.Attrs{"select_last_index": graph.IntAttr(1)}, 0,
			[]int{1}, []float64{3}, 0},
		{"bitshift left broadcast", "BitShift", []opInput{in(u8s(1, 3, 255)), in(reshapeT(u8s(1), 1))},
			graph.Attrs{"direction": graph.StringAttr("LEFT")}, 0, []int{3}, []float64{2, 6, 254}, 0},
		{"bitshift right wide", "BitShift", []opInput{in(u32s(16, 16, 1<<31)), in(u32s(2, 40, 31))},
			graph.Attrs{"direction": graph.StringAttr("RIGHT")}, 0, []int{3}, []float64{4, 0, 1}, 0},
		{"castlike float to int8", "CastLike", []opInput{in(f32s(-2.7, 0.5, 3.9)), in(i8s(0))}, nil, 0, []int{3}, []float64{-2, 0, 3}, 0},
		{"det needs a row swap", "Det", []opInput{in(reshapeT(f32s(0, 2, 1, 1, 1, 0, 3, 0, 1), 3, 3))}, nil, 0, []int{}, []float64{-5}, 0},
		{"det of a stack", "Det", []opInput{in(reshapeT(f32s(1, 2, 3, 4, 2, 0, 0, 2), 2, 2, 2))}, nil, 0, []int{2}, []float64{-2, 4}, 0},
		{"det singular", "Det", []opInput{in(reshapeT(f32s(1, 2, 2, 4), 2, 2))}, nil, 0, []int{}, []float64{0}, 0},
		{"reverse sequence time major", "ReverseSequence",
			[]opInput{in(reshapeT(f32s(1, 2, 3, 4, 5, 6), 3, 2)), in(ints64(3, 2))}, nil, 0, []int{3, 2}, []float64{5, 4, 3, 2, 1, 6}, 0},
		{"reverse sequence batch major", "ReverseSequence",
			[]opInput{in(reshapeT(f32s(1, 2, 3, 4, 5, 6), 2, 3)), in(ints64(0, 2))},
			graph.Attrs{"batch_axis": graph.IntAttr(0), "time_axis": graph.IntAttr(1)}, 0, []int{2, 3}, []float64{1, 2, 3, 5, 4, 6}, 0},
		{"quantize ties and saturation", "QuantizeLinear", []opInput{in(f32s(1, 3, 5, -300, 300)), in(scalarF(2)), in(reshapeT(i8s(1)))},
			nil, 0, []int{5}, []float64{1, 3, 3, -128, 127}, 0},
		{"quantize without zero point", "QuantizeLinear", []opInput{in(f32s(-1, 2.6, 1000)), in(scalarF(1))},
			nil, 0, []int{3}, []float64{0, 3, 255}, 0},
		{"quantize per axis", "QuantizeLinear",
			[]opInput{in(reshapeT(f32s(2, 4, 2, 4), 2, 2)), in(f32s(1, 2)), in(u8s(0, 10))},
			graph.Attrs{"axis": graph.IntAttr(0)}, 0, []int{2, 2}, []float64{2, 4, 11, 12}, 0},
		{"dequantize per last axis", "DequantizeLinear",
			[]opInput{in(reshapeT(u8s(10, 10, 20, 20), 2, 2)), in(f32s(0.5, 2)), in(u8s(10, 0))},
			graph.Attrs{"axis": graph.IntAttr(-1)}, 0, []int{2, 2}, []float64{0, 20, 5, 40}, 0},
		{"dequantize int32", "DequantizeLinear", []opInput{in(i32s(-4, 6)), in(scalarF(0.25))}, nil, 0, []int{2}, []float64{-1, 1.5}, 0},
		{"dynamic quantize all zero", "DynamicQuantizeLinear", []opInput{in(f32s(0, 0))}, nil, 0, []int{2}, []float64{0, 0}, 0},
		{"dynamic quantize positive", "DynamicQuantizeLinear", []opInput{in(f32s(0, 51, 255))}, nil, 0, []int{3}, []float64{0, 51, 255}, 0},
		{"dynamic quantize zero point", "DynamicQuantizeLinear", []opInput{in(f32s(-255, 0, 255))}, nil, 2, []int{}, []float64{128}, 0},
		{"matmul integer per row and column zero points", "MatMulInteger",
			[]opInput{in(reshapeT(i8s(1, 2, 3, 4), 2, 2)), in(reshapeT(i8s(5, 6, 7, 8), 2, 2)), in(i8s(1, 2)), in(i8s(5, 0))}, nil, 0,
			[]int{2, 2}, []float64{2, 8, 4, 22}, 0},
		{"qlinear matmul per column scale", "QLinearMatMul",
			[]opInput{in(reshapeT(u8s(10, 20), 1, 2)), in(scalarF(0.5)), in(u8s(0)), in(reshapeT(u8s(1, 2, 3, 4), 2, 2)),
				in(f32s(1, 2)), in(u8s(0, 0)), in(scalarF(2)), in(u8s(100))}, nil, 0, []int{1, 2}, []float64{118, 150}, 0},
		{"conv integer per channel weight zero point", "ConvInteger",
			[]opInput{in(reshapeT(u8s(1, 2, 3, 4), 1, 1, 2, 2)), in(reshapeT(u8s(3, 5), 2, 1, 1, 1)), in(reshapeT(u8s(1))), in(u8s(1, 5))},
			nil, 0, []int{1, 2, 2, 2}, []float64{0, 2, 4, 6, 0, 0, 0, 0}, 0},
		{"qlinear conv with bias", "QLinearConv",
			[]opInput{in(reshapeT(u8s(10, 20), 1, 1, 1, 2)), in(scalarF(0.5)), in(reshapeT(u8s(0))), in(reshapeT(i8s(2), 1, 1, 1, 1)),
				in(f32s(1)), in(i8s(0)), in(scalarF(1)), in(reshapeT(u8s(0))), in(i32s(3))},
			nil, 0, []int{1, 1, 1, 2}, []float64{12, 22}, 0},
		{"grid sample bilinear reflection", "GridSample", []opInput{in(gsX), in(gsGrid)},
			graph.Attrs{"padding_mode": graph.StringAttr("reflection")}, 0, []int{1, 1, 1, 3}, []float64{2.95, 1.9, 1.15}, 1e-6},
		{"grid sample bicubic border aligned", "GridSample", []opInput{in(gsX), in(gsGrid)},
			graph.Attrs{"mode": graph.StringAttr("bicubic"), "padding_mode": graph.StringAttr("border"), "align_corners": graph.IntAttr(1)}, 0,
			[]int{1, 1, 1, 3}, []float64{1.9539381265640259, 1.9257503747940063, 4.2482194900512695}, 1e-6},
		{"grid sample cubic reflection", "GridSample", []opInput{in(gsX), in(gsGrid)},
			graph.Attrs{"mode": graph.StringAttr("cubic"), "padding_mode": graph.StringAttr("reflection")}, 0,
			[]int{1, 1, 1, 3}, []float64{2.9260940551757812, 1.4522511959075928, 1.2089693546295166}, 1e-6},
		{"grid sample nearest zeros", "GridSample", []opInput{in(gsX), in(reshapeT(f32s(0.1, 0.4, -0.5, -0.6, 0.9, -0.9), 1, 1, 3, 2))},
			graph.Attrs{"mode": graph.StringAttr("nearest")}, 0, []int{1, 1, 1, 3}, []float64{4, 0, 2}, 0},
		{"roi align half pixel on pixel centres", "RoiAlign",
			[]opInput{in(reshapeT(f32s(1, 2, 3, 4), 1, 1, 2, 2)), in(reshapeT(f32s(0, 0, 2, 2), 1, 4)), in(ints64(0))},
			graph.Attrs{"output_height": graph.IntAttr(2), "output_width": graph.IntAttr(2), "sampling_ratio": graph.IntAttr(1)}, 0,
			[]int{1, 1, 2, 2}, []float64{1, 2, 3, 4}, 1e-6},
		{"roi align output half pixel between them", "RoiAlign",
			[]opInput{in(reshapeT(f32s(1, 2, 3, 4), 1, 1, 2, 2)), in(reshapeT(f32s(0, 0, 1, 1), 1, 4)), in(ints64(0))},
			graph.Attrs{"coordinate_transformation_mode": graph.StringAttr("output_half_pixel"), "sampling_ratio": graph.IntAttr(1)}, 0,
			[]int{1, 1, 1, 1}, []float64{2.5}, 1e-6},
		{"hann periodic", "HannWindow", []opInput{konst(ints64(4))}, nil, 0, []int{4}, []float64{0, 0.5, 1, 0.5}, 1e-6},
		{"hamming symmetric", "HammingWindow", []opInput{konst(ints64(3))}, graph.Attrs{"periodic": graph.IntAttr(0)}, 0,
			[]int{3}, []float64{4.0 / 46, 1, 4.0 / 46}, 1e-6},
		{"blackman symmetric of one", "BlackmanWindow", []opInput{konst(ints64(1))}, graph.Attrs{"periodic": graph.IntAttr(0)}, 0,
			[]int{1}, []float64{1}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
				outs := len(graph.Lookup("", tc.op).Outputs)
				got := runOp(t, tc.op, tc.ins, tc.attrs, outs, opts)[tc.out]
				checkClose(t, tc.op, got, tc.shape, tc.want, tc.tol)
			})
		})
	}
}

// TestNewOpErrors checks that bad values are reported, not panics.
func TestNewOpErrors(t *testing.T) {
	tests := []struct {
		name  string
		op    string
		ins   []opInput
		attrs graph.Attrs
	}{
		{"gather elements index out of range", "GatherElements", []opInput{in(f32s(1, 2)), in(ints64(2))}, nil},
		{"scatter nd index out of range", "ScatterND", []opInput{in(f32s(1, 2)), in(reshapeT(ints64(-3), 1, 1)), in(f32s(5))}, nil},
		{"gather nd index out of range", "GatherND", []opInput{in(f32s(1, 2)), in(reshapeT(ints64(7), 1, 1))}, nil},
		{"bitshift signed", "BitShift", []opInput{in(i8s(1)), in(i8s(1))}, graph.Attrs{"direction": graph.StringAttr("LEFT")}},
		{"bitshift direction", "BitShift", []opInput{in(u8s(1)), in(u8s(1))}, graph.Attrs{"direction": graph.StringAttr("UP")}},
		{"det not square", "Det", []opInput{in(reshapeT(f32s(1, 2, 3, 4, 5, 6), 2, 3))}, nil},
		{"reverse sequence too long", "ReverseSequence", []opInput{in(reshapeT(f32s(1, 2, 3, 4), 2, 2)), in(ints64(3, 1))}, nil},
		{"grid sample padding mode", "GridSample", []opInput{in(reshapeT(f32s(1, 2), 1, 1, 1, 2)), in(reshapeT(f32s(0, 0), 1, 1, 1, 2))},
			graph.Attrs{"padding_mode": graph.StringAttr("wrap")}},
		{"roi align batch index", "RoiAlign", []opInput{in(reshapeT(f32s(1, 2, 3, 4), 1, 1, 2, 2)), in(reshapeT(f32s(0, 0, 1, 1), 1, 4)), in(ints64(1))}, nil},
		{"quantize scale length", "QuantizeLinear", []opInput{in(reshapeT(f32s(1, 2, 3, 4), 2, 2)), in(f32s(1, 2, 3))}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tryOp(tc.op, tc.ins, tc.attrs, 1, ExecOptions{}); err == nil {
				t.Fatalf("%s: no error", tc.op)
			}
		})
	}
}
