package rewrite

import (
	"github.com/xrl-dev/xrl/graph"
)

// A draft is a graph under construction from an indexed base graph by
// copy on write. Base nodes that nothing changes are shared with the base
// (same *graph.Node); a base node whose inputs change is replaced by a
// private shallow copy (new Node, new Inputs slice; its output values,
// attributes and name are shared). Values are shared too: the draft never
// modifies a base node, value or tensor. New nodes (a rule's target,
// Identity nodes for graph outputs) are private.
//
// This is safe because graphs are treated as immutable once built: the
// engine's callers (the environment, the searches, export and latency
// measurement) only read graphs, and anything that must modify one
// (BindShapes, InferShapes) works on a Clone, which copies every node and
// value. The package documentation states this invariant.
type draft struct {
	gx *gindex
	// slot holds the current version of each base node (by position): the
	// base node, a private copy, or nil when removed.
	slot []*graph.Node
	own  []bool // slot node is a private copy
	// owned lists the positions of the private copies; touched every
	// position whose slot changed (private or removed), in order of change.
	owned, touched []int32
	// added are new nodes in topological order (nil once removed); tail
	// are Identity nodes that go last.
	added []*graph.Node
	tail  []*graph.Node
	// outputs are the graph outputs (a private copy of the base's).
	outputs []*graph.Value
	// newConsts are the constants the draft introduces, in order; dropped
	// marks base initializers and new constants no longer read.
	newConsts []*graph.Value
	dropped   map[*graph.Value]bool
	// foldSeeds are the inputs of folded nodes (they may have lost their
	// last reader).
	foldSeeds []*graph.Value
	// memo, when set, remembers folds across candidates and generations.
	memo *foldMemo
	// eval computes folded nodes (see Evaluator).
	eval Evaluator
}

func newDraft(gx *gindex) *draft {
	return newDraftOn(gx, &draftScratch{})
}

// draftScratch holds the base-sized arrays of a draft, so that one worker
// reuses them for every candidate of a generation: a draft on it costs
// what its rewrite changes, not the size of the graph.
type draftScratch struct {
	slot []*graph.Node
	own  []bool
}

// newDraftOn starts a draft on s's arrays, which must hold gx's nodes
// unchanged (as after release) or be empty.
func newDraftOn(gx *gindex, s *draftScratch) *draft {
	if s.slot == nil {
		s.slot = append([]*graph.Node(nil), gx.nodes...)
		s.own = make([]bool, len(gx.nodes))
	}
	return &draft{gx: gx, slot: s.slot, own: s.own,
		outputs: append([]*graph.Value(nil), gx.g.Outputs...),
	}
}

// release restores the scratch arrays to the base graph's nodes, undoing
// what the draft changed; the draft is unusable afterwards.
func (d *draft) release() {
	for _, p := range d.touched {
		d.slot[p], d.own[p] = d.gx.nodes[p], false
	}
	d.slot, d.own = nil, nil
}

// setSlot replaces base slot p (n nil: removes it).
func (d *draft) setSlot(p int32, n *graph.Node) {
	d.slot[p] = n
	d.touched = append(d.touched, p)
}

// readers calls f for every live node of the draft that reads v: a base
// slot (p >= 0), an added node (p == -1, index a) or a tail node (p == -2,
// index a). It stops when f returns false.
func (d *draft) readers(v *graph.Value, f func(p int32, a int) bool) {
	for _, p := range d.gx.consumers[v] {
		if d.slot[p] != nil && !d.own[p] && !f(p, -1) {
			return
		}
	}
	for _, p := range d.owned {
		if n := d.slot[p]; n != nil && reads(n, v) && !f(p, -1) {
			return
		}
	}
	for a, n := range d.added {
		if n != nil && reads(n, v) && !f(-1, a) {
			return
		}
	}
	for a, n := range d.tail {
		if reads(n, v) && !f(-2, a) {
			return
		}
	}
}

