package gat

import (
	"math/rand/v2"
	"slices"

	"github.com/xrl-dev/xrl/env"
)

// Synthetic graph tensors shaped like encoded ONNX graphs: inputs and
// weights first, then operators each reading one to three earlier nodes.

var shapeDims = []float32{1, 3, 16, 64, 128, 224, 512, 768, 1024, 3072}

func classOf(name string) int32 { return int32(slices.Index(env.OpClasses(), name)) }

// synthGraph returns a random DAG of about nodes nodes and edges edges.
func synthGraph(rng *rand.Rand, nodes, edges int) *env.GraphTensor {
	nOps := nodes * 2 / 3
	if nOps < 1 {
		nOps = 1
	}
	nSrc := nodes - nOps
	if nSrc < 1 {
		nSrc = 1
	}
	ops := env.NumOpClasses() - 3 // schema operators come first
	t := &env.GraphTensor{Global: make([]float32, env.GlobalDim)}
	t.NodeClass = append(t.NodeClass, classOf(env.ClassInput))
	for i := 1; i < nSrc; i++ {
		t.NodeClass = append(t.NodeClass, classOf(env.ClassWeight))
	}
	for i := 0; i < nOps; i++ {
		t.NodeClass = append(t.NodeClass, int32(rng.IntN(ops)))
	}
	n := len(t.NodeClass)
	perOp := float64(edges) / float64(nOps)
	for v := nSrc; v < n; v++ {
		k := 1 + int(perOp-1+rng.Float64())
		for j := 0; j < k; j++ {
			// Mostly recent producers, sometimes a weight.
			var s int
			if rng.IntN(3) == 0 {
				s = rng.IntN(nSrc)
			} else {
				s = max(0, v-1-rng.IntN(min(v, 8)))
			}
			addEdge(rng, t, s, v)
		}
	}
	return t
}

func addEdge(rng *rand.Rand, t *env.GraphTensor, s, r int) {
	t.Senders = append(t.Senders, int32(s))
	t.Receivers = append(t.Receivers, int32(r))
	rank := 1 + rng.IntN(4)
	var f [env.EdgeDim]float32
	for i := env.EdgeDim - rank; i < env.EdgeDim; i++ {
		f[i] = shapeDims[rng.IntN(len(shapeDims))] / env.ShapeScale
	}
	t.EdgeFeat = append(t.EdgeFeat, f[:]...)
}

func cloneTensor(g *env.GraphTensor) *env.GraphTensor {
	return &env.GraphTensor{
		NodeClass: slices.Clone(g.NodeClass), Senders: slices.Clone(g.Senders),
		Receivers: slices.Clone(g.Receivers), EdgeFeat: slices.Clone(g.EdgeFeat),
		Global: slices.Clone(g.Global),
	}
}

// rewriteLike returns a copy of g with a local change, as a rewrite rule
// makes: one operator changes class, and a new operator is inserted after
// it, taking over one of its consumers.
func rewriteLike(rng *rand.Rand, g *env.GraphTensor) *env.GraphTensor {
	t := cloneTensor(g)
	ops := int32(env.NumOpClasses() - 3)
	var v int
	for {
		v = rng.IntN(len(t.NodeClass))
		if t.NodeClass[v] < ops {
			break
		}
	}
	t.NodeClass[v] = (t.NodeClass[v] + 1 + int32(rng.IntN(int(ops-1)))) % ops
	w := len(t.NodeClass)
	t.NodeClass = append(t.NodeClass, int32(rng.IntN(int(ops))))
	addEdge(rng, t, v, w)
	for e, s := range t.Senders {
		if int(s) == v && int(t.Receivers[e]) != w {
			t.Senders[e] = int32(w)
			break
		}
	}
	return t
}

// synthObs returns an observation over a random current graph with k
// candidates (rewrite-like, or independent random graphs), a mask of
// maxCand+1 entries and every odd candidate masked when maskOdd.
func synthObs(rng *rand.Rand, nodes, edges, k, maxCand int, independent, maskOdd bool) *env.Observation {
	o := &env.Observation{Current: synthGraph(rng, nodes, edges), Mask: make([]bool, maxCand+1)}
	for i := 0; i < k; i++ {
		var c *env.GraphTensor
		if independent {
			c = synthGraph(rng, nodes, edges)
		} else {
			c = rewriteLike(rng, o.Current)
		}
		o.Candidates = append(o.Candidates, c)
		o.Mask[i] = !maskOdd || i%2 == 0
	}
	o.Mask[maxCand] = true
	return o
}
