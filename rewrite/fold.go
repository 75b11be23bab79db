package rewrite

import (
	"fmt"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// Size caps of constant folding. A node is left unfolded when its outputs
// would hold more than MaxFoldBytes, or more than FoldGrowthBytes while
// being over twice the size of its inputs: folding an Expand,
// ConstantOfShape or Tile of a small constant would otherwise bloat the
// model (and every candidate's hash) with data the executor creates
// cheaply at run time. Concatenated, padded, reshaped or transposed
// weights are about the size of their inputs and always fold.
//
// Candidates are folded with a lower cap, Options.FoldBytes (default
// DefaultCandidateFoldBytes): every candidate holds its own folded
// constants, and a generation on a model with many large weight
// combinations (NASRNN: 1460 candidates, each with megabytes of merged
// weights) would otherwise allocate and hash gigabytes. Larger folds stay
// as nodes over constants until Fold runs (before export and latency
// measurement; the Go executor and ONNX Runtime also fold them when a
// session is created).
const (
	MaxFoldBytes              = 64 << 20
	FoldGrowthBytes           = 1 << 20
	DefaultCandidateFoldBytes = 1 << 20
)

// FoldStats reports what constant folding did.
type FoldStats struct {
	// Folded counts nodes replaced by constants.
	Folded int
	// DeadNodes counts nodes removed because nothing read their outputs.
	DeadNodes int
	// DeadConsts counts initializers removed because nothing read them.
	DeadConsts int
	// TooLarge counts foldable nodes left in place by the size caps
	// (including a candidate's lower cap, Options.FoldBytes).
	TooLarge int
	// ShapeArgs counts Reshape and Expand nodes whose shape, computed at
	// run time, became a constant valid at every binding (see
	// constShapeArgs).
	ShapeArgs int
	// NoOps counts nodes removed because they return their input
	// unchanged at every binding (see dropNoOps).
	NoOps int
	// Failed lists the foldable nodes whose evaluation failed (Fold leaves
	// them in place; the engine rejects such candidates).
	Failed []string
}

// add accumulates o into s.
func (s *FoldStats) add(o FoldStats) {
	s.Folded += o.Folded
	s.DeadNodes += o.DeadNodes
	s.DeadConsts += o.DeadConsts
	s.TooLarge += o.TooLarge
	s.ShapeArgs += o.ShapeArgs
	s.NoOps += o.NoOps
	s.Failed = append(s.Failed, o.Failed...)
}

// String summarises the statistics.
func (s FoldStats) String() string {
	msg := fmt.Sprintf("%d nodes folded, %d dead nodes and %d unused initializers removed, %d too large to fold",
		s.Folded, s.DeadNodes, s.DeadConsts, s.TooLarge)
	if s.ShapeArgs > 0 {
		msg += fmt.Sprintf(", %d computed shapes made constant", s.ShapeArgs)
	}
	if s.NoOps > 0 {
		msg += fmt.Sprintf(", %d no-op nodes removed", s.NoOps)
	}
	if len(s.Failed) > 0 {
		msg += fmt.Sprintf(", %d failed (%s)", len(s.Failed), strings.Join(s.Failed, "; "))
	}
	return msg
}

// Evaluator computes the outputs of a graph that has no inputs (every
// node reads constants only), keyed by output value name, in the graph's
// own dtypes. Folding uses it for every node it cannot compute itself;
// the executor package provides one (executor.Evaluate), so that rewrite
// does not depend on the kernels.
type Evaluator func(g *graph.Graph) (map[string]*graph.Tensor, error)

// errNoEvaluator is returned when a fold needs an Evaluator and none was
// configured.
var errNoEvaluator = fmt.Errorf("rewrite: no Evaluator configured for constant folding")

// Fold returns g with constant subgraphs folded: every node whose inputs
// are all constants (and Shape and Size of static shapes) becomes
// constants computed by ev in the graph's own dtypes, so that
// concatenated or padded weights become one initializer; nodes and
// initializers no longer read are removed. On a graph bound with its
// symbols kept, a Reshape or Expand whose shape is computed at run time
// gets a constant shape valid at every binding where one exists
// (FoldStats.ShapeArgs), and its shape computation goes; nodes that
// return their input unchanged (a Pad of zeros, a Slice keeping every
// element, Identity, Dropout in inference) are removed. Graph inputs and outputs stay
// (a node producing a graph output is not folded), random ops are never
// folded, and the size caps (MaxFoldBytes, FoldGrowthBytes) leave huge
// results to run time. g must have static inferred shapes; it is not
// modified, and the result shares g's unchanged nodes, values and tensors
// (see the package documentation). Nodes whose evaluation fails stay and
// are listed in FoldStats.Failed.
func Fold(g *graph.Graph, ev Evaluator) (*graph.Graph, FoldStats, error) {
	var st FoldStats
	if g == nil {
		return nil, st, fmt.Errorf("rewrite: Fold: nil graph")
	}
	gx, err := newIndex(g)
	if err != nil {
		return nil, st, err
	}
	d := newDraft(gx)
	d.eval = ev
	start := make([]nodeRef, len(gx.nodes))
	for p := range gx.nodes {
		start[p] = nodeRef{p: int32(p)}
	}
	if err := d.fold(start, &st, false, MaxFoldBytes); err != nil {
		return nil, st, err
	}
	var seeds []*graph.Value
	seeds, st.ShapeArgs = d.constShapeArgs()
	noops, dropped := d.dropNoOps()
	seeds = append(seeds, noops...)
	st.NoOps = dropped
	for _, n := range gx.nodes {
		seeds = append(seeds, n.Outputs...)
	}
	seeds = append(seeds, g.Initializers...)
	seeds = append(seeds, d.newConsts...)
	st.DeadNodes, st.DeadConsts = d.removeDead(seeds)
	out, _, err := d.finish()
	if err != nil {
		return nil, st, fmt.Errorf("rewrite: Fold: %w", err)
	}
	return out, st, nil
}

// nodeRef locates a node of a draft: base slot p (p >= 0) or added node a
// (p == -1).
type nodeRef struct {
	p int32
	a int
}

func (d *draft) node(r nodeRef) *graph.Node {
	if r.p >= 0 {
		return d.slot[r.p]
	}
	return d.added[r.a]
}

func (d *draft) remove(r nodeRef) {
	if r.p >= 0 {
		d.setSlot(r.p, nil)
	} else {
		d.added[r.a] = nil
	}
}

// fold folds the foldable nodes among start and, in turn, the readers that
// folding makes foldable, leaving nodes whose outputs exceed limit bytes
// (or the growth cap). Inputs of folded nodes are recorded in d.foldSeeds
// for removeDead. With strict set, the first evaluation failure is
// returned as an error; otherwise it is recorded in st.Failed.
func (d *draft) fold(start []nodeRef, st *FoldStats, strict bool, limit int64) error {
	work := append([]nodeRef(nil), start...)
	for i := 0; i < len(work); i++ {
		r := work[i]
		n := d.node(r)
		if n == nil || !d.foldable(n) {
			continue
		}
		if tooLarge(n, limit) {
			st.TooLarge++
			continue
		}
		ts, err := d.memo.eval(n, d.eval)
		if err != nil {
			if strict {
				return err
			}
			st.Failed = append(st.Failed, err.Error())
			continue
		}
		var from, to []*graph.Value
		for k, o := range n.Outputs {
			if o == nil {
				continue
			}
			c := &graph.Value{Name: o.Name, Doc: o.Doc, Const: ts[k]}
			c.SetStatic(ts[k].DType, ts[k].Shape)
			from, to = append(from, o), append(to, c)
			d.addConst(c)
		}
		d.remove(r)
		d.foldSeeds = append(d.foldSeeds, n.AllInputs()...)
		st.Folded++
		work = append(work, d.rewire(from, to)...)
	}
	return nil
}

// foldable reports whether n may be replaced by constants: a default-domain
// op in the schema table, not random, producing no graph output, with
// fixed output shapes (the same for every binding of the model's symbolic
// dimensions), whose inputs are all constants, or whose outputs inference
// computed and found the same for every binding (a Shape of fixed
// dimensions; a dimension that does not depend on a symbol picked out of a
// symbolic shape: symbolicConst).
func (d *draft) foldable(n *graph.Node) bool {
	if n.IsOpaque() || (n.Domain != "" && n.Domain != "ai.onnx") || n.Schema() == nil || len(n.Implicit) > 0 {
		return false
	}
	if strings.HasPrefix(n.Op, "Random") || n.Op == "Multinomial" || n.Op == "Bernoulli" {
		return false
	}
	outs := 0
	for _, o := range n.Outputs {
		if o == nil {
			continue
		}
		if !o.ShapeKnown || !o.Shape.Fixed() {
			return false
		}
		for _, go_ := range d.outputs {
			if go_ == o {
				return false
			}
		}
		outs++
	}
	if outs == 0 {
		return false
	}
	if symbolicConst(n) {
		return true
	}
	if n.Op == "Shape" || n.Op == "Size" {
		x := n.Input(0)
		return x != nil && x.ShapeKnown && x.Shape.Fixed()
	}
	for _, in := range n.Inputs {
		if in != nil && in.Const == nil {
			return false
		}
	}
	return true
}

// symbolicConst reports whether every output of n has a value that
// inference computed and found independent of the symbolic dimensions,
// while some input is not a constant: n then folds to those values.
func symbolicConst(n *graph.Node) bool {
	nonConst := false
	for _, in := range n.Inputs {
		if in != nil && in.Const == nil {
			nonConst = true
		}
	}
	if !nonConst {
		return false
	}
	for _, o := range n.Outputs {
		if o != nil && (o.Known == nil || o.KnownDims != nil || o.Known.DType != o.DType) {
			return false
		}
	}
	return true
}

// tooLarge applies the size caps, with limit in place of MaxFoldBytes.
func tooLarge(n *graph.Node, limit int64) bool {
	var in, out int64
	for _, v := range n.Inputs {
		if v != nil && v.Const != nil {
			in += valueBytes(v)
		}
	}
	for _, v := range n.Outputs {
		if v != nil {
			out += valueBytes(v)
		}
	}
	return out > limit || (out > FoldGrowthBytes && out > 2*in)
}

// valueBytes returns the size of a value with a static shape.
func valueBytes(v *graph.Value) int64 {
	size := int64(v.DType.Size())
	if size <= 0 {
		size = 8
	}
	for _, d := range v.Shape {
		size *= d.Value
	}
	return size
}

// evalNode computes the outputs of a foldable node (nil for absent
// outputs).
func evalNode(n *graph.Node, ev Evaluator) ([]*graph.Tensor, error) {
	out := make([]*graph.Tensor, len(n.Outputs))
	if symbolicConst(n) {
		for k, o := range n.Outputs {
			if o != nil {
				out[k] = o.Known
			}
		}
		return out, nil
	}
	switch n.Op {
	case "Shape":
		out[0] = shapeTensor(n)
		return out, nil
	case "Size":
		out[0] = graph.FromInt64([]int64{int64(graph.NumElements(n.Inputs[0].Shape.Ints()))})
		return out, nil
	case "Concat":
		if t := concatConsts(n); t != nil {
			out[0] = t
			return out, nil
		}
	case "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity":
		// Pure reshapes share the input's (immutable) data.
		x, o := n.Inputs[0].Const, n.Outputs[0]
		if x.DType == o.DType && x.Len() == graph.NumElements(o.Shape.Ints()) && packedLen(x) == x.Len() {
			out[0] = &graph.Tensor{DType: x.DType, Shape: o.Shape.Ints(), Data: x.Data}
			return out, nil
		}
	}
	sub := &graph.Graph{Name: "fold", Nodes: []*graph.Node{n}}
	for _, o := range n.Outputs {
		if o != nil {
			sub.Outputs = append(sub.Outputs, o)
		}
	}
	if ev == nil {
		return nil, fmt.Errorf("folding %v: %w", n, errNoEvaluator)
	}
	res, err := ev(sub)
	if err != nil {
		return nil, fmt.Errorf("folding %v: %w", n, err)
	}
	for k, o := range n.Outputs {
		if o == nil {
			continue
		}
		t := res[o.Name]
		if t == nil {
			return nil, fmt.Errorf("folding %v: output %q was not computed", n, o.Name)
		}
		if t.DType != o.DType || !o.Shape.Equal(graph.StaticShape(t.Shape...)) {
			return nil, fmt.Errorf("folding %v: output %q is %v[%s], declared %v%v", n, o.Name, t.DType, graph.ShapeString(t.Shape), o.DType, o.Shape)
		}
		out[k] = t
	}
	return out, nil
}

// shapeTensor computes Shape(x)[start:end] for a static x.
func shapeTensor(n *graph.Node) *graph.Tensor {
	dims := n.Inputs[0].Shape.Ints()
	r := len(dims)
	clamp := func(i int64) int {
		if i < 0 {
			i += int64(r)
		}
		return int(min(max(i, 0), int64(r)))
	}
	start, end := 0, r
	if n.HasAttr("start") {
		start = clamp(n.AttrInt("start"))
	}
	if n.HasAttr("end") {
		end = clamp(n.AttrInt("end"))
	}
	vals := []int64{}
	for i := start; i < end; i++ {
		vals = append(vals, int64(dims[i]))
	}
	return graph.FromInt64(vals, len(vals))
}

// concatConsts concatenates the constant inputs of a Concat node directly
// (one copy instead of the executor's several); nil when the data is of a
// type it does not handle, so the executor does it.
func concatConsts(n *graph.Node) *graph.Tensor {
	o := n.Outputs[0]
	shape := o.Shape.Ints()
	r := len(shape)
	if r == 0 {
		return nil
	}
	axis := int(n.AttrInt("axis"))
	if axis < 0 {
		axis += r
	}
	if axis < 0 || axis >= r {
		return nil
	}
	outer := graph.NumElements(shape[:axis])
	parts := make([]*graph.Tensor, 0, len(n.Inputs))
	for _, in := range n.Inputs {
		t := in.Const
		if t.DType != o.DType || len(t.Shape) != r || packedLen(t) != t.Len() {
			return nil
		}
		parts = append(parts, t)
	}
	switch o.DType {
	case graph.Float32:
		return concatData[float32](o.DType, shape, parts, outer)
	case graph.Float64:
		return concatData[float64](o.DType, shape, parts, outer)
	case graph.Int64:
		return concatData[int64](o.DType, shape, parts, outer)
	case graph.Int32:
		return concatData[int32](o.DType, shape, parts, outer)
	}
	return nil
}

// concatData concatenates parts (all of element type T, with equal
// dimensions before the axis, whose product is outer) block by block.
func concatData[T any](dt graph.DType, shape []int, parts []*graph.Tensor, outer int) *graph.Tensor {
	data := make([]T, graph.NumElements(shape))
	srcs := make([][]T, len(parts))
	for i, t := range parts {
		src, ok := t.Data.([]T)
		if !ok || outer == 0 || len(src)%outer != 0 {
			return nil
		}
		srcs[i] = src
	}
	off := 0
	for b := 0; b < outer; b++ {
		for _, src := range srcs {
			step := len(src) / outer
			off += copy(data[off:], src[b*step:(b+1)*step])
		}
	}
	if off != len(data) {
		return nil
	}
	return &graph.Tensor{DType: dt, Shape: shape, Data: data}
}

// packedLen returns the number of elements t's data slice holds.
func packedLen(t *graph.Tensor) int {
	switch d := t.Data.(type) {
	case []float32:
		return len(d)
	case []float64:
		return len(d)
	case []int64:
		return len(d)
	case []int32:
		return len(d)
	case []bool:
		return len(d)
	}
	return -1
}
