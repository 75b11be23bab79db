package rewrite

import (
	"encoding/binary"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules"
)

// The matcher follows a rule's Plan depth first over one mutable partial
// match, undoing each binding when it backtracks (no state is copied per
// step). It agrees with rules.Index.FindMatches, the reference matcher:
// attribute matching and the final conditions are the rules package's own
// (PNode.MatchAttrs, Rule.Holds); op, arity, argument, output and shape
// template checks are reimplemented here over the index.

// prule is a rule prepared for matching.
type prule struct {
	r *rules.Rule
	// inputUsed[pnode][input position] says whether the pattern node
	// fills that input (an argument or a bracketed constant).
	inputUsed [][]bool
	// isSrcOut[pnode][output] marks the source outputs.
	isSrcOut [][]bool
	// mixing: a match whose parts are on one path always makes a cycle
	// (see mixesParts), so scans and consumer steps for a later part skip
	// such nodes.
	mixing bool
	// rooted[pnode] is the plan starting from that source node, for the
	// rules matched incrementally (see incremental.go); nil for the others.
	rooted [][]rules.Step
}

func prepareRule(r *rules.Rule) *prule {
	pr := &prule{r: r,
		inputUsed: make([][]bool, len(r.Source.Nodes)),
		isSrcOut:  make([][]bool, len(r.Source.Nodes)),
		mixing:    mixesParts(r),
	}
	for _, pn := range r.Source.Nodes {
		used := make([]bool, pn.NumInputs)
		for _, p := range pn.ArgInput {
			if p < len(used) {
				used[p] = true
			}
		}
		for _, a := range pn.Attrs {
			if a.Param && a.Input < len(used) {
				used[a.Input] = true
			}
		}
		pr.inputUsed[pn.Index] = used
		pr.isSrcOut[pn.Index] = make([]bool, pn.NumOutputs)
	}
	for _, o := range r.Source.Outputs {
		if o.Kind == rules.RefNode && o.Output < len(pr.isSrcOut[o.Node.Index]) {
			pr.isSrcOut[o.Node.Index][o.Output] = true
		}
	}
	if len(r.Plan) > 0 && !r.Disconnected && !pr.mixing {
		pr.rooted = make([][]rules.Step, len(r.Source.Nodes))
		for _, pn := range r.Source.Nodes {
			pr.rooted[pn.Index] = r.PlanFrom(pn)
		}
	}
	return pr
}

// found is one complete match with the positions of its nodes.
type found struct {
	m   *rules.Match
	pos []int32 // position of each source node's graph node
	// trail is the path of the matcher's search to the match: the
	// position of each node it bound and which way round it took each
	// commutative node's arguments and each shape template's segments.
	// The matcher finds matches in the trails' lexicographic order (see
	// incremental.go).
	trail []uint64
}

// Kinds of the entries of a trail (high 32 bits; the low ones hold the
// value): a node position, a commutative node's argument order, a
// template segment's length.
const (
	trailPos  uint64 = 1 << 32
	trailSwap uint64 = 2 << 32
	trailSeg  uint64 = 3 << 32
)

// matcher is the search state for one rule on one graph.
type matcher struct {
	gx *gindex
	pr *prule
	r  *rules.Rule
	// plan is the plan followed: the rule's, or one from another root
	// (incremental matching, see incremental.go).
	plan []rules.Step
	// only, when not negative, is the one position the first step scans;
	// force, when not nil, is the position each source node must take.
	only  int32
	force []int32
	m     rules.Match
	// pos holds the position of the graph node bound to each source node
	// (-1 when unbound).
	pos []int32
	// outs[pnode][k] is the graph value an unmatched source node's output k
	// must be (bound through an argument of a matched node), or nil.
	outs   [][]*graph.Value
	syms   []rules.Value
	symSet []bool
	// symParams holds, for a symbol bound from dimensions, their Params:
	// a symbol bound again must match both sizes and expressions.
	symParams [][]string
	// saved[depth] holds m.Attrs before the node of plan step depth was
	// bound, to undo attribute bindings.
	saved [][]rules.Value
	// trail is the search's path so far (see found).
	trail []uint64

	seen map[string]bool
	vid  map[*graph.Value]uint32
	key  []byte
	out  []found
	// extPos holds the positions, by source node, of each match rejected
	// because an internal value escapes.
	extPos [][]int32
	// prune enables skipping related nodes for mixing rules; pruned
	// counts the scan and consumer positions skipped.
	prune  bool
	pruned int
}

