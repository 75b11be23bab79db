package ruleverify

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
)

// Exact checking. A rule whose source and target use only ops that are
// polynomial or piecewise linear in their inputs is also run in exact
// rational arithmetic on random integers up to 2^24 in magnitude: a wrong
// polynomial rule then differs with probability at least 1 - d/2^25 per
// output (d its degree), and equality is exact rather than within a
// tolerance.

// The op-schema table classes each op (graph.OpSchema.Exact): the
// graph.ExactArith ops are evaluated with rational arithmetic below, the
// graph.ExactMove ops (which only move or copy elements, or insert the
// zeros and constants of Pad) are run by the float executor on element
// numbers, which tells where each output element comes from.

// exactness returns n's exactness class (graph.Inexact for ops outside
// the table).
func exactness(n *graph.Node) graph.Exactness {
	if s := graph.Lookup(n.Domain, n.Op); s != nil {
		return s.Exact
	}
	return graph.Inexact
}

// exactable reports whether every node of g can be evaluated exactly.
func exactable(g *graph.Graph) bool {
	for _, n := range g.Nodes {
		if exactness(n) == graph.Inexact {
			return false
		}
		if n.Op == "Pad" && n.AttrString("mode") != "" && n.AttrString("mode") != "constant" {
			return false
		}
		if n.Op == "Conv" && len(n.Inputs[0].Shape) != 4 {
			return false
		}
		for _, o := range n.Outputs {
			if o != nil && !o.DType.IsFloat() && n.Op != "Shape" {
				return false
			}
		}
	}
	return true
}

// rt is a tensor of exact rationals.
type rt struct {
	shape []int
	d     []*big.Rat
}

// exactCompare runs src and tgt exactly on the same random integer inputs
// (and integer data for their float constants, which conditions only
// inspect by shape) and reports whether every output is equal. Float
// constants the target introduces (const(...)) keep their exact values.
// vars names the initializers that are the rule's tensor variables (the
// others are literals of the rule and keep their values); nonneg names
// those that must not be negative.
func exactCompare(src, tgt *graph.Graph, seed uint64, vars, nonneg map[string]bool) (bool, string, error) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	vals := map[*graph.Value]*rt{}
	for _, v := range append(append([]*graph.Value(nil), src.Inputs...), src.Initializers...) {
		if !v.DType.IsFloat() || (v.Const != nil && !vars[v.Name]) {
			continue
		}
		shape, err := v.StaticShape()
		if err != nil {
			return false, "", err
		}
		t := &rt{shape: shape, d: make([]*big.Rat, graph.NumElements(shape))}
		for i := range t.d {
			x := rng.Int64N(1<<25) - 1<<24
			if nonneg[v.Name] {
				x = rng.Int64N(1<<24) + 1
			}
			t.d[i] = new(big.Rat).SetInt64(x)
		}
		vals[v] = t
	}
	run := func(g *graph.Graph) ([]*rt, error) {
		env := map[*graph.Value]*rt{}
		for k, v := range vals {
			env[k] = v
		}
		order, err := graph.TopoOrder(g.Nodes)
		if err != nil {
			return nil, err
		}
		for _, n := range order {
			if err := exactNode(n, env); err != nil {
				return nil, fmt.Errorf("node %s (%s): %w", n.Name, n.Op, err)
			}
		}
		out := make([]*rt, len(g.Outputs))
		for i, o := range g.Outputs {
			if out[i] = env[o]; out[i] == nil {
				return nil, fmt.Errorf("output %s was not computed", o.Name)
			}
		}
		return out, nil
	}
	a, err := run(src)
	if err != nil {
		return false, "", fmt.Errorf("source: %w", err)
	}
	b, err := run(tgt)
	if err != nil {
		return false, "", fmt.Errorf("target: %w", err)
	}
	for i := range a {
		if len(a[i].d) != len(b[i].d) {
			return false, fmt.Sprintf("output %d: %d elements against %d", i, len(b[i].d), len(a[i].d)), nil
		}
		for k := range a[i].d {
			if a[i].d[k].Cmp(b[i].d[k]) != 0 {
				return false, fmt.Sprintf("output %d element %d: target %s, source %s", i, k, b[i].d[k].RatString(), a[i].d[k].RatString()), nil
			}
		}
	}
	return true, "", nil
}

