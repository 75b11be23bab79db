package executor

import (
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// TestAttentionWeightsConstOrFed: Attention's projection weight is
// widened to float64 once when it is a constant and at every run when it
// is fed; both give the same outputs, in both precisions.
func TestAttentionWeightsConstOrFed(t *testing.T) {
	const batch, seq, din, hidden, heads = 2, 5, 12, 16, 4
	r := rand.New(rand.NewPCG(61, 62))
	x, w, bias := randTensor(r, -1, 1, batch, seq, din), randTensor(r, -1, 1, din, 3*hidden), randTensor(r, -1, 1, 3*hidden)
	build := func(fed bool) *graph.Graph {
		xv := &graph.Value{Name: "x"}
		xv.SetStatic(graph.Float32, []int{batch, seq, din})
		wv := &graph.Value{Name: "w"}
		wv.SetStatic(graph.Float32, []int{din, 3 * hidden})
		inputs := []*graph.Value{xv}
		if fed {
			inputs = append(inputs, wv)
		} else {
			wv.Const = w
		}
		bv := &graph.Value{Name: "b", Const: bias}
		bv.SetStatic(graph.Float32, []int{3 * hidden})
		y := &graph.Value{Name: "y"}
		n := &graph.Node{Name: "attention", Op: "Attention", Domain: graph.MicrosoftDomain, Inputs: []*graph.Value{xv, wv, bv},
			Outputs: []*graph.Value{y}, Attrs: graph.Attrs{"num_heads": graph.IntAttr(heads)}}
		if err := graph.InferNode(n); err != nil {
			t.Fatal(err)
		}
		g := &graph.Graph{Name: "attention", Inputs: inputs, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{n}}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, prec := range []graph.DType{graph.Float32, graph.Float64} {
		konst, err := mustExec(t, build(false), ExecOptions{Precision: prec}).Run(map[string]*graph.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		fed, err := mustExec(t, build(true), ExecOptions{Precision: prec}).Run(map[string]*graph.Tensor{"x": x, "w": w})
		if err != nil {
			t.Fatal(err)
		}
		a, err := konst["y"].AsFloat64()
		if err != nil {
			t.Fatal(err)
		}
		b, err := fed["y"].AsFloat64()
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("precision %v: y[%d] = %v with a constant weight, %v fed", prec, i, a[i], b[i])
			}
		}
	}
}

// BenchmarkAttendViT times the attention core of one ViT-B/16 layer
// (batch 1, 197 tokens, 12 heads of 64) into float32, as the executor
// runs the fused Attention op.
func BenchmarkAttendViT(b *testing.B) {
	const seq, heads, dh = 197, 12, 64
	r := rand.New(rand.NewPCG(3, 4))
	q, k, v := randSlice[float64](r, seq*heads*dh), randSlice[float64](r, seq*heads*dh), randSlice[float64](r, seq*heads*dh)
	y := make([]float32, seq*heads*dh)
	c := &attnCore{batch: 1, seq: seq, total: seq, heads: heads, dh: dh, dv: dh, scale: 0.125}
	rc := &runCtx{threads: NumCPU()}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		attendAll[float32](rc, c, q, heads*dh, k, heads*dh, v, heads*dh, nil, nil, y)
	}
	b.ReportMetric(4*seq*seq*heads*dh/(b.Elapsed().Seconds()/float64(b.N))/1e9, "GFLOP/s")
}
