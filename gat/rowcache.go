package gat

import (
	"hash/maphash"
	"sync"
	"unsafe"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat/nn"
)

// rowCache keeps the encoder's rows from one inference to the next. A
// row's value is fixed by its key: at level 0 its node class and sorted
// incoming edge features, at level l+1 the level-l keys of the rows it
// attends over, in the order it sums them (its own row first). An
// observation after a rewrite differs from the one before only around the
// rewrite, and so do its candidates from it: with the cache, Act computes
// only the rows whose key it has not met, those within Layers hops of a
// change, and copies the others. A cached value is the one computing the
// row again gives (the same operations in the same order on the same
// inputs), so the results equal those of an uncached pass (a test checks
// them). Values hold for one set of encoder parameters: the cache empties
// itself when their fingerprint changes (after an optimiser step) or when
// it holds more than maxCachedFloats values.
type rowCache struct {
	mu     sync.Mutex
	print  uint64
	levels []cacheLevel
	floats int
}

// cacheLevel numbers the keys of one level and holds their rows.
type cacheLevel struct {
	ids  map[string]int32
	vals []float32 // id*hidden: the row of id, once computed
	done []bool
}

// maxCachedFloats bounds the cache (64 MiB of rows).
const maxCachedFloats = 16 << 20

// fingerprintSeed keys the parameter fingerprint; any fixed seed will do.
var fingerprintSeed = maphash.MakeSeed()

// encoderPrint returns a fingerprint of the parameters the encoder's rows
// depend on (node update, class embeddings, GAT layers).
func encoderPrint(m *model[float32]) uint64 {
	var h maphash.Hash
	h.SetSeed(fingerprintSeed)
	params := append(append([]*nn.Param[float32]{}, m.node.Params()...), m.emb)
	for _, g := range m.gat {
		params = append(params, g.Params()...)
	}
	for _, p := range params {
		if len(p.Value) > 0 {
			h.Write(unsafe.Slice((*byte)(unsafe.Pointer(&p.Value[0])), 4*len(p.Value)))
		}
	}
	return h.Sum64()
}

// prepare readies the cache for a pass of m (locked by the caller).
func (c *rowCache) prepare(m *model[float32]) {
	pr := encoderPrint(m)
	if pr != c.print || c.floats > maxCachedFloats || len(c.levels) != m.cfg.Layers+1 {
		c.print, c.floats = pr, 0
		c.levels = make([]cacheLevel, m.cfg.Layers+1)
		for i := range c.levels {
			c.levels[i].ids = map[string]int32{}
		}
	}
}

// id returns the id of key at level l, numbering it when new.
func (c *rowCache) id(l int, key []int32, hidden int) int32 {
	lv := &c.levels[l]
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(key))), 4*len(key))
	if id, ok := lv.ids[string(b)]; ok {
		return id
	}
	id := int32(len(lv.done))
	lv.ids[string(b)] = id
	lv.done = append(lv.done, false)
	lv.vals = append(lv.vals, make([]float32, hidden)...)
	c.floats += hidden
	return id
}