// findMatches returns every match of pr in gx, in search order, and the
// number of complete matches rejected for external use.
func findMatches(gx *gindex, pr *prule) ([]found, int) {
	fs, external, _ := findMatchesPruned(gx, pr, false)
	return fs, len(external)
}

// findMatchesPruned is findMatches that returns the positions of the
// matches rejected for external use and, with prune set and a mixing
// rule, leaves out the matches whose parts lie on one path of the graph
// (their rewrites all make a cycle) without enumerating them; it also
// returns the number of scan positions so skipped.
func findMatchesPruned(gx *gindex, pr *prule, prune bool) ([]found, [][]int32, int) {
	mt := newMatcher(gx, pr, pr.r.Plan, prune)
	if mt == nil {
		return nil, nil, 0
	}
	mt.step(0)
	return mt.out, mt.extPos, mt.pruned
}

// newMatcher returns a matcher of pr on gx following plan (nil when the
// rule has no plan), with no restriction on its positions.
func newMatcher(gx *gindex, pr *prule, plan []rules.Step, prune bool) *matcher {
	r := pr.r
	if len(plan) == 0 {
		return nil
	}
	mt := &matcher{gx: gx, pr: pr, r: r, plan: plan, only: -1, prune: prune && pr.mixing,
		m: rules.Match{Rule: r,
			Nodes:  make([]*graph.Node, len(r.Source.Nodes)),
			Values: make([]*graph.Value, len(r.Vars)),
			Attrs:  make([]rules.Value, len(r.Vars)),
		},
		pos:       make([]int32, len(r.Source.Nodes)),
		outs:      make([][]*graph.Value, len(r.Source.Nodes)),
		syms:      make([]rules.Value, len(r.Symbols)),
		symSet:    make([]bool, len(r.Symbols)),
		symParams: make([][]string, len(r.Symbols)),
		saved:     make([][]rules.Value, len(plan)),
		seen:      map[string]bool{},
		vid:       map[*graph.Value]uint32{},
	}
	for i := range mt.pos {
		mt.pos[i] = -1
	}
	for _, pn := range r.Source.Nodes {
		mt.outs[pn.Index] = make([]*graph.Value, pn.NumOutputs)
	}
	for i := range mt.saved {
		mt.saved[i] = make([]rules.Value, len(r.Vars))
	}
	return mt
}

// step extends the partial match by plan step i.
func (mt *matcher) step(i int) {
	if i == len(mt.plan) {
		mt.complete()
		return
	}
	st := &mt.plan[i]
	switch st.Kind {
	case rules.StepScan:
		if i == 0 && mt.only >= 0 {
			mt.tryNode(i, st.Node, mt.only)
			return
		}
		for _, p := range mt.scanCandidates(i, st.Node.Op) {
			mt.tryNode(i, st.Node, p)
		}
	case rules.StepProducer:
		v := mt.boundRef(st.From)
		if v == nil {
			return
		}
		if p := mt.gx.producerOf(v); p >= 0 {
			mt.tryNode(i, st.Node, p)
		}
	case rules.StepConsumer:
		v := mt.boundRef(st.From)
		if v == nil {
			return
		}
		for _, p := range mt.consumerCandidates(v, st.Node.Op) {
			mt.tryNode(i, st.Node, p)
		}
	}
}

// scanCandidates returns the positions a scan at plan step i tries: every
// node of the op, or, when pruning a later part of a mixing rule, those
// unrelated to every node bound so far.
func (mt *matcher) scanCandidates(i int, op string) []int32 {
	all := mt.gx.byOp[op]
	if !mt.prune || i == 0 {
		return all
	}
	return mt.unrelatedToBound(op, all, nil)
}

// consumerCandidates returns the positions a consumer step for a node of
// op tries: every reader of v, or, when pruning a later part of a mixing
// rule, the readers unrelated to every node bound so far.
func (mt *matcher) consumerCandidates(v *graph.Value, op string) []int32 {
	readers := mt.gx.consumers[v]
	if !mt.prune {
		return readers
	}
	return mt.unrelatedToBound(op, readers, v)
}

