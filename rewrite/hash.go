package rewrite

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"slices"

	"github.com/xrl-dev/xrl/graph"
)

// Incremental canonical hashing. graph.CanonicalHash digests every node
// from its op, attributes and the digests of its inputs, and the graph
// from its inputs, outputs and the sorted multiset of node digests. A
// candidate differs from its input graph only in the rewritten region and
// downstream of it, so the engine digests the input graph once per
// generation (hashBase) and, per candidate, only the nodes that are new or
// read a value whose digest changed, and merges the changed node digests
// into the input graph's sorted list. The bytes hashed are exactly those
// of graph.CanonicalHash (a test checks every candidate of every zoo model
// against it), so the result is the candidate's canonical hash.

// hashBase holds the digests of an indexed graph.
type hashBase struct {
	// vid numbers the graph inputs, the constants nodes read and the node
	// outputs; baseH holds their digests.
	vid   map[*graph.Value]int32
	baseH []graph.Hash
	// nd and prefix hold each node's digest and the bytes its digest
	// starts with (domain, op, opaque bytes, attributes), by position.
	nd     []graph.Hash
	prefix [][]byte
	sorted []graph.Hash // nd, sorted
	rank   []int32      // position in sorted of each node's digest
	hash   graph.Hash   // the graph's canonical hash
}

// enc is graph's canonical-hash encoding.
type enc = graph.HashEnc

// nodePrefix returns the bytes a node's digest starts with.
func nodePrefix(n *graph.Node) []byte { return enc(nil).NodePrefix(n) }

// hashState digests values and nodes. During the base pass every digest
// goes to the map; for a candidate, values of the base graph are looked up
// by index (vid) in the base digests, overridden by the candidate's own
// (over, has), and values new to the candidate go to the map. A worker
// reuses one hashState for all its candidates.
type hashState struct {
	hb      *hashBase // nil during the base pass
	over    []graph.Hash
	has     []bool
	touched []int32
	fresh   map[*graph.Value]graph.Hash
	kept    []bool // by base position
	skip    []bool // by rank in hb.sorted
	added   []graph.Hash
	buf     enc
	outs    [1]graph.Hash
	// keyOf, when set, makes candidateHash also collect the candidate's
	// change key (see key.go) in minNew.
	keyOf  *generation
	minNew []graph.Hash
}

func newHashState(hb *hashBase) *hashState {
	st := &hashState{hb: hb, fresh: map[*graph.Value]graph.Hash{}}
	if hb != nil {
		st.over = make([]graph.Hash, len(hb.baseH))
		st.has = make([]bool, len(hb.baseH))
		st.kept = make([]bool, len(hb.nd))
		st.skip = make([]bool, len(hb.nd))
	}
	return st
}

// reset forgets the previous candidate.
func (s *hashState) reset() {
	for _, id := range s.touched {
		s.has[id] = false
	}
	s.touched = s.touched[:0]
	clear(s.fresh)
	clear(s.kept)
	clear(s.skip)
	s.added = s.added[:0]
	s.minNew = s.minNew[:0]
}

func (s *hashState) lookup(v *graph.Value) (graph.Hash, bool) {
	if s.hb != nil {
		if id, ok := s.hb.vid[v]; ok {
			if s.has[id] {
				return s.over[id], true
			}
			return s.hb.baseH[id], true
		}
	}
	h, ok := s.fresh[v]
	return h, ok
}

func (s *hashState) set(v *graph.Value, h graph.Hash) {
	if s.hb != nil {
		if id, ok := s.hb.vid[v]; ok {
			if !s.has[id] {
				s.has[id] = true
				s.touched = append(s.touched, id)
			}
			s.over[id] = h
			return
		}
	}
	s.fresh[v] = h
}

// changed reports whether the digest of base value v differs in the
// candidate.
func (s *hashState) changed(v *graph.Value) bool {
	id, ok := s.hb.vid[v]
	return ok && s.has[id]
}

// value returns v's digest, digesting constants and dangling values
// (values with no producer, not inputs) on first sight.
func (s *hashState) value(v *graph.Value) graph.Hash {
	if v == nil {
		return graph.Hash{}
	}
	if h, ok := s.lookup(v); ok {
		return h
	}
	h := leafDigest(v)
	s.set(v, h)
	return h
}

// inputDigest digests graph input i.
func inputDigest(i int, in *graph.Value) graph.Hash {
	e := enc(nil).Str("input").U64(uint64(i)).ValueType(in)
	if in.Const != nil {
		e = e.Tensor(in.Const)
	}
	return sha256.Sum256(e)
}

// leafDigest digests a value that no node of the graph produces and that
// is not a graph input: a constant by content, otherwise a dangling value
// by type.
func leafDigest(v *graph.Value) graph.Hash {
	if v.Const != nil {
		return sha256.Sum256(enc(nil).Str("const").ValueType(v).Tensor(v.Const))
	}
	return sha256.Sum256(enc(nil).Str("dangling").ValueType(v))
}

