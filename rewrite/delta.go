package rewrite

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/xrl-dev/xrl/graph"
)

// Lazy candidates. A candidate's graph shares every node its rewrite does
// not touch with the input graph, but its node list alone has one entry
// per node: a generation of C candidates of an N-node graph builds C
// lists of N entries, and on a chain (a residual MLP, an unrolled RNN)
// C grows with N. A lazy candidate keeps only what its rewrite changed (a
// delta over the input graph, the generation's base) and builds its
// graph when asked (Candidate.Materialize); its node count, the nodes it
// replaced and those it put in their place are known without building it.

// generation is what the candidates of one input graph share: its index
// and its digests.
type generation struct {
	gx *gindex
	hb *hashBase
	// inOrder says the index's order is the base graph's node order, so
	// that base positions are indices into its Nodes.
	inOrder bool

	// sortedVals holds the digests of the base graph's values (inputs,
	// constants, node outputs), sorted, for the membership tests of the
	// candidate keys (see key.go); built on first use.
	valsOnce   sync.Once
	sortedVals []graph.Hash
}

// slim drops what only generating the candidates needs (the index's maps
// and name set), keeping what building and hashing them needs: the base
// graph, its node order and its digests.
func (gen *generation) slim() {
	gen.gx = &gindex{g: gen.gx.g, nodes: gen.gx.nodes}
}

// delta is a lazy candidate's change to its generation's base graph.
type delta struct {
	gen *generation
	// repl lists the base positions the rewrite changed, ascending, with
	// their final node (nil: removed) and whether it is a private copy.
	repl []replaced
	// added and tail are the new nodes (see draft), without removed ones.
	added, tail []*graph.Node
	outputs     []*graph.Value
	newConsts   []*graph.Value
	dropped     map[*graph.Value]bool
	pl          placement
	nodes       int

	buildOnce sync.Once
	built     atomic.Bool // g, origins and buildErr are set
	g         *graph.Graph
	origins   []nodeOrigin
	buildErr  error

	hashOnce sync.Once
	hash     graph.Hash

	// key is the change key (see key.go) when keyed, set by the engine;
	// walked says walkKey found it (rather than full hashing).
	key           graph.Hash
	keyed, walked bool
}

// replaced is one changed base position of a delta.
type replaced struct {
	pos int32
	n   *graph.Node
	own bool
}

// capture records what the finished draft d changed (placement pl) as a
// delta of gen; d can be released afterwards.
func capture(d *draft, pl placement, gen *generation) *delta {
	dl := &delta{gen: gen, outputs: d.outputs, pl: pl, dropped: d.dropped}
	seen := make(map[int32]bool, len(d.touched))
	removed := 0
	for _, p := range d.touched {
		if seen[p] {
			continue
		}
		seen[p] = true
		dl.repl = append(dl.repl, replaced{pos: p, n: d.slot[p], own: d.own[p]})
		if d.slot[p] == nil {
			removed++
		}
	}
	slices.SortFunc(dl.repl, func(a, b replaced) int { return int(a.pos - b.pos) })
	for _, n := range d.added {
		if n != nil {
			dl.added = append(dl.added, n)
		}
	}
	dl.tail = append(dl.tail, d.tail...)
	dl.newConsts = append(dl.newConsts, d.newConsts...)
	dl.nodes = len(gen.gx.nodes) - removed + len(dl.added) + len(dl.tail)
	return dl
}

// build returns the candidate's graph, building it on first use, with the
// origin of each node.
func (dl *delta) build() (*graph.Graph, []nodeOrigin, error) {
	dl.buildOnce.Do(func() {
		dl.g, dl.origins, dl.buildErr = dl.assemble()
		if dl.buildErr == nil {
			recordParent(dl.g, dl.gen.gx.g)
		}
		dl.built.Store(true)
	})
	return dl.g, dl.origins, dl.buildErr
}

// assemble builds the candidate's graph from the base and the change.
func (dl *delta) assemble() (*graph.Graph, []nodeOrigin, error) {
	d := newDraft(dl.gen.gx)
	d.outputs = append([]*graph.Value(nil), dl.outputs...)
	d.added = dl.added
	d.tail = dl.tail
	d.newConsts = dl.newConsts
	d.dropped = dl.dropped
	for _, r := range dl.repl {
		d.slot[r.pos], d.own[r.pos] = r.n, r.own
	}
	return d.assemble(dl.pl)
}