// fewReaders is the reader count up to which a pruned consumer step tests
// each reader for reachability; above it, it lists the nodes of the op
// unrelated to the first bound node and keeps those that read the value
// (a weight read along a whole chain has as many readers as the chain
// has blocks, and all are related).
const fewReaders = 64

// unrelatedToBound returns the positions of list (ascending: the nodes of
// op when v is nil, else the readers of v) that neither reach nor are
// reached by a bound node, and counts the others in mt.pruned.
func (mt *matcher) unrelatedToBound(op string, list []int32, v *graph.Value) []int32 {
	ri := mt.gx.reachability()
	if ri == nil {
		return list
	}
	first := int32(-1)
	for _, q := range mt.pos {
		if q >= 0 {
			first = q
			break
		}
	}
	if first < 0 {
		return list
	}
	var out []int32
	switch {
	case v == nil:
		out = ri.unrelated(op, list, first)
	case len(list) <= fewReaders:
		for _, p := range list {
			if p != first && !ri.related(first, p) {
				out = append(out, p)
			}
		}
	default:
		for _, p := range ri.unrelated(op, mt.gx.byOp[op], first) {
			if reads(mt.gx.nodes[p], v) {
				out = append(out, p)
			}
		}
	}
	bound := 0 // bound nodes of list, neither tried nor pruned
	for _, q := range mt.pos {
		if q < 0 {
			continue
		}
		if n := mt.gx.nodes[q]; (v == nil && n.Op == op) || (v != nil && reads(n, v)) {
			bound++
		}
	}
	keep := out[:0]
	for _, p := range out {
		ok := true
		for _, q := range mt.pos {
			if q >= 0 && q != first && (q == p || ri.related(q, p)) {
				ok = false
				break
			}
		}
		if ok {
			keep = append(keep, p)
		}
	}
	mt.pruned += len(list) - len(keep) - bound
	return keep
}

// boundRef returns the graph value bound to a variable or node output.
func (mt *matcher) boundRef(r rules.Ref) *graph.Value {
	switch r.Kind {
	case rules.RefVar:
		return mt.m.Values[r.Var.Index]
	case rules.RefNode:
		if n := mt.m.Nodes[r.Node.Index]; n != nil {
			return n.Output(r.Output)
		}
		if o := mt.outs[r.Node.Index]; r.Output < len(o) {
			return o[r.Output]
		}
	}
	return nil
}

// tryNode matches source node pn (plan step i) at the graph node at
// position p and continues the search for every way it fits.
func (mt *matcher) tryNode(i int, pn *rules.PNode, p int32) {
	if mt.force != nil && mt.force[pn.Index] != p {
		return
	}
	gn := mt.gx.nodes[p]
	if gn.Op != pn.Op || gn.IsOpaque() || (gn.Domain != "" && gn.Domain != "ai.onnx") {
		return
	}
	for _, q := range mt.pos {
		if q == p {
			return // each graph node matches one source node
		}
	}
	ins := gn.Inputs
	for len(ins) > 0 && ins[len(ins)-1] == nil {
		ins = ins[:len(ins)-1]
	}
	if len(ins) != pn.NumInputs {
		return
	}
	if pn.Schema.MaxOutputs() < 0 {
		if len(gn.Outputs) != pn.NumOutputs {
			return
		}
	} else if len(gn.Outputs) < pn.NumOutputs {
		return
	}
	want := mt.outs[pn.Index]
	for k := 0; k < pn.NumOutputs; k++ {
		if gn.Outputs[k] == nil || (want[k] != nil && want[k] != gn.Outputs[k]) {
			return
		}
	}
	used := mt.pr.inputUsed[pn.Index]
	for k, in := range ins {
		if in != nil && !used[k] {
			return
		}
	}
	saved := mt.saved[i]
	copy(saved, mt.m.Attrs)
	if pn.MatchAttrs(&mt.m, gn) {
		mt.m.Nodes[pn.Index], mt.pos[pn.Index] = gn, p
		mt.trail = append(mt.trail, trailPos|uint64(uint32(p)))
		if pn.Commutative && len(pn.Args) == 2 {
			mt.trail = append(mt.trail, trailSwap)
			mt.bindArgs(i, pn, ins, false, 0)
			mt.trail[len(mt.trail)-1] = trailSwap | 1
			mt.bindArgs(i, pn, ins, true, 0)
			mt.trail = mt.trail[:len(mt.trail)-1]
		} else {
			mt.bindArgs(i, pn, ins, false, 0)
		}
		mt.trail = mt.trail[:len(mt.trail)-1]
		mt.m.Nodes[pn.Index], mt.pos[pn.Index] = nil, -1
	}
	copy(mt.m.Attrs, saved)
}

