package executor

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// Benchmarks of whole-graph latency. Run with
//
//	go test -run '^$' -bench Executor -benchtime 20x ./runtime
//
// Results are recorded in docs/perf.md under "## Executor".

// benchConst returns a random float32 constant scaled for stable values.
func benchConst(b *graph.Builder, r *rand.Rand, name string, scale float64, shape ...int) *graph.Value {
	return b.Const(name, randTensor(r, -scale, scale, shape...))
}

// resnetBlocks builds a stack of ResNet basic blocks (conv3x3-relu-conv3x3
// + identity, relu) on 1x64x56x56, with batch norm folded into the biases.
func resnetBlocks(blocks int) (*graph.Graph, error) {
	r := rand.New(rand.NewPCG(1, 2))
	b := graph.NewBuilder("resnet_blocks")
	x := b.Input("x", graph.Float32, 1, 64, 56, 56)
	conv := func(v *graph.Value) *graph.Value {
		w := benchConst(b, r, "w", 1/math.Sqrt(64*9), 64, 64, 3, 3)
		bias := benchConst(b, r, "b", 0.1, 64)
		return b.Op("Conv", []*graph.Value{v, w, bias}, graph.Attrs{"pads": graph.IntsAttr(1, 1, 1, 1)})
	}
	v := x
	for i := 0; i < blocks; i++ {
		h := b.Op("Relu", []*graph.Value{conv(v)}, nil)
		h = conv(h)
		v = b.Op("Relu", []*graph.Value{b.Op("Add", []*graph.Value{h, v}, nil)}, nil)
	}
	b.Output(v)
	return b.Graph()
}

// transformerLayers builds BERT-base-like encoder layers on a 128x768
// sequence: attention with 12 heads, GELU feed-forward of width 3072,
// residuals and layer norms.
func transformerLayers(layers int) (*graph.Graph, error) {
	const seq, dim, heads, ff = 128, 768, 12, 3072
	r := rand.New(rand.NewPCG(3, 4))
	b := graph.NewBuilder("transformer_layers")
	x := b.Input("x", graph.Float32, seq, dim)
	dense := func(v *graph.Value, in, out int) *graph.Value {
		w := benchConst(b, r, "w", 1/math.Sqrt(float64(in)), in, out)
		bias := benchConst(b, r, "b", 0.02, out)
		return b.Op("Add", []*graph.Value{b.Op("MatMul", []*graph.Value{v, w}, nil), bias}, nil)
	}
	splitHeads := func(v *graph.Value) *graph.Value {
		v = b.Op("Reshape", []*graph.Value{v, b.Const("shape", ints64(seq, heads, dim/heads))}, nil)
		return b.Op("Transpose", []*graph.Value{v}, graph.Attrs{"perm": graph.IntsAttr(1, 0, 2)})
	}
	layerNorm := func(v *graph.Value) *graph.Value {
		scale := b.Const("ln_scale", randTensor(r, 0.9, 1.1, dim))
		bias := b.Const("ln_bias", randTensor(r, -0.1, 0.1, dim))
		return b.Op("LayerNormalization", []*graph.Value{v, scale, bias}, nil)
	}
	v := x
	for i := 0; i < layers; i++ {
		q, k, val := splitHeads(dense(v, dim, dim)), splitHeads(dense(v, dim, dim)), splitHeads(dense(v, dim, dim))
		kt := b.Op("Transpose", []*graph.Value{k}, graph.Attrs{"perm": graph.IntsAttr(0, 2, 1)})
		scores := b.Op("Mul", []*graph.Value{b.Op("MatMul", []*graph.Value{q, kt}, nil), b.Const("inv_sqrt_d", scalarF(0.125))}, nil)
		probs := b.Op("Softmax", []*graph.Value{scores}, graph.Attrs{"axis": graph.IntAttr(-1)})
		ctx := b.Op("MatMul", []*graph.Value{probs, val}, nil)
		ctx = b.Op("Transpose", []*graph.Value{ctx}, graph.Attrs{"perm": graph.IntsAttr(1, 0, 2)})
		ctx = b.Op("Reshape", []*graph.Value{ctx, b.Const("shape", ints64(seq, dim))}, nil)
		v = layerNorm(b.Op("Add", []*graph.Value{dense(ctx, dim, dim), v}, nil))
		h := dense(v, dim, ff)
		// GELU: h * 0.5 * (1 + erf(h / sqrt(2)))
		e := b.Op("Erf", []*graph.Value{b.Op("Mul", []*graph.Value{h, b.Const("rsqrt2", scalarF(float32(1/math.Sqrt2)))}, nil)}, nil)
		e = b.Op("Add", []*graph.Value{e, b.Const("one", scalarF(1))}, nil)
		h = b.Op("Mul", []*graph.Value{b.Op("Mul", []*graph.Value{h, e}, nil), b.Const("half", scalarF(0.5))}, nil)
		v = layerNorm(b.Op("Add", []*graph.Value{dense(h, ff, dim), v}, nil))
	}
	b.Output(v)
	return b.Graph()
}

// graphFLOPs counts the multiply-adds (x2) of Conv, MatMul and Gemm.
func graphFLOPs(g *graph.Graph) float64 {
	total := 0.0
	for _, n := range g.Nodes {
		out := n.Outputs[0].Shape.Ints()
		switch n.Op {
		case "Conv":
			w := n.Inputs[1].Shape.Ints()
			total += 2 * float64(graph.NumElements(out)) * float64(graph.NumElements(w[1:]))
		case "MatMul", "Gemm":
			a := n.Inputs[0].Shape.Ints()
			k := a[len(a)-1]
			if n.Op == "Gemm" && n.AttrInt("transA") != 0 {
				k = a[0]
			}
			total += 2 * float64(graph.NumElements(out)) * float64(k)
		}
	}
	return total
}

func benchGraph(b *testing.B, g *graph.Graph, err error, threads int) {
	if err != nil {
		b.Fatal(err)
	}
	ex, err := NewExecutor(g, ExecOptions{Threads: threads})
	if err != nil {
		b.Fatal(err)
	}
	inputs, err := measure.RandomInputs(g, 1)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ex.Run(inputs); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ex.Run(inputs); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(graphFLOPs(g)/sec/1e9, "GFLOP/s")
	b.ReportMetric(float64(ex.PeakBytes())/(1<<20), "peakMiB")
}

func BenchmarkExecutorConvResNet4Blocks(b *testing.B) {
	g, err := resnetBlocks(4)
	benchGraph(b, g, err, 0)
}

func BenchmarkExecutorConvResNet4Blocks1Thread(b *testing.B) {
	g, err := resnetBlocks(4)
	benchGraph(b, g, err, 1)
}

func BenchmarkExecutorMatMulTransformer2Layers(b *testing.B) {
	g, err := transformerLayers(2)
	benchGraph(b, g, err, 0)
}

func BenchmarkExecutorMatMulTransformer2Layers1Thread(b *testing.B) {
	g, err := transformerLayers(2)
	benchGraph(b, g, err, 1)
}

// BenchmarkGemm128x768x768 measures the raw GEMM the MatMul kernel uses.
func BenchmarkGemm128x768x768(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	const m, k, n = 128, 768, 768
	a := randTensor(r, -1, 1, m, k).Float32s()
	w := randTensor(r, -1, 1, k, n).Float32s()
	c := make([]float32, m*n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gemm(NumCPU(), false, false, m, n, k, 1, a, k, w, n, 0, c, n)
	}
	b.ReportMetric(2*m*n*k/(b.Elapsed().Seconds()/float64(b.N))/1e9, "GFLOP/s")
}