// cachedEncode is encode with rows taken from and added to c (locked by
// the caller; the plan was built with sharing).
func cachedEncode(t *tape[float32], m *model[float32], c *rowCache) {
	p := &t.plan
	hd := m.cfg.Hidden
	for len(t.h) < len(p.levels)+1 {
		t.h = append(t.h, nil)
	}
	// Level 0: the node updates of the rows not cached.
	n0 := p.rows(0)
	t.h[0] = nn.Grow(t.h[0], n0*hd)
	prev := growInt32(&t.ids[0], n0)
	var miss []int32
	for r := range n0 {
		prev[r] = c.id(0, p.key0[p.key0Off[r]:p.key0Off[r+1]], hd)
		if !c.levels[0].done[prev[r]] {
			miss = append(miss, int32(r))
		}
	}
	const ew = env.EdgeDim
	t.aggE = nn.Grow(t.aggE, len(miss)*ew)
	for i, r := range miss {
		for k := range ew {
			t.aggE[i*ew+k] = float32(p.aggE[int(r)*ew+k])
		}
	}
	t.rowTmp = nn.Grow(t.rowTmp, len(miss)*hd)
	m.node.Forward(t.aggE, len(miss), t.rowTmp)
	for i, r := range miss {
		row := t.rowTmp[i*hd : (i+1)*hd]
		class := p.class0[r]
		for k, v := range m.emb.Value[int(class)*hd : int(class+1)*hd] {
			row[k] += v
		}
		nn.LeakyReLU(row, row, actSlope)
	}
	c.fill(0, prev, miss, t.rowTmp, t.h[0], hd)
	t.computed = len(miss)
	// GAT layers: the rows not cached, over the rows they read.
	for l := range p.levels {
		g := &p.levels[l]
		t.h[l+1] = nn.Grow(t.h[l+1], g.NOut*hd)
		cur := growInt32(&t.ids[(l+1)%2], g.NOut)
		miss = miss[:0]
		for r := range g.NOut {
			t.key = t.key[:0]
			for _, s := range g.Src[g.Off[r]:g.Off[r+1]] {
				t.key = append(t.key, prev[s])
			}
			cur[r] = c.id(l+1, t.key, hd)
			if !c.levels[l+1].done[cur[r]] {
				miss = append(miss, int32(r))
			}
		}
		if len(miss) > 0 {
			sub := t.subLevel(g, miss)
			t.hIn = nn.Grow(t.hIn, sub.NIn*hd)
			nn.GatherRows(t.h[l], hd, t.subIn, t.hIn)
			t.rowTmp = nn.Grow(t.rowTmp, len(miss)*hd)
			m.gat[l].Forward(sub, t.hIn, &t.gcTmp, t.rowTmp)
		}
		c.fill(l+1, cur, miss, t.rowTmp, t.h[l+1], hd)
		t.computed += len(miss)
		prev = cur
	}
}

// subLevel returns the part of level g that computes the output rows
// rows, reading the input rows it lists in t.subIn (renumbered in order
// of first use); each row keeps its edges in their order.
func (t *tape[F]) subLevel(g *nn.Graph, rows []int32) *nn.Graph {
	sub := &t.sub
	sub.Self, sub.Src, sub.Off = sub.Self[:0], sub.Src[:0], append(sub.Off[:0], 0)
	t.subIn = t.subIn[:0]
	local := make(map[int32]int32, 4*len(rows))
	remap := func(s int32) int32 {
		if i, ok := local[s]; ok {
			return i
		}
		i := int32(len(t.subIn))
		local[s] = i
		t.subIn = append(t.subIn, s)
		return i
	}
	for _, r := range rows {
		sub.Self = append(sub.Self, remap(g.Self[r]))
		for _, s := range g.Src[g.Off[r]:g.Off[r+1]] {
			sub.Src = append(sub.Src, remap(s))
		}
		sub.Off = append(sub.Off, int32(len(sub.Src)))
	}
	sub.NIn, sub.NOut = len(t.subIn), len(rows)
	return sub
}

// fill stores the computed rows (miss[i] has value computed[i]) in level
// l and writes every row of ids (cached or just computed) to h.
func (c *rowCache) fill(l int, ids, miss []int32, computed, h []float32, hd int) {
	lv := &c.levels[l]
	for i, r := range miss {
		id := ids[r]
		copy(lv.vals[int(id)*hd:int(id+1)*hd], computed[i*hd:(i+1)*hd])
		lv.done[id] = true
	}
	for r, id := range ids {
		copy(h[r*hd:(r+1)*hd], lv.vals[int(id)*hd:int(id+1)*hd])
	}
}

// growInt32 resizes *buf to n entries and returns it.
func growInt32(buf *[]int32, n int) []int32 {
	*buf = nn.GrowInt32(*buf, n)
	return *buf
}
