package rewrite

import (
	"container/heap"
	"crypto/sha256"
	"math"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// Change keys. Hashing a candidate costs what lies downstream of its
// rewrite: a node's digest covers everything it is computed from, so a
// rewrite early in a chain changes the digest of every later node. A
// generation of candidates over a whole chain would hash the chain once
// per candidate. To drop duplicates without that, the engine first gives
// every candidate a key that two equal graphs always share, computed from
// the rewritten region only, and hashes fully only the candidates whose
// key another candidate also has.
//
// The key of a candidate c of base graph g is its node count with the
// multiset of digests of c's "minimal new" nodes: the nodes whose digest
// is no node digest of g but whose every input is a constant or has the
// digest of a value of g. It depends on c's structure only (digests are
// canonical), so equal graphs have equal keys; a candidate equal to g has
// no minimal new node. It is found from the rewritten region: digests
// only leave g's values through a value whose digest is new, and every
// node reading such a value is not minimal, so the walk from the changed
// nodes stops there. Where the walk cannot be sure of a digest (a value
// the region reads that may lie downstream of a new digest), the
// candidate is hashed fully, which also yields its key exactly.

// hasVal reports whether h is the digest of a value of the base graph.
func (gen *generation) hasVal(h graph.Hash) bool {
	gen.valsOnce.Do(func() {
		gen.sortedVals = slices.Clone(gen.hb.baseH)
		slices.SortFunc(gen.sortedVals, compareHash)
	})
	_, ok := slices.BinarySearchFunc(gen.sortedVals, h, compareHash)
	return ok
}

// hasNode reports whether h is the digest of a node of the base graph.
func (gen *generation) hasNode(h graph.Hash) bool {
	_, ok := slices.BinarySearchFunc(gen.hb.sorted, h, compareHash)
	return ok
}

// clean reports whether an input with digest h may be read by a minimal
// new node: a constant, or a value with a base value's digest.
func (gen *generation) clean(v *graph.Value, h graph.Hash) bool {
	return v == nil || v.Const != nil || gen.hasVal(h)
}

// noteNew records n, digested as nd while hashing a candidate fully, when
// it is a minimal new node.
func (s *hashState) noteNew(n *graph.Node, nd graph.Hash) {
	if s.keyOf.hasNode(nd) {
		return
	}
	for _, in := range n.Inputs {
		if in != nil && !s.keyOf.clean(in, s.value(in)) {
			return
		}
	}
	s.minNew = append(s.minNew, nd)
}

// changeKey returns the key of the candidate just hashed, with nodes
// nodes.
func (s *hashState) changeKey(nodes int) graph.Hash { return keyOf(nodes, s.minNew) }

// keyOf combines a node count and the minimal new digests (sorted in
// place) into a key.
func keyOf(nodes int, minNew []graph.Hash) graph.Hash {
	slices.SortFunc(minNew, compareHash)
	e := enc(nil).U64(uint64(nodes)).U64(uint64(len(minNew)))
	for _, d := range minNew {
		e = e.Digest(d)
	}
	return sha256.Sum256(e)
}

// graphKey returns the change key of a whole graph g against the base
// graph (digesting all of g).
func (gen *generation) graphKey(g *graph.Graph) graph.Hash {
	st := newHashState(nil)
	st.keyOf = gen
	for i, in := range g.Inputs {
		st.set(in, inputDigest(i, in))
	}
	order, err := graph.TopoOrder(g.Nodes)
	if err != nil {
		order = g.Nodes
	}
	for _, n := range order {
		st.noteNew(n, st.node(n, nodePrefix(n)))
	}
	return keyOf(len(g.Nodes), st.minNew)
}

// walkKey computes dl's key from its changed region; ok is false when
// the walk cannot be sure of it (then canonicalHash gives it). found is
// the number of minimal new nodes.
func (dl *delta) walkKey() (key graph.Hash, found int, ok bool) {
	if !dl.pl.ordered {
		return key, 0, false
	}
	w := keyWalk{dl: dl, gen: dl.gen, digest: map[*graph.Value]graph.Hash{}, taint: map[*graph.Value]bool{}, visited: map[int32]bool{}}
	for _, r := range dl.repl {
		if r.n != nil {
			heap.Push(&w.todo, walkItem{dl.order(r.pos), r.n, r.pos})
		}
	}
	for a, n := range dl.added {
		heap.Push(&w.todo, walkItem{dl.addedKey(a), n, -1})
	}
	for i, n := range dl.tail {
		heap.Push(&w.todo, walkItem{orderKey{math.MaxInt32, 3, int32(i)}, n, -1})
	}
	for w.todo.Len() > 0 {
		it := heap.Pop(&w.todo).(walkItem)
		if it.pos >= 0 {
			if w.visited[it.pos] {
				continue
			}
			w.visited[it.pos] = true
		}
		if !w.visit(it.n, it.pos) {
			return key, 0, false
		}
	}
	return keyOf(dl.nodes, w.minNew), len(w.minNew), true
}

// keyWalk is the state of walkKey: digests of the values it computed
// that are base values' digests, values whose digest is new (tainted),
// the base positions visited and the tainted ones (roots: what lies
// downstream of them in the base graph may have new digests too).
type keyWalk struct {
	dl      *delta
	gen     *generation
	digest  map[*graph.Value]graph.Hash
	taint   map[*graph.Value]bool
	visited map[int32]bool
	roots   []int32
	minNew  []graph.Hash
	todo    walkHeap
	buf     enc
}

// visit digests node n (base position pos, or -1 for a new node) and
// queues the base readers of its outputs whose digest changed to another
// base value's; false means an input's digest is unsure.
func (w *keyWalk) visit(n *graph.Node, pos int32) bool {
	hb := w.gen.hb
	prefix := hb.prefixOf(n, pos)
	e := append(w.buf[:0], prefix...).U64(uint64(len(n.Inputs)))
	clean := true
	for _, in := range n.Inputs {
		h, c, ok := w.input(in)
		if !ok {
			return false
		}
		clean = clean && c
		e = e.Digest(h)
	}
	if !clean {
		// A digest that reads a new digest is new, and so are those of
		// everything downstream: nothing there is minimal.
		for _, o := range n.Outputs {
			if o != nil {
				w.taint[o] = true
			}
		}
		if pos >= 0 {
			w.roots = append(w.roots, pos)
		}
		w.buf = e
		return true
	}
	var nd graph.Hash
	e, nd = finishNode(e, n)
	if !w.gen.hasNode(nd) {
		w.minNew = append(w.minNew, nd)
	}
	rooted := false
	for i, o := range n.Outputs {
		if o == nil {
			continue
		}
		var h graph.Hash
		e, h = outputDigest(e, nd, i, o)
		if !w.gen.hasVal(h) {
			w.taint[o] = true
			if pos >= 0 && !rooted {
				w.roots = append(w.roots, pos)
				rooted = true
			}
			continue
		}
		w.digest[o] = h
		if id, ok := hb.vid[o]; ok && hb.baseH[id] != h {
			w.queueReaders(o)
		}
	}
	w.buf = e
	return true
}

// queueReaders queues the live base readers of v not visited yet.
func (w *keyWalk) queueReaders(v *graph.Value) {
	for _, q := range w.gen.gx.consumers[v] {
		if w.visited[q] {
			continue
		}
		if n := w.dl.slotAt(q); n != nil {
			heap.Push(&w.todo, walkItem{w.dl.order(q), n, q})
		}
	}
}

// input returns the digest of a value a visited node reads and whether
// it is clean (see generation.clean); ok is false when the walk cannot
// tell.
func (w *keyWalk) input(v *graph.Value) (h graph.Hash, clean, ok bool) {
	switch {
	case v == nil:
		return h, true, true
	case w.taint[v]:
		return h, false, true
	}
	if h, found := w.digest[v]; found {
		return h, true, true
	}
	hb := w.gen.hb
	if v.Const != nil {
		if id, found := hb.vid[v]; found {
			return hb.baseH[id], true, true
		}
		return leafDigest(v), true, true
	}
	id, found := hb.vid[v]
	if !found {
		return h, false, false // a new value its producer has not given
	}
	p := w.gen.gx.producerOf(v)
	if p < 0 {
		return hb.baseH[id], true, true // a graph input
	}
	if w.visited[p] || w.dl.changedAt(p) {
		return h, false, false // produced by a changed node not digested first
	}
	// An unchanged node: its digest is the base's unless something new
	// lies upstream of it.
	if len(w.roots) > 0 {
		ri := w.gen.gx.reachability()
		if ri == nil {
			return h, false, false
		}
		for _, r := range w.roots {
			if r < p && ri.related(r, p) {
				return h, false, false
			}
		}
	}
	return hb.baseH[id], true, true
}

// prefixOf returns the bytes the digest of n starts with: the base
// node's at base position pos (a private copy shares them), else n's own.
func (hb *hashBase) prefixOf(n *graph.Node, pos int32) []byte {
	if pos >= 0 {
		return hb.prefix[pos]
	}
	return nodePrefix(n)
}

// slotAt returns the candidate's node at base position p (nil: removed).
func (dl *delta) slotAt(p int32) *graph.Node {
	if i, ok := slices.BinarySearchFunc(dl.repl, p, func(r replaced, p int32) int { return int(r.pos - p) }); ok {
		return dl.repl[i].n
	}
	return dl.gen.gx.nodes[p]
}

// changedAt reports whether the rewrite changed base position p.
func (dl *delta) changedAt(p int32) bool {
	_, ok := slices.BinarySearchFunc(dl.repl, p, func(r replaced, p int32) int { return int(r.pos - p) })
	return ok
}

// walkItem is a node waiting to be visited, by its place in the
// candidate's order.
type walkItem struct {
	k   orderKey
	n   *graph.Node
	pos int32
}

type walkHeap []walkItem

func (h walkHeap) Len() int           { return len(h) }
func (h walkHeap) Less(i, j int) bool { return h[i].k.compare(h[j].k) < 0 }
func (h walkHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *walkHeap) Push(x any)        { *h = append(*h, x.(walkItem)) }
func (h *walkHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
