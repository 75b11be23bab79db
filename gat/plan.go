package gat

import (
	"math"
	"slices"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat/nn"
)

// plan is the parameter-independent structure of a batch of graphs: which
// rows each layer computes and how they connect. Rows are shared between
// nodes (of the same or different graphs) whose computations are equal.
type plan struct {
	graphs int
	// class0 and aggE describe the node-update rows: the class and the
	// summed incoming edge features (n0×EdgeDim) of each; with sharing,
	// row r's key (its class and sorted edge features) is
	// key0[key0Off[r]:key0Off[r+1]].
	class0        []int32
	aggE          []float64
	key0, key0Off []int32
	// levels[l] maps the rows of level l (level 0 = node update) to those
	// of level l+1 through GAT layer l.
	levels []nn.Graph
	// Graph g sums rows poolIdx[poolOff[g]:poolOff[g+1]] of the last level,
	// each times poolCnt (how many of g's nodes it stands for).
	poolOff, poolIdx []int32
	poolCnt          []float64
	// global holds each graph's global attribute (graphs×GlobalDim).
	global []float64

	b planBuilder
}

// planBuilder holds scratch space for building plans.
type planBuilder struct {
	nodeOff     []int32 // first batch-wide node of each graph
	class       []int32
	inOff       []int32 // incoming edges of each node, CSR over...
	inSrc       []int32 // ...batch-wide sender nodes
	inFeat      []int32 // ...and indices into feat
	feat        []float32
	idPrev, ids []int32
	key         []int32
	tuples      [][env.EdgeDim]uint32
	intern      interner
}

// rows returns the number of rows of level l.
func (p *plan) rows(l int) int {
	if l == 0 {
		return len(p.class0)
	}
	return p.levels[l-1].NOut
}

// build fills p for graphs, with layers GAT layers; share enables
// sharing of identical rows. The graphs must have passed Check.
func (p *plan) build(graphs []*env.GraphTensor, layers int, share bool) {
	b := &p.b
	p.graphs = len(graphs)
	// Batch-wide node numbering and incoming-edge lists.
	b.nodeOff = nn.GrowInt32(b.nodeOff, len(graphs)+1)
	n, ne := 0, 0
	for g, t := range graphs {
		b.nodeOff[g] = int32(n)
		n += t.NumNodes()
		ne += t.NumEdges()
	}
	b.nodeOff[len(graphs)] = int32(n)
	b.class = b.class[:0]
	b.feat = b.feat[:0]
	b.inOff = nn.GrowInt32(b.inOff, n+1)
	clear(b.inOff)
	for g, t := range graphs {
		b.class = append(b.class, t.NodeClass...)
		b.feat = append(b.feat, t.EdgeFeat...)
		for _, r := range t.Receivers {
			b.inOff[b.nodeOff[g]+r+1]++
		}
	}
	for i := 1; i <= n; i++ {
		b.inOff[i] += b.inOff[i-1]
	}
	b.inSrc = nn.GrowInt32(b.inSrc, ne)
	b.inFeat = nn.GrowInt32(b.inFeat, ne)
	b.ids = nn.GrowInt32(b.ids, n) // scratch: fill position per node
	copy(b.ids, b.inOff[:n])
	fe := int32(0)
	for g, t := range graphs {
		base := b.nodeOff[g]
		for e, r := range t.Receivers {
			pos := b.ids[base+r]
			b.ids[base+r]++
			b.inSrc[pos] = base + t.Senders[e]
			b.inFeat[pos] = fe + int32(e)
		}
		fe += int32(t.NumEdges())
	}

	p.level0(n, share)
	if cap(p.levels) < layers {
		p.levels = append(p.levels[:cap(p.levels)], make([]nn.Graph, layers-cap(p.levels))...)
	}
	p.levels = p.levels[:layers]
	for l := range p.levels {
		p.gatLevel(&p.levels[l], n, share)
	}
	p.pool(graphs, share)
	p.global = p.global[:0]
	for _, t := range graphs {
		for _, v := range t.Global {
			p.global = append(p.global, float64(v))
		}
	}
}

// level0 assigns node-update rows: nodes with the same class and the same
// multiset of incoming edge features share a row.
func (p *plan) level0(n int, share bool) {
	b := &p.b
	b.ids = nn.GrowInt32(b.ids, n)
	p.class0 = p.class0[:0]
	p.aggE = p.aggE[:0]
	p.key0, p.key0Off = p.key0[:0], append(p.key0Off[:0], 0)
	b.intern.reset(n)
	for i := 0; i < n; i++ {
		lo, hi := b.inOff[i], b.inOff[i+1]
		b.tuples = b.tuples[:0]
		for _, f := range b.inFeat[lo:hi] {
			var tu [env.EdgeDim]uint32
			for k := range tu {
				tu[k] = math.Float32bits(b.feat[int(f)*env.EdgeDim+k])
			}
			b.tuples = append(b.tuples, tu)
		}
		if share {
			if len(b.tuples) > 1 {
				slices.SortFunc(b.tuples, func(x, y [env.EdgeDim]uint32) int { return slices.Compare(x[:], y[:]) })
			}
			b.key = append(b.key[:0], b.class[i])
			for _, tu := range b.tuples {
				for _, v := range tu {
					b.key = append(b.key, int32(v))
				}
			}
		}
		if !b.assign(i, share, len(p.class0)) {
			continue
		}
		p.class0 = append(p.class0, b.class[i])
		if share {
			p.key0 = append(p.key0, b.key...)
			p.key0Off = append(p.key0Off, int32(len(p.key0)))
		}
		var sum [env.EdgeDim]float64
		for _, tu := range b.tuples {
			for k, v := range tu {
				sum[k] += float64(math.Float32frombits(v))
			}
		}
		p.aggE = append(p.aggE, sum[:]...)
	}
}