// constRat returns the exact value of a constant float or int tensor.
func constRat(t *graph.Tensor) (*rt, error) {
	xs, err := t.AsFloat64()
	if err != nil {
		return nil, err
	}
	r := &rt{shape: append([]int(nil), t.Shape...), d: make([]*big.Rat, len(xs))}
	for i, x := range xs {
		q := new(big.Rat)
		if q.SetFloat64(x) == nil {
			return nil, fmt.Errorf("constant %g is not finite", x)
		}
		r.d[i] = q
	}
	return r, nil
}

// input returns the exact value of input i of n (constants on first use).
func input(n *graph.Node, i int, env map[*graph.Value]*rt) (*rt, error) {
	v := n.Inputs[i]
	if t := env[v]; t != nil {
		return t, nil
	}
	if v.Const == nil {
		return nil, fmt.Errorf("input %d (%s) has no value", i, v.Name)
	}
	t, err := constRat(v.Const)
	if err != nil {
		return nil, err
	}
	env[v] = t
	return t, nil
}

// exactNode evaluates one node.
func exactNode(n *graph.Node, env map[*graph.Value]*rt) error {
	if exactness(n) == graph.ExactMove {
		return exactMoveNode(n, env)
	}
	out, err := n.Outputs[0].StaticShape()
	if err != nil {
		return err
	}
	res := &rt{shape: out, d: make([]*big.Rat, graph.NumElements(out))}
	switch n.Op {
	case "Add", "Sub", "Mul", "Max", "Min", "Neg", "Relu":
		var ins []*rt
		for i := range n.Inputs {
			t, err := input(n, i, env)
			if err != nil {
				return err
			}
			ins = append(ins, t)
		}
		idx := make([]int, len(ins))
		for k := range res.d {
			for i, t := range ins {
				idx[i] = broadcastIndex(out, t.shape, k)
			}
			res.d[k] = elementwise(n.Op, ins, idx)
		}
	case "MatMul":
		a, err := input(n, 0, env)
		if err != nil {
			return err
		}
		b, err := input(n, 1, env)
		if err != nil {
			return err
		}
		if len(a.shape) < 2 || len(b.shape) < 2 {
			return fmt.Errorf("exact MatMul needs rank 2 or more")
		}
		m, kk, nn := a.shape[len(a.shape)-2], a.shape[len(a.shape)-1], b.shape[len(b.shape)-1]
		batch := out[:len(out)-2]
		nb := graph.NumElements(batch)
		for bi := 0; bi < nb; bi++ {
			ao := broadcastIndex(batch, a.shape[:len(a.shape)-2], bi) * m * kk
			bo := broadcastIndex(batch, b.shape[:len(b.shape)-2], bi) * kk * nn
			for i := 0; i < m; i++ {
				for j := 0; j < nn; j++ {
					s := new(big.Rat)
					for p := 0; p < kk; p++ {
						s.Add(s, new(big.Rat).Mul(a.d[ao+i*kk+p], b.d[bo+p*nn+j]))
					}
					res.d[bi*m*nn+i*nn+j] = s
				}
			}
		}
	case "Gemm":
		return exactGemm(n, env, res)
	case "Conv":
		return exactConv(n, env, res)
	default:
		return fmt.Errorf("no exact evaluation for %s", n.Op)
	}
	env[n.Outputs[0]] = res
	return nil
}

// elementwise applies an elementwise op to the elements ins[i].d[idx[i]].
func elementwise(op string, ins []*rt, idx []int) *big.Rat {
	x := ins[0].d[idx[0]]
	r := new(big.Rat)
	switch op {
	case "Neg":
		return r.Neg(x)
	case "Relu":
		if x.Sign() < 0 {
			return r
		}
		return r.Set(x)
	}
	r.Set(x)
	for i := 1; i < len(ins); i++ {
		y := ins[i].d[idx[i]]
		switch op {
		case "Add":
			r.Add(r, y)
		case "Sub":
			r.Sub(r, y)
		case "Mul":
			r.Mul(r, y)
		case "Max":
			if y.Cmp(r) > 0 {
				r.Set(y)
			}
		case "Min":
			if y.Cmp(r) < 0 {
				r.Set(y)
			}
		}
	}
	return r
}

