package rewrite

import (
	"fmt"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// FusionFormsTolerance is the relative error, in float64, that the
// fusion passes' results may show against their input when they run after
// Canonicalize (CanonicalFirst): a canonicalisation rule that computes a
// constant from a matched one (x*c becomes x/(1/c)) folds it in float32,
// which moves results by float32 rounding of that constant, about 1e-7 of
// their scale.
const FusionFormsTolerance = 1e-6

// FusionFormsRules are the canonicalisation rules for the exporters'
// near-misses of ONNX Runtime's fusion patterns that FusionForms repaired
// itself before they were rules (Erf(x*(1/√2)), x*x*x, ReduceMean(d*d), a
// tanh GELU's 0.5 placed last). The ort-fusion-forms pass offered to the
// search and the agent runs them first (its Pass.SearchCanonical), so that
// the environment the built-in agent was trained in is unchanged; the
// measured passes run every canonicalisation rule.
var FusionFormsRules = []string{"gelu-erf-mul-to-div", "cube-to-pow", "square-mean-to-pow", "gelu-tanh-half-first"}

// ortConstRel is the relative tolerance ONNX Runtime's fusions allow a
// scalar constant (1e-5, with an absolute 1e-8).
const ortConstRel = 1e-5

// FusionForms restores the GELUs that xrl's own rules break into the
// exact pattern ONNX Runtime's CPU graph optimiser fuses:
//
//	Mul(MatMul(G, W), 0.5), G = x*(1+erf(x/√2))   MatMul(Mul(G, 0.5), W)   undoes rule matmul-scale-left-out on a GELU
//	MatMul(G, C) or Gemm(G, C, ..), C constant     MatMul(Mul(G, 0.5), 2C)  undoes matmul-scale-into-right after it
//
// Both are exact (scaling by 0.5 and 2). The near-misses that exporters
// write (Erf(x*(1/√2)), x*x*x, ReduceMean(d*d), the 0.5 of a tanh GELU
// placed last, RMSNorm's x*(1/sqrt(v))) are canonicalisation rules
// (rules/data/canonical.rules), which Canonicalize applies before this
// pass (the pipeline runs it as CanonicalFirst). Only float32 and float64
// values are rewritten. It reports whether anything changed; g is not
// modified.
func FusionForms(g *graph.Graph) (*graph.Graph, bool, error) {
	if g == nil {
		return nil, false, fmt.Errorf("rewrite: FusionForms: nil graph")
	}
	if !hasDefaultOp(g, "Erf", "ReduceMean", "Mul") {
		// Every form below rewrites an Erf, a ReduceMean or a Mul, or
		// (GELU's half into a weight) reads one.
		return g, false, nil
	}
	c := g.Clone()
	f := &formFixer{attnFuser: &attnFuser{g: c, prod: c.Producers(), cons: c.Consumers(), names: c.Names()}, drop: map[*graph.Node]bool{}}
	for _, v := range c.Outputs {
		f.isOut = append(f.isOut, v)
	}
	changed := false
	for _, n := range append([]*graph.Node(nil), c.Nodes...) {
		if !defaultDomain(n) || f.drop[n] {
			continue
		}
		switch n.Op {
		case "Mul":
			changed = f.geluHalfBack(n) || changed
		case "MatMul", "Gemm":
			changed = f.geluHalfFromWeight(n) || changed
		}
	}
	if !changed {
		return g, false, nil
	}
	kept := c.Nodes[:0]
	for _, n := range c.Nodes {
		if !f.drop[n] {
			kept = append(kept, n)
		}
	}
	c.Nodes = kept
	if err := c.Sort(); err != nil {
		return nil, false, fmt.Errorf("rewrite: FusionForms: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, false, fmt.Errorf("rewrite: FusionForms: %w", err)
	}
	return c, true, nil
}

// formFixer holds the graph FusionForms edits in place, its indexes
// (those FuseAttention keeps) and the nodes to remove.
type formFixer struct {
	*attnFuser
	drop map[*graph.Node]bool
}

// producer returns v's producer when it is a default-domain op of type op.
func (f *formFixer) producer(v *graph.Value, op string) (*graph.Node, bool) {
	p := f.prod[v]
	if p == nil || p.Op != op || !defaultDomain(p) || f.drop[p] || len(p.Outputs) != 1 {
		return nil, false
	}
	return p, true
}

// soleUse reports whether n is v's only reader and v is no graph output.
func (f *formFixer) soleUse(v *graph.Value, n *graph.Node) bool {
	for _, o := range f.isOut {
		if o == v {
			return false
		}
	}
	return len(f.cons[v]) == 1 && f.cons[v][0] == n
}

// floatValue reports whether v is a float32 or float64 value.
func floatValue(v *graph.Value) bool {
	return v != nil && (v.DType == graph.Float32 || v.DType == graph.Float64)
}

// scalarOf returns a rank-0 constant of v's dtype holding x.
func (f *formFixer) scalarOf(v *graph.Value, base string, x float64) *graph.Value {
	var t *graph.Tensor
	if v.DType == graph.Float64 {
		t = graph.FromFloat64([]float64{x})
	} else {
		t = graph.FromFloat32([]float32{float32(x)})
	}
	c := &graph.Value{Name: graph.UniqueName(f.names, base), Const: t}
	c.SetStatic(t.DType, nil)
	return c
}

// near reports whether a is within ONNX Runtime's constant tolerance of b.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-8+ortConstRel*math.Abs(b)
}

// scalarOperand splits the binary node n into a non-constant operand and
// a scalar float constant near want; ok is false when n has no such pair.
func scalarOperand(n *graph.Node, want float64) (x *graph.Value, c float64, ok bool) {
	if len(n.Inputs) != 2 {
		return nil, 0, false
	}
	for i := range 2 {
		if s, isS := scalarConst(n.Inputs[i]); isS && near(s, want) && !n.Inputs[1-i].IsConst() {
			return n.Inputs[1-i], s, true
		}
	}
	return nil, 0, false
}

// halved returns p when n = Mul(p's output, 0.5), p of type op, n the
// only reader of that float output.
func (f *formFixer) halved(n *graph.Node, op string) (*graph.Node, bool) {
	v, half, ok := scalarOperand(n, 0.5)
	if !ok || half != 0.5 || !floatValue(v) {
		return nil, false
	}
	p, ok := f.producer(v, op)
	if !ok || !f.soleUse(v, n) {
		return nil, false
	}
	return p, true
}

// geluHalfBack turns Mul(MatMul(G, W), 0.5), where G = x*(1+erf(x/√2))
// without its factor 0.5, back into MatMul(Mul(G, 0.5), W). Scaling by 0.5
// is exact, so both orders give the same values.
func (f *formFixer) geluHalfBack(n *graph.Node) bool {
	mm, ok := f.halved(n, "MatMul")
	if !ok || !f.isHalflessGelu(mm.Inputs[0]) || !f.soleUse(mm.Inputs[0], mm) {
		return false
	}
	h, scale, ok := f.halfOf(mm.Inputs[0], n.Name)
	if !ok {
		return false
	}
	mm.Inputs = []*graph.Value{h, mm.Inputs[1]}
	mm.Outputs = []*graph.Value{n.Outputs[0]}
	f.drop[n] = true
	f.g.Nodes = append(f.g.Nodes, scale)
	return true
}

// geluHalfFromWeight turns MatMul(G, C) or Gemm(G, C, ...), G a GELU
// without its factor 0.5 and C a float constant, into the same op of
// Mul(G, 0.5) and 2C: both scalings are exact. A MatMul whose output is
// halved next is left to geluHalfBack.
func (f *formFixer) geluHalfFromWeight(n *graph.Node) bool {
	if len(n.Inputs) < 2 || !f.isHalflessGelu(n.Inputs[0]) || !f.soleUse(n.Inputs[0], n) {
		return false
	}
	w := n.Inputs[1]
	if !w.IsConst() || !floatValue(w) || (w.Const.DType != graph.Float32 && w.Const.DType != graph.Float64) {
		return false
	}
	if r := f.cons[n.Outputs[0]]; n.Op == "MatMul" && len(r) == 1 && r[0].Op == "Mul" {
		if _, _, ok := scalarOperand(r[0], 0.5); ok {
			return false
		}
	}
	g := n.Inputs[0]
	h, scale, ok := f.halfOf(g, n.Name)
	if !ok {
		return false
	}
	t := w.Const.Clone()
	switch d := t.Data.(type) {
	case []float32:
		for i := range d {
			d[i] *= 2
		}
	case []float64:
		for i := range d {
			d[i] *= 2
		}
	}
	w2 := &graph.Value{Name: graph.UniqueName(f.names, w.Name+"_x2"), Const: t}
	w2.SetStatic(t.DType, t.Shape)
	ins := append([]*graph.Value(nil), n.Inputs...)
	ins[0], ins[1] = h, w2
	n.Inputs = ins
	f.g.Nodes = append(f.g.Nodes, scale)
	return true
}

// halfOf returns a new value h and the node h = Mul(g, 0.5).
func (f *formFixer) halfOf(g *graph.Value, base string) (*graph.Value, *graph.Node, bool) {
	if dims(g) == nil {
		return nil, nil, false
	}
	h := &graph.Value{Name: graph.UniqueName(f.names, g.Name+"_half"), DType: g.DType, Shape: g.Shape.Clone(), ShapeKnown: true}
	scale := &graph.Node{Name: graph.UniqueName(f.names, base+"_gelu_half"), Op: "Mul",
		Inputs: []*graph.Value{g, f.scalarOf(g, base+"_half_const", 0.5)}, Outputs: []*graph.Value{h}}
	return h, scale, true
}

// isHalflessGelu reports whether v = Mul(x, Add(Erf(Div(x, √2)), 1)),
// operands of Mul and Add in either order (Div possibly just rewritten).
func (f *formFixer) isHalflessGelu(v *graph.Value) bool {
	m, ok := f.producer(v, "Mul")
	if !ok || len(m.Inputs) != 2 || !floatValue(v) {
		return false
	}
	for i := range 2 {
		x := m.Inputs[i]
		add, ok := f.producer(m.Inputs[1-i], "Add")
		if !ok {
			continue
		}
		e, _, ok := scalarOperand(add, 1)
		if !ok {
			continue
		}
		erf, ok := f.producer(e, "Erf")
		if !ok {
			continue
		}
		div, ok := f.producer(erf.Inputs[0], "Div")
		if !ok || len(div.Inputs) != 2 || div.Inputs[0] != x {
			continue
		}
		if s, isS := scalarConst(div.Inputs[1]); isS && near(s, math.Sqrt2) {
			return true
		}
	}
	return false
}
