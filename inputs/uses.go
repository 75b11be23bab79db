package inputs

import (
	"math"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// maxCompared bounds the values kept per input from the graph's
// comparisons.
const maxCompared = 16

// intUse is what a graph does with one of its integer inputs, found by
// following the input through ops that keep its values (casts, reshapes,
// constant offsets), into control-flow bodies too.
type intUse struct {
	// bound is the exclusive upper bound of the input's values: the size
	// of the axis a Gather indexes with it (0: none).
	bound int64
	// index marks an input read as element indices by an op other than
	// Gather (GatherElements, ScatterND ...) or by a Gather whose axis
	// size is unknown: its values stay in {0, 1}, valid in any axis.
	index bool
	// trip marks a Loop's trip count.
	trip bool
	// flag marks an input the graph subtracts from 1 (an attention mask
	// turned into 1 - mask before it scales a large negative bias): its
	// values stay in {0, 1}, the only ones that keep the bias finite.
	flag bool
	// compared holds the values the graph compares or equates the input
	// with, each constant moved back by the offsets added on the way, with
	// its neighbours for an ordering comparison; sorted, unique.
	compared []int64
}

// compareOps are the comparisons; for those marked true (the orderings)
// both sides of the constant matter, so its neighbours are drawn too.
var compareOps = map[string]bool{"Equal": false, "Less": true, "Greater": true, "LessOrEqual": true, "GreaterOrEqual": true}

// keepOps pass their first input's values on unchanged (as far as a
// comparison further on can tell).
var keepOps = map[string]bool{
	"Identity": true, "Cast": true, "Unsqueeze": true, "Squeeze": true, "Reshape": true,
	"Flatten": true, "Expand": true, "Tile": true, "Transpose": true, "Slice": true,
}

// indexOps read their input 1 as element indices.
var indexOps = map[string]bool{
	"GatherElements": true, "GatherND": true, "ScatterElements": true, "ScatterND": true, "Scatter": true,
}

// useWalker follows one input through the graph and its bodies.
type useWalker struct {
	use  *intUse
	seen map[*graph.Value]bool
	// consumers and producers are built once per (body) graph.
	consumers map[*graph.Graph]map[*graph.Value][]*graph.Node
	producers map[*graph.Graph]map[*graph.Value]*graph.Node
}

// intUses returns what g does with each of its integer inputs.
func intUses(g *graph.Graph) map[*graph.Value]*intUse {
	out := map[*graph.Value]*intUse{}
	w := &useWalker{
		consumers: map[*graph.Graph]map[*graph.Value][]*graph.Node{},
		producers: map[*graph.Graph]map[*graph.Value]*graph.Node{},
	}
	for _, in := range g.Inputs {
		if in.Const != nil || !in.DType.IsInt() {
			continue
		}
		w.use, w.seen = &intUse{}, map[*graph.Value]bool{}
		w.follow(g, in, 0)
		slices.Sort(w.use.compared)
		w.use.compared = slices.Compact(w.use.compared)
		if len(w.use.compared) > maxCompared {
			w.use.compared = w.use.compared[:maxCompared]
		}
		out[in] = w.use
	}
	return out
}

// follow visits the readers of v, which holds the input's values plus
// offset.
func (w *useWalker) follow(g *graph.Graph, v *graph.Value, offset int64) {
	if v == nil || w.seen[v] {
		return
	}
	w.seen[v] = true
	cons, ok := w.consumers[g]
	if !ok {
		cons = g.Consumers()
		w.consumers[g] = cons
	}
	for _, n := range cons[v] {
		for i, in := range n.Inputs {
			if in == v {
				w.read(g, n, i, offset)
			}
		}
		for k, in := range n.Implicit {
			if in != v {
				continue
			}
			for _, b := range n.Bodies {
				for j, o := range b.Outer {
					if o == k && b.Formal+j < len(b.Graph.Inputs) {
						w.follow(b.Graph, b.Graph.Inputs[b.Formal+j], offset)
					}
				}
			}
		}
	}
}

// read records what node n does with its input i, which holds the
// input's values plus offset, and follows n's output when n keeps them.
func (w *useWalker) read(g *graph.Graph, n *graph.Node, i int, offset int64) {
	switch {
	case keepOps[n.Op] && i == 0:
		if n.Op == "Cast" && graph.DType(n.AttrInt("to")) == graph.Bool {
			return // only zero or not matters, which 0 and 1 cover
		}
		w.follow(g, n.Output(0), offset)
	case n.Op == "Concat":
		w.follow(g, n.Output(0), offset)
	case (n.Op == "Add" || n.Op == "Sub") && len(n.Inputs) == 2:
		k, ok := w.scalar(g, n.Inputs[1-i])
		switch {
		case !ok:
		case n.Op == "Add":
			w.follow(g, n.Output(0), offset+k)
		case i == 0:
			w.follow(g, n.Output(0), offset-k)
		case k == 1+offset:
			w.use.flag = true
		}
	case isCompare(n.Op) && len(n.Inputs) == 2:
		w.compare(g, n, n.Inputs[1-i], offset)
	case n.Op == "Gather" && i == 1:
		w.gather(n, offset)
	case indexOps[n.Op] && i == 1:
		w.use.index = true
	case n.Op == "Loop" && i == 0:
		w.use.trip = true
	case graph.IsRecurrent(n) && i == 4:
		w.sequenceLengths(n)
	}
}

// sequenceLengths bounds the input by the sequence length of recurrent
// node n, whose sequence_lens it is: each row's length is at most the
// sequence's.
func (w *useWalker) sequenceLengths(n *graph.Node) {
	d, err := graph.RecurrentShape(n)
	if err != nil {
		w.use.index = true
		return
	}
	if size := int64(d.Seq) + 1; w.use.bound == 0 || size < w.use.bound {
		w.use.bound = size
	}
}

// compare records the values of constant c (the other side of
// comparison n) that the input must take, offset removed.
func (w *useWalker) compare(g *graph.Graph, n *graph.Node, c *graph.Value, offset int64) {
	t := w.constant(g, c)
	if t == nil || t.Len() > maxCompared {
		return
	}
	vals, err := t.AsFloat64()
	if err != nil {
		return
	}
	for _, f := range vals {
		if math.IsNaN(f) || math.Abs(f) > 1<<53 {
			continue
		}
		for _, x := range []float64{math.Floor(f), math.Ceil(f)} {
			v := int64(x) - offset
			w.use.compared = append(w.use.compared, v)
			if compareOps[n.Op] {
				w.use.compared = append(w.use.compared, v-1, v+1)
			}
		}
	}
}

// gather bounds the input by the size of the axis Gather n indexes.
func (w *useWalker) gather(n *graph.Node, offset int64) {
	data := n.Input(0)
	axis := int(n.AttrInt("axis"))
	if data == nil || !data.ShapeKnown || len(data.Shape) == 0 {
		w.use.index = true
		return
	}
	if axis < 0 {
		axis += len(data.Shape)
	}
	if axis < 0 || axis >= len(data.Shape) || !data.Shape[axis].Known() {
		w.use.index = true
		return
	}
	size := min(data.Shape[axis].Value, 1<<30) - max(offset, 0)
	if size < 1 {
		w.use.index = true
		return
	}
	if w.use.bound == 0 || size < w.use.bound {
		w.use.bound = size
	}
}

// scalar returns the value of v when it is a one-element integer or
// integral constant.
func (w *useWalker) scalar(g *graph.Graph, v *graph.Value) (int64, bool) {
	t := w.constant(g, v)
	if t == nil || t.Len() != 1 {
		return 0, false
	}
	f, err := t.AsFloat64()
	if err != nil || f[0] != math.Trunc(f[0]) || math.Abs(f[0]) > 1<<53 {
		return 0, false
	}
	return int64(f[0]), true
}

// constant returns the data of v when it is known without running the
// graph: a constant, a value shape inference computed, or the output of
// a Constant node.
func (w *useWalker) constant(g *graph.Graph, v *graph.Value) *graph.Tensor {
	switch {
	case v == nil:
		return nil
	case v.Const != nil:
		return v.Const
	case v.Known != nil:
		return v.Known
	}
	prod, ok := w.producers[g]
	if !ok {
		prod = g.Producers()
		w.producers[g] = prod
	}
	if n := prod[v]; n != nil && n.Op == "Constant" {
		if t, err := graph.ConstantValue(n); err == nil {
			return t
		}
	}
	return nil
}

// isCompare reports whether op is a comparison.
func isCompare(op string) bool {
	_, ok := compareOps[op]
	return ok
}