// broadcastIndex maps flat index k of shape out to the flat index of the
// element of a tensor of shape in that multidirectional broadcasting
// reads (in right-aligned with out, dimensions of 1 repeated).
func broadcastIndex(out, in []int, k int) int {
	idx, stride := 0, 1
	for a := 1; a <= len(out); a++ {
		d := out[len(out)-a]
		c := k % d
		k /= d
		if a <= len(in) {
			if dn := in[len(in)-a]; dn != 1 {
				idx += c * stride
			}
			stride *= in[len(in)-a]
		}
	}
	return idx
}

// threeInputs returns the two required inputs of n and its optional third
// (nil when absent).
func threeInputs(n *graph.Node, env map[*graph.Value]*rt) (a, b, c *rt, err error) {
	if a, err = input(n, 0, env); err != nil {
		return nil, nil, nil, err
	}
	if b, err = input(n, 1, env); err != nil {
		return nil, nil, nil, err
	}
	if len(n.Inputs) > 2 && n.Inputs[2] != nil {
		if c, err = input(n, 2, env); err != nil {
			return nil, nil, nil, err
		}
	}
	return a, b, c, nil
}

// exactGemm computes alpha * A' B' + beta * C.
func exactGemm(n *graph.Node, env map[*graph.Value]*rt, res *rt) error {
	a, b, c, err := threeInputs(n, env)
	if err != nil {
		return err
	}
	ta, tb := n.AttrInt("transA") != 0, n.AttrInt("transB") != 0
	alpha, beta := new(big.Rat), new(big.Rat)
	alpha.SetFloat64(float64(n.AttrFloat("alpha")))
	beta.SetFloat64(float64(n.AttrFloat("beta")))
	m, kk := a.shape[0], a.shape[1]
	if ta {
		m, kk = kk, m
	}
	nn := b.shape[1]
	if tb {
		nn = b.shape[0]
	}
	at := func(i, p int) *big.Rat {
		if ta {
			return a.d[p*a.shape[1]+i]
		}
		return a.d[i*a.shape[1]+p]
	}
	bt := func(p, j int) *big.Rat {
		if tb {
			return b.d[j*b.shape[1]+p]
		}
		return b.d[p*b.shape[1]+j]
	}
	for i := 0; i < m; i++ {
		for j := 0; j < nn; j++ {
			s := new(big.Rat)
			for p := 0; p < kk; p++ {
				s.Add(s, new(big.Rat).Mul(at(i, p), bt(p, j)))
			}
			s.Mul(s, alpha)
			if c != nil {
				s.Add(s, new(big.Rat).Mul(beta, c.d[broadcastIndex([]int{m, nn}, c.shape, i*nn+j)]))
			}
			res.d[i*nn+j] = s
		}
	}
	env[n.Outputs[0]] = res
	return nil
}