// assign sets the row of node i: with share, the row interned for b.key
// (reporting whether b.key is new); without, the fresh row next.
func (b *planBuilder) assign(i int, share bool, next int) bool {
	if !share {
		b.ids[i] = int32(next)
		return true
	}
	id, fresh := b.intern.get(b.key)
	b.ids[i] = id
	return fresh
}

// gatLevel assigns the rows of the next level from the current ids (in
// b.ids): nodes whose own row and multiset of sender rows agree share a
// row. Every row's edge list starts with its self-loop.
func (p *plan) gatLevel(g *nn.Graph, n int, share bool) {
	b := &p.b
	b.idPrev, b.ids = b.ids, nn.GrowInt32(b.idPrev, n)
	g.NIn = 0
	for _, id := range b.idPrev[:n] {
		g.NIn = max(g.NIn, int(id)+1)
	}
	g.Self = g.Self[:0]
	g.Src = g.Src[:0]
	g.Off = append(g.Off[:0], 0)
	b.intern.reset(n)
	for i := 0; i < n; i++ {
		self := b.idPrev[i]
		b.key = append(b.key[:0], self)
		for _, s := range b.inSrc[b.inOff[i]:b.inOff[i+1]] {
			b.key = append(b.key, b.idPrev[s])
		}
		if share {
			if len(b.key) > 2 {
				slices.Sort(b.key[1:])
			}
		}
		if !b.assign(i, share, len(g.Self)) {
			continue
		}
		g.Self = append(g.Self, self)
		g.Src = append(g.Src, b.key...) // the self-loop, then the senders
		g.Off = append(g.Off, int32(len(g.Src)))
	}
	g.NOut = len(g.Self)
}

// pool lists, for every graph, the last-level rows of its nodes with
// their multiplicities.
func (p *plan) pool(graphs []*env.GraphTensor, share bool) {
	b := &p.b
	p.poolOff = append(p.poolOff[:0], 0)
	p.poolIdx = p.poolIdx[:0]
	p.poolCnt = p.poolCnt[:0]
	for g := range graphs {
		ids := b.ids[b.nodeOff[g]:b.nodeOff[g+1]]
		if !share {
			p.poolIdx = append(p.poolIdx, ids...)
			for range ids {
				p.poolCnt = append(p.poolCnt, 1)
			}
		} else {
			b.key = append(b.key[:0], ids...)
			slices.Sort(b.key)
			for i := 0; i < len(b.key); {
				j := i + 1
				for j < len(b.key) && b.key[j] == b.key[i] {
					j++
				}
				p.poolIdx = append(p.poolIdx, b.key[i])
				p.poolCnt = append(p.poolCnt, float64(j-i))
				i = j
			}
		}
		p.poolOff = append(p.poolOff, int32(len(p.poolIdx)))
	}
}

// interner numbers distinct keys (int32 sequences) in order of first
// appearance. Its hash table is open-addressed with linear probing: slot
// i holds a key hash and the latest id with that hash (ids with equal
// hashes are chained through next).
type interner struct {
	hashes []uint64
	heads  []int32 // -1: empty slot
	mask   uint64
	next   []int32 // next[id]: earlier id with the same hash, or -1
	off    []int32 // key of id: keys[off[id]:off[id+1]]
	keys   []int32
}

func (t *interner) reset(sizeHint int) {
	n := 16
	for n < 2*sizeHint {
		n *= 2
	}
	if len(t.heads) != n {
		t.hashes = make([]uint64, n)
		t.heads = make([]int32, n)
	}
	for i := range t.heads {
		t.heads[i] = -1
	}
	t.mask = uint64(n - 1)
	t.next = t.next[:0]
	t.off = append(t.off[:0], 0)
	t.keys = t.keys[:0]
}

// get returns the id of key and whether it is new. At most sizeHint
// distinct keys may be added after reset.
func (t *interner) get(key []int32) (int32, bool) {
	h := hashKey(key)
	i := h & t.mask
	for ; t.heads[i] >= 0; i = (i + 1) & t.mask {
		if t.hashes[i] != h {
			continue
		}
		for id := t.heads[i]; id >= 0; id = t.next[id] {
			if slices.Equal(t.keys[t.off[id]:t.off[id+1]], key) {
				return id, false
			}
		}
		break
	}
	id := int32(len(t.next))
	t.next = append(t.next, t.heads[i]) // -1 for a fresh slot
	t.keys = append(t.keys, key...)
	t.off = append(t.off, int32(len(t.keys)))
	t.hashes[i] = h
	t.heads[i] = id
	return id, true
}

func hashKey(k []int32) uint64 {
	h := uint64(len(k)) * 0x9e3779b97f4a7c15
	for _, x := range k {
		h ^= uint64(uint32(x))
		h *= 0xff51afd7ed558ccd
		h ^= h >> 29
	}
	return h
}