// reads reports whether n reads v.
func reads(n *graph.Node, v *graph.Value) bool {
	for _, in := range n.Inputs {
		if in == v {
			return true
		}
	}
	for _, in := range n.Implicit {
		if in == v {
			return true
		}
	}
	return false
}

// isRead reports whether a live node reads v or v is a graph output.
func (d *draft) isRead(v *graph.Value) bool {
	for _, o := range d.outputs {
		if o == v {
			return true
		}
	}
	read := false
	d.readers(v, func(int32, int) bool {
		read = true
		return false
	})
	return read
}

// private returns base slot p as a private copy.
func (d *draft) private(p int32) *graph.Node {
	if !d.own[p] {
		n := *d.slot[p]
		n.Inputs = append([]*graph.Value(nil), n.Inputs...)
		n.Implicit = append([]*graph.Value(nil), n.Implicit...)
		if len(n.Implicit) == 0 {
			n.Implicit = nil
		}
		d.setSlot(p, &n)
		d.own[p] = true
		d.owned = append(d.owned, p)
	}
	return d.slot[p]
}

// rewire makes every node reading one of from[i] read to[i] instead (all
// at once, so a value may be both replaced and a replacement). It returns
// where the changed nodes are (base copies and added nodes; tail nodes are
// changed but not returned). Graph outputs are not touched.
func (d *draft) rewire(from, to []*graph.Value) []nodeRef {
	sub := func(v *graph.Value) (*graph.Value, bool) {
		for i, f := range from {
			if f == v {
				return to[i], true
			}
		}
		return nil, false
	}
	fix := func(n *graph.Node) {
		for i, in := range n.Inputs {
			if w, ok := sub(in); ok {
				n.Inputs[i] = w
			}
		}
		for i, in := range n.Implicit {
			if w, ok := sub(in); ok {
				n.Implicit[i] = w
			}
		}
	}
	// Collect first: rewiring changes who reads what.
	type reader struct {
		p int32
		a int
	}
	var rs []reader
	for _, v := range from {
		d.readers(v, func(p int32, a int) bool {
			for _, r := range rs {
				if r.p == p && (p >= 0 || r.a == a) {
					return true
				}
			}
			rs = append(rs, reader{p, a})
			return true
		})
	}
	var changed []nodeRef
	for _, r := range rs {
		switch {
		case r.p >= 0:
			fix(d.private(r.p))
			changed = append(changed, nodeRef{p: r.p})
		case r.p == -1:
			fix(d.added[r.a])
			changed = append(changed, nodeRef{p: -1, a: r.a})
		default:
			fix(d.tail[r.a])
		}
	}
	return changed
}

// addConst records a constant introduced by the draft.
func (d *draft) addConst(v *graph.Value) { d.newConsts = append(d.newConsts, v) }

// removeDead removes what seeds (values that may have lost their last
// reader) leave unread: nodes none of whose outputs is read (then, in
// turn, what those read) and constants (dropped from the initializers).
// Graph inputs and outputs and opaque nodes always stay. It returns the
// numbers of nodes and of the base graph's initializers removed.
func (d *draft) removeDead(seeds []*graph.Value) (nodes, consts int) {
	work := append([]*graph.Value(nil), seeds...)
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if v == nil || d.gx.isInput[v] || d.isRead(v) {
			continue
		}
		if v.Const != nil {
			if d.dropped[v] {
				continue
			}
			if d.gx.inits[v] || d.isNewConst(v) {
				if d.dropped == nil {
					d.dropped = map[*graph.Value]bool{}
				}
				d.dropped[v] = true
				if d.gx.inits[v] {
					consts++
				}
			}
			continue
		}
		n, p, a := d.producerOf(v)
		if n == nil || n.IsOpaque() {
			continue
		}
		dead := true
		for _, o := range n.Outputs {
			if o != nil && o != v && d.isRead(o) {
				dead = false
				break
			}
		}
		if !dead {
			continue
		}
		if p >= 0 {
			d.setSlot(p, nil)
		} else {
			d.added[a] = nil
		}
		nodes++
		work = append(work, n.AllInputs()...)
	}
	return nodes, consts
}