// canonicalHash returns the candidate's graph.CanonicalHash, computed
// incrementally from the base's digests on first use.
func (dl *delta) canonicalHash() (graph.Hash, error) {
	var err error
	dl.hashOnce.Do(func() { dl.hash, _, err = dl.digest(false) })
	return dl.hash, err
}

// hashAndKey returns the canonical hash and the exact change key (see
// key.go), both from hashing the candidate fully.
func (dl *delta) hashAndKey() (graph.Hash, graph.Hash, error) {
	h, key, err := dl.digest(true)
	if err == nil {
		dl.hashOnce.Do(func() { dl.hash = h })
	}
	return h, key, err
}

// digest hashes the candidate (a graph built only for this is not kept),
// with its change key when withKey.
func (dl *delta) digest(withKey bool) (h, key graph.Hash, err error) {
	var g *graph.Graph
	var origins []nodeOrigin
	if dl.built.Load() {
		g, origins, err = dl.g, dl.origins, dl.buildErr
	} else {
		g, origins, err = dl.assemble()
	}
	if err != nil {
		return h, key, err
	}
	st := newHashState(dl.gen.hb)
	if withKey {
		st.keyOf = dl.gen
	}
	h = dl.gen.hb.candidateHash(st, g, origins)
	if withKey {
		key = st.changeKey(dl.nodes)
	}
	return h, key, nil
}

// order returns the position in the built graph's order of a changed
// base position p (see orderKey), for walking changed nodes without
// building the graph.
func (dl *delta) order(p int32) orderKey {
	if pl := dl.pl; p >= pl.lo && p < pl.at && pl.late != nil && pl.late[p-pl.lo] {
		return orderKey{pl.at, 1, p}
	}
	return orderKey{p, 2, 0}
}

// orderKey sorts the nodes of a delta as build places them: base position
// major; at the added nodes' place (at) the added nodes (kind 0, by
// index), then the late window nodes (kind 1), then base node at (kind 2).
type orderKey struct {
	major int32
	kind  int8
	minor int32
}

func (a orderKey) compare(b orderKey) int {
	return cmp.Or(cmp.Compare(a.major, b.major), cmp.Compare(a.kind, b.kind), cmp.Compare(a.minor, b.minor))
}

// addedKey is the order key of added node a.
func (dl *delta) addedKey(a int) orderKey { return orderKey{dl.pl.at, 0, int32(a)} }

// NodeSource says where a node of a lazy candidate's graph comes from:
// Base is the index, in the base graph's Nodes, of the node it is, or of
// the node it replaces with a copy that reads other inputs (Copy); -1 for
// a node the rewrite added.
type NodeSource struct {
	Base int32
	Copy bool
}

// sources returns the base graph and the NodeSource of every node of the
// built graph; ok is false when base positions are not indices into the
// base graph's Nodes.
func (dl *delta) sources() (*graph.Graph, []NodeSource, bool) {
	if !dl.gen.inOrder {
		return nil, nil, false
	}
	_, origins, err := dl.build()
	if err != nil {
		return nil, nil, false
	}
	src := make([]NodeSource, len(origins))
	for i, o := range origins {
		src[i] = NodeSource{Base: o.pos, Copy: o.pos >= 0 && !o.shared}
	}
	return dl.gen.gx.g, src, true
}

// Change is what a lazy candidate's rewrite changed in the graph it was
// generated from (its base): the base nodes it removed or replaced (Old,
// in base order) and the nodes of the candidate that are not base nodes
// (New: private copies of base nodes whose inputs changed, the rule's
// target nodes and Identity nodes for graph outputs, in the candidate's
// order). Every other node of the candidate is a base node, unchanged.
type Change struct {
	Base     *graph.Graph
	Old, New []*graph.Node
}

// change returns the delta's Change; ok is false when the new nodes'
// order needs the built graph (a rewrite feeding a target's output back
// into it).
func (dl *delta) change() (Change, bool) {
	gx := dl.gen.gx
	ch := Change{Base: gx.g}
	type keyed struct {
		k orderKey
		n *graph.Node
	}
	var news []keyed
	for _, r := range dl.repl {
		ch.Old = append(ch.Old, gx.nodes[r.pos])
		if r.n != nil {
			news = append(news, keyed{dl.order(r.pos), r.n})
		}
	}
	for a, n := range dl.added {
		news = append(news, keyed{dl.addedKey(a), n})
	}
	if !dl.pl.ordered {
		return ch, false
	}
	slices.SortStableFunc(news, func(a, b keyed) int { return a.k.compare(b.k) })
	for _, k := range news {
		ch.New = append(ch.New, k.n)
	}
	ch.New = append(ch.New, dl.tail...)
	return ch, true
}