// node digests n (with the given prefix) and records its outputs'
// digests.
func (s *hashState) node(n *graph.Node, prefix []byte) graph.Hash {
	e := append(s.buf[:0], prefix...)
	e = e.U64(uint64(len(n.Inputs)))
	for _, in := range n.Inputs {
		e = e.Digest(s.value(in))
	}
	var nd graph.Hash
	e, nd = finishNode(e, n)
	for i, o := range n.Outputs {
		if o != nil {
			e, s.outs[0] = outputDigest(e, nd, i, o)
			s.set(o, s.outs[0])
		}
	}
	s.buf = e
	return nd
}

// finishNode ends the encoding e of n's digest (its prefix and input
// digests) and returns the digest; e's buffer is returned for reuse.
func finishNode(e enc, n *graph.Node) (enc, graph.Hash) {
	e = e.U64(uint64(len(n.Outputs)))
	return e, sha256.Sum256(e)
}

// outputDigest returns the digest of output i (value o) of the node with
// digest nd, reusing e's buffer.
func outputDigest(e enc, nd graph.Hash, i int, o *graph.Value) (enc, graph.Hash) {
	e = enc(e[:0]).Digest(nd).U64(uint64(i)).ValueType(o)
	return e, sha256.Sum256(e)
}

// newHashBase digests the indexed graph.
func newHashBase(gx *gindex) *hashBase {
	n := len(gx.nodes)
	hb := &hashBase{nd: make([]graph.Hash, n), prefix: make([][]byte, n)}
	st := newHashState(nil)
	for i, in := range gx.g.Inputs {
		st.set(in, inputDigest(i, in))
	}
	for p, nd := range gx.nodes {
		hb.prefix[p] = nodePrefix(nd)
		hb.nd[p] = st.node(nd, hb.prefix[p])
	}
	hb.vid = make(map[*graph.Value]int32, len(st.fresh))
	hb.baseH = make([]graph.Hash, 0, len(st.fresh))
	for v, h := range st.fresh {
		hb.vid[v] = int32(len(hb.baseH))
		hb.baseH = append(hb.baseH, h)
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return compareHash(hb.nd[a], hb.nd[b]) })
	hb.sorted = make([]graph.Hash, n)
	hb.rank = make([]int32, n)
	for r, p := range order {
		hb.sorted[r] = hb.nd[p]
		hb.rank[p] = int32(r)
	}
	e := st.head(gx.g).U64(uint64(n))
	for _, d := range hb.sorted {
		e = e.Digest(d)
	}
	hb.hash = sha256.Sum256(e)
	return hb
}

// compareHash orders digests bytewise (as graph.CanonicalHash sorts them).
func compareHash(a, b graph.Hash) int {
	x, y := binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8])
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return bytes.Compare(a[8:], b[8:])
}

// head encodes the start of the graph digest: inputs and outputs.
func (s *hashState) head(g *graph.Graph) enc {
	e := s.buf[:0]
	e = e.U64(uint64(len(g.Inputs)))
	for _, in := range g.Inputs {
		h, _ := s.lookup(in)
		e = e.Digest(h)
	}
	e = e.U64(uint64(len(g.Outputs)))
	for _, o := range g.Outputs {
		e = e.Digest(s.value(o))
	}
	return e
}

// nodeOrigin says where a node of a candidate comes from: base position
// pos (or -1 for a new node), shared (the base node itself) or a private
// copy of it.
type nodeOrigin struct {
	pos    int32
	shared bool
}

// candidateHash returns the canonical hash of a candidate g built from the
// base graph; origins describes g.Nodes, which are in topological order.
// st is the worker's scratch state.
func (hb *hashBase) candidateHash(st *hashState, g *graph.Graph, origins []nodeOrigin) graph.Hash {
	st.reset()
	for i, n := range g.Nodes {
		o := origins[i]
		if o.shared {
			clean := true
			for _, in := range n.Inputs {
				if in != nil && st.changed(in) {
					clean = false
					break
				}
			}
			if clean {
				st.kept[o.pos] = true
				continue
			}
		}
		var prefix []byte
		if o.pos >= 0 {
			prefix = hb.prefix[o.pos]
		} else {
			prefix = nodePrefix(n)
		}
		nd := st.node(n, prefix)
		st.added = append(st.added, nd)
		if st.keyOf != nil {
			st.noteNew(n, nd)
		}
	}
	removed := 0
	for p, k := range st.kept {
		if !k {
			st.skip[hb.rank[p]] = true
			removed++
		}
	}
	added := st.added
	slices.SortFunc(added, compareHash)
	// Stream the merge of the base list (less the removed digests) and
	// the added digests into the final digest.
	h := sha256.New()
	e := st.head(g).U64(uint64(len(hb.sorted) - removed + len(added)))
	a := 0
	for r, d := range hb.sorted {
		if st.skip[r] {
			continue
		}
		for a < len(added) && compareHash(added[a], d) < 0 {
			e = e.Digest(added[a])
			a++
		}
		e = e.Digest(d)
		if len(e) >= 4096 {
			h.Write(e)
			e = e[:0]
		}
	}
	for ; a < len(added); a++ {
		e = e.Digest(added[a])
	}
	h.Write(e)
	st.buf = e
	var out graph.Hash
	h.Sum(out[:0])
	return out
}