func (d *draft) isNewConst(v *graph.Value) bool {
	for _, c := range d.newConsts {
		if c == v {
			return true
		}
	}
	return false
}

// producerOf returns the live node producing v: a base slot (p >= 0) or an
// added node (p == -1, index a).
func (d *draft) producerOf(v *graph.Value) (*graph.Node, int32, int) {
	if p := d.gx.producerOf(v); p >= 0 {
		if n := d.slot[p]; n != nil {
			return n, p, -1
		}
		return nil, -1, -1
	}
	for a, n := range d.added {
		if n == nil {
			continue
		}
		for _, o := range n.Outputs {
			if o == v {
				return n, -1, a
			}
		}
	}
	return nil, -1, -1
}

// finish assembles the graph: base nodes in base order with the added
// nodes placed right after the last base node they read, and the tail
// last. When a base node before that place reads an added node, the base
// nodes in between that depend on the added nodes move after them (a node
// both feeding and depending on the added nodes means a cycle, reported
// as a *graph.CycleError).
func (d *draft) finish() (*graph.Graph, []nodeOrigin, error) {
	pl, err := d.place()
	if err != nil {
		return nil, nil, err
	}
	return d.assemble(pl)
}

// placement says where finish puts the added nodes: after base position
// at-1, with the base nodes of the window [lo, at) marked late after them;
// ordered is false when an added node reads a later one (then the whole
// list is sorted topologically).
type placement struct {
	lo, at  int32
	late    []bool
	ordered bool
}

// place computes the placement of the added nodes, or the cycle the
// window reorder finds.
func (d *draft) place() (placement, error) {
	// Where the added nodes can go: after every base node they read. They
	// are in order among themselves unless one reads a later one (a
	// rewrite that feeds a target's output back into it).
	addedOut := map[*graph.Value]int{}
	for a, n := range d.added {
		if n == nil {
			continue
		}
		for _, o := range n.Outputs {
			if o != nil {
				addedOut[o] = a
			}
		}
	}
	pl := placement{ordered: true}
	for a, n := range d.added {
		if n == nil {
			continue
		}
		for _, in := range n.AllInputs() {
			if in == nil {
				continue
			}
			if b, ok := addedOut[in]; ok {
				if b >= a {
					pl.ordered = false
				}
				continue
			}
			if p := d.gx.producerOf(in); p >= 0 && p+1 > pl.at {
				pl.at = p + 1
			}
		}
	}
	// The earliest base node reading an added node.
	pl.lo = pl.at
	for _, p := range d.owned {
		if n := d.slot[p]; n != nil && p < pl.lo && readsAny(n, addedOut) {
			pl.lo = p
		}
	}
	if pl.lo < pl.at && pl.ordered {
		var err error
		if pl.late, err = d.window(pl.lo, pl.at, addedOut); err != nil {
			return pl, err
		}
	}
	return pl, nil
}