// bindArgs binds arguments j... of pn (swapped: a commutative node's two
// arguments in the other order) and then continues with plan step i+1.
func (mt *matcher) bindArgs(i int, pn *rules.PNode, ins []*graph.Value, swapped bool, j int) {
	if j == len(pn.Args) {
		mt.step(i + 1)
		return
	}
	a := pn.Args[j]
	p := pn.ArgInput[j]
	if swapped {
		p = pn.ArgInput[1-j]
	}
	gv := ins[p]
	if gv == nil {
		return
	}
	switch a.Kind {
	case rules.RefVar:
		idx := a.Var.Index
		if old := mt.m.Values[idx]; old != nil {
			if old == gv {
				mt.bindArgs(i, pn, ins, swapped, j+1)
			}
			return
		}
		mt.fitTemplate(a.Var, gv, func() {
			mt.m.Values[idx] = gv
			mt.bindArgs(i, pn, ins, swapped, j+1)
			mt.m.Values[idx] = nil
		})
	case rules.RefNode:
		if n := mt.m.Nodes[a.Node.Index]; n != nil {
			if n.Output(a.Output) == gv {
				mt.bindArgs(i, pn, ins, swapped, j+1)
			}
			return
		}
		o := mt.outs[a.Node.Index]
		if old := o[a.Output]; old != nil {
			if old == gv {
				mt.bindArgs(i, pn, ins, swapped, j+1)
			}
			return
		}
		o[a.Output] = gv
		mt.bindArgs(i, pn, ins, swapped, j+1)
		o[a.Output] = nil
	}
}

// fitTemplate calls cont once for every way gv's shape fits v's template
// given the symbols bound so far, with the new symbols bound. Only
// floating-point values fit (rules are verified in floating point).
func (mt *matcher) fitTemplate(v *rules.Var, gv *graph.Value, cont func()) {
	if !gv.DType.IsFloat() {
		return
	}
	if v.Template == nil {
		cont()
		return
	}
	if !gv.ShapeKnown || !gv.Shape.Static() {
		return
	}
	dims := v.Template.Dims
	shape := gv.Shape
	var walk func(i, k int)
	walk = func(i, k int) {
		if i == len(dims) {
			if k == len(shape) {
				cont()
			}
			return
		}
		d := dims[i]
		if d.Seg != nil {
			si := d.Seg.Index
			if mt.symSet[si] {
				seg := mt.syms[si].Ints
				if k+len(seg) > len(shape) {
					return
				}
				for j, x := range seg {
					if shape[k+j].Value != x || !sameParam(mt.symParams[si], j, shape[k+j]) {
						return
					}
				}
				walk(i+1, k+len(seg))
				return
			}
			rest := 0
			for _, e := range dims[i+1:] {
				if e.Seg == nil {
					rest++
				}
			}
			for n := 0; k+n+rest <= len(shape); n++ {
				seg := make([]int64, n)
				for j := range seg {
					seg[j] = shape[k+j].Value
				}
				mt.syms[si], mt.symSet[si] = rules.Value{Kind: rules.KInts, Ints: seg}, true
				mt.symParams[si] = paramsOf(shape[k : k+n])
				mt.trail = append(mt.trail, trailSeg|uint64(n))
				walk(i+1, k+n)
				mt.trail = mt.trail[:len(mt.trail)-1]
				mt.syms[si], mt.symSet[si], mt.symParams[si] = rules.Value{}, false, nil
			}
			return
		}
		if k >= len(shape) {
			return
		}
		x := shape[k].Value
		switch e := d.Expr; {
		case e.Sym != nil:
			si := e.Sym.Index
			if mt.symSet[si] {
				if mt.syms[si].Int == x && sameParam(mt.symParams[si], 0, shape[k]) {
					walk(i+1, k+1)
				}
				return
			}
			mt.syms[si], mt.symSet[si] = rules.Value{Kind: rules.KInt, Int: x}, true
			mt.symParams[si] = paramsOf(shape[k : k+1])
			walk(i+1, k+1)
			mt.syms[si], mt.symSet[si], mt.symParams[si] = rules.Value{}, false, nil
		case e.Op == rules.ELit:
			if e.Lit.Int == x {
				walk(i+1, k+1)
			}
		default:
			// Computed dimensions are checked by Holds once every
			// symbol is bound.
			walk(i+1, k+1)
		}
	}
	walk(0, 0)
}