// exactConv computes a 2-D convolution (groups, strides, dilations, pads
// or auto_pad, optional bias).
func exactConv(n *graph.Node, env map[*graph.Value]*rt, res *rt) error {
	x, w, bias, err := threeInputs(n, env)
	if err != nil {
		return err
	}
	N, C, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	O, CW, KH, KW := w.shape[0], w.shape[1], w.shape[2], w.shape[3]
	OH, OW := res.shape[2], res.shape[3]
	g := int(max(n.AttrInt("group"), 1))
	at := func(v []int64, i int, def int) int {
		if i < len(v) {
			return int(v[i])
		}
		return def
	}
	st, dl := n.AttrInts("strides"), n.AttrInts("dilations")
	sh, sw, dh, dw := at(st, 0, 1), at(st, 1, 1), at(dl, 0, 1), at(dl, 1, 1)
	var ph, pw int
	switch ap := n.AttrString("auto_pad"); ap {
	case "SAME_UPPER", "SAME_LOWER":
		th := max(0, (OH-1)*sh+(KH-1)*dh+1-H)
		tw := max(0, (OW-1)*sw+(KW-1)*dw+1-W)
		ph, pw = th/2, tw/2
		if ap == "SAME_LOWER" {
			ph, pw = th-th/2, tw-tw/2
		}
	case "VALID":
	default:
		p := n.AttrInts("pads")
		ph, pw = at(p, 0, 0), at(p, 1, 0)
	}
	if C != CW*g || O%g != 0 {
		return fmt.Errorf("channels %d, weight channels %d, groups %d", C, CW, g)
	}
	og := O / g
	for b := 0; b < N; b++ {
		for o := 0; o < O; o++ {
			grp := o / og
			for i := 0; i < OH; i++ {
				for j := 0; j < OW; j++ {
					s := new(big.Rat)
					if bias != nil {
						s.Set(bias.d[o])
					}
					for c := 0; c < CW; c++ {
						ci := grp*CW + c
						for ki := 0; ki < KH; ki++ {
							y := i*sh - ph + ki*dh
							if y < 0 || y >= H {
								continue
							}
							for kj := 0; kj < KW; kj++ {
								z := j*sw - pw + kj*dw
								if z < 0 || z >= W {
									continue
								}
								s.Add(s, new(big.Rat).Mul(x.d[((b*C+ci)*H+y)*W+z], w.d[((o*CW+c)*KH+ki)*KW+kj]))
							}
						}
					}
					res.d[((b*O+o)*OH+i)*OW+j] = s
				}
			}
		}
	}
	env[n.Outputs[0]] = res
	return nil
}

// exactMoveNode runs a data-movement node with the float executor on
// element numbers (1, 2, ... across its float inputs; 0 is Pad's zero)
// and gathers the exact elements they name.
func exactMoveNode(n *graph.Node, env map[*graph.Value]*rt) error {
	g := &graph.Graph{Name: "exact/" + n.Name}
	cp := *n
	cp.Inputs = make([]*graph.Value, len(n.Inputs))
	var sources []*big.Rat
	inputs := map[string]*graph.Tensor{}
	for i, v := range n.Inputs {
		if v == nil {
			continue
		}
		nv := &graph.Value{Name: fmt.Sprintf("in%d", i), DType: v.DType, Shape: v.Shape, ShapeKnown: v.ShapeKnown}
		cp.Inputs[i] = nv
		if !v.DType.IsFloat() {
			if v.Const == nil {
				return fmt.Errorf("input %d (%s) is computed, not constant", i, v.Name)
			}
			nv.Const = v.Const
			g.Initializers = append(g.Initializers, nv)
			continue
		}
		t, err := input(n, i, env)
		if err != nil {
			return err
		}
		num := graph.NewTensor(graph.Float64, t.shape...)
		for k := range t.d {
			num.Float64s()[k] = float64(len(sources) + k + 1)
		}
		sources = append(sources, t.d...)
		nv.DType = graph.Float64
		g.Inputs = append(g.Inputs, nv)
		inputs[nv.Name] = num
	}
	cp.Outputs = make([]*graph.Value, len(n.Outputs))
	for i, o := range n.Outputs {
		if o == nil {
			continue
		}
		cp.Outputs[i] = &graph.Value{Name: fmt.Sprintf("out%d", i), DType: graph.Float64, Shape: o.Shape, ShapeKnown: o.ShapeKnown}
		g.Outputs = append(g.Outputs, cp.Outputs[i])
	}
	g.Nodes = []*graph.Node{&cp}
	ex, err := executor.NewExecutor(g, executor.ExecOptions{Precision: graph.Float64, Threads: 1})
	if err != nil {
		return err
	}
	outs, err := ex.Run(inputs)
	if err != nil {
		return err
	}
	for i, o := range n.Outputs {
		if o == nil {
			continue
		}
		num := outs[cp.Outputs[i].Name]
		xs, err := num.AsFloat64()
		if err != nil {
			return err
		}
		r := &rt{shape: append([]int(nil), num.Shape...), d: make([]*big.Rat, len(xs))}
		for k, x := range xs {
			switch {
			case x == 0:
				r.d[k] = new(big.Rat)
			case x >= 1 && int(x) <= len(sources) && float64(int(x)) == x:
				r.d[k] = sources[int(x)-1]
			default:
				return fmt.Errorf("element number %g out of range", x)
			}
		}
		env[o] = r
	}
	return nil
}