// assemble builds the graph with the added nodes placed by pl.
func (d *draft) assemble(pl placement) (*graph.Graph, []nodeOrigin, error) {
	g := d.gx.g
	lo, at, late := pl.lo, pl.at, pl.late
	nodes := make([]*graph.Node, 0, len(d.slot)+len(d.added)+len(d.tail))
	origins := make([]nodeOrigin, 0, cap(nodes))
	addNew := func(ns []*graph.Node) {
		for _, n := range ns {
			if n != nil {
				nodes = append(nodes, n)
				origins = append(origins, nodeOrigin{pos: -1})
			}
		}
	}
	addBase := func(p int32) {
		if n := d.slot[p]; n != nil {
			nodes = append(nodes, n)
			origins = append(origins, nodeOrigin{pos: p, shared: !d.own[p]})
		}
	}
	for p := int32(0); p < lo; p++ {
		addBase(p)
	}
	for p := lo; p < at; p++ {
		if late == nil || !late[p-lo] {
			addBase(p)
		}
	}
	addNew(d.added)
	for p := lo; p < at; p++ {
		if late != nil && late[p-lo] {
			addBase(p)
		}
	}
	for p := at; p < int32(len(d.slot)); p++ {
		addBase(p)
	}
	addNew(d.tail)
	if !pl.ordered {
		where := make(map[*graph.Node]nodeOrigin, len(nodes))
		for i, n := range nodes {
			where[n] = origins[i]
		}
		sorted, err := graph.TopoOrder(nodes)
		if err != nil {
			return nil, nil, err
		}
		nodes = sorted
		for i, n := range nodes {
			origins[i] = where[n]
		}
	}
	inits := make([]*graph.Value, 0, len(g.Initializers)+len(d.newConsts))
	for _, v := range g.Initializers {
		if !d.dropped[v] {
			inits = append(inits, v)
		}
	}
	for _, v := range d.newConsts {
		if !d.dropped[v] {
			inits = append(inits, v)
		}
	}
	return &graph.Graph{
		Name: g.Name, Doc: g.Doc,
		Inputs:       append([]*graph.Value(nil), g.Inputs...),
		Outputs:      d.outputs,
		Initializers: inits,
		Nodes:        nodes,
		Extra:        g.Extra,
	}, origins, nil
}

// readsAny reports whether n reads a value of set.
func readsAny(n *graph.Node, set map[*graph.Value]int) bool {
	for _, in := range n.AllInputs() {
		if _, ok := set[in]; ok {
			return true
		}
	}
	return false
}

// window orders the base nodes of positions [lo, at), where the added
// nodes read nodes up to at-1 and a node at lo reads an added node: it
// marks the nodes that depend on the added nodes (they go after them). A
// node that also feeds the added nodes makes a cycle.
func (d *draft) window(lo, at int32, addedOut map[*graph.Value]int) ([]bool, error) {
	in := func(p int32) bool { return p >= lo && p < at && d.slot[p] != nil }
	late := make([]bool, at-lo)
	var work []int32
	for _, p := range d.owned {
		if in(p) && readsAny(d.slot[p], addedOut) && !late[p-lo] {
			late[p-lo] = true
			work = append(work, p)
		}
	}
	for len(work) > 0 {
		p := work[len(work)-1]
		work = work[:len(work)-1]
		for _, o := range d.slot[p].Outputs {
			if o == nil {
				continue
			}
			for _, q := range d.gx.consumers[o] {
				if in(q) && !late[q-lo] && (!d.own[q] || reads(d.slot[q], o)) {
					late[q-lo] = true
					work = append(work, q)
				}
			}
		}
	}
	// The nodes the added nodes depend on must not be late.
	early := make([]bool, at-lo)
	for _, n := range d.added {
		if n == nil {
			continue
		}
		for _, v := range n.AllInputs() {
			if p := d.gx.producerOf(v); v != nil && in(p) && !early[p-lo] {
				early[p-lo] = true
				work = append(work, p)
			}
		}
	}
	for len(work) > 0 {
		p := work[len(work)-1]
		work = work[:len(work)-1]
		if late[p-lo] {
			stuck := []*graph.Node{d.slot[p]}
			for _, n := range d.added {
				if n != nil {
					stuck = append(stuck, n)
				}
			}
			return nil, &graph.CycleError{Nodes: stuck}
		}
		for _, v := range d.slot[p].AllInputs() {
			if q := d.gx.producerOf(v); v != nil && in(q) && !early[q-lo] {
				early[q-lo] = true
				work = append(work, q)
			}
		}
	}
	return late, nil
}