// paramsOf returns the Params of dims, or nil when none is symbolic.
func paramsOf(dims graph.Shape) []string {
	if !dims.Symbolic() {
		return nil
	}
	out := make([]string, len(dims))
	for i, d := range dims {
		out[i] = d.Param
	}
	return out
}

// sameParam reports whether d has the expression recorded at position j
// of params (none when params is nil).
func sameParam(params []string, j int, d graph.Dim) bool {
	if params == nil {
		return d.Param == ""
	}
	return j < len(params) && params[j] == d.Param
}

// complete handles a full binding: it drops repeats (the same nodes and
// values reached another way), checks templates and conditions, and that
// no internal value escapes.
func (mt *matcher) complete() {
	key := mt.key[:0]
	for _, p := range mt.pos {
		key = binary.LittleEndian.AppendUint32(key, uint32(p))
	}
	for _, v := range mt.m.Values {
		if v == nil {
			key = binary.LittleEndian.AppendUint32(key, ^uint32(0))
			continue
		}
		key = mt.appendValueKey(key, v)
	}
	mt.key = key
	if mt.seen[string(key)] {
		return
	}
	mt.seen[string(key)] = true
	if !mt.r.Holds(&mt.m, mt.syms, mt.gx.producerNode) {
		return
	}
	if !mt.closed() {
		mt.extPos = append(mt.extPos, append([]int32(nil), mt.pos...))
		return
	}
	m := &rules.Match{Rule: mt.r,
		Nodes:  append([]*graph.Node(nil), mt.m.Nodes...),
		Values: append([]*graph.Value(nil), mt.m.Values...),
		Attrs:  append([]rules.Value(nil), mt.m.Attrs...),
	}
	mt.out = append(mt.out, found{m: m, pos: append([]int32(nil), mt.pos...), trail: append([]uint64(nil), mt.trail...)})
}

// appendValueKey appends an identifier of v unique within the graph: its
// producer's position and output index, or for graph inputs and constants
// a number given on first sight.
func (mt *matcher) appendValueKey(key []byte, v *graph.Value) []byte {
	if p := mt.gx.producerOf(v); p >= 0 {
		for k, o := range mt.gx.nodes[p].Outputs {
			if o == v {
				key = binary.LittleEndian.AppendUint32(key, uint32(p))
				return binary.LittleEndian.AppendUint32(key, uint32(k))
			}
		}
	}
	id, ok := mt.vid[v]
	if !ok {
		id = uint32(len(mt.vid))
		mt.vid[v] = id
	}
	key = binary.LittleEndian.AppendUint32(key, ^uint32(1))
	return binary.LittleEndian.AppendUint32(key, id)
}

// closed reports whether every value a matched node makes and something
// outside the match reads (or the graph outputs) is a source output.
func (mt *matcher) closed() bool {
	for pi, n := range mt.m.Nodes {
		srcOut := mt.pr.isSrcOut[pi]
		for k, o := range n.Outputs {
			if o == nil || (k < len(srcOut) && srcOut[k]) {
				continue
			}
			if mt.gx.isOutput[o] {
				return false
			}
			for _, c := range mt.gx.consumers[o] {
				if !mt.inMatch(c) {
					return false
				}
			}
		}
	}
	return true
}

func (mt *matcher) inMatch(p int32) bool {
	for _, q := range mt.pos {
		if q == p {
			return true
		}
	}
	return false
}
