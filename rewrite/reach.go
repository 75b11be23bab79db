package rewrite

import (
	"math"
	"slices"
	"sync"
)

// reachIndex answers "does node a reach node b" in O(1) for the nodes of
// an input graph, and lists the nodes of an op that neither reach nor are
// reached by a given node, without visiting the others. Pair rules whose
// rewrite makes every output depend on every input (relu-merge-rows/cols)
// use it to skip pairs of nodes on one path: merging those always makes a
// cycle, and on a long chain they are nearly all pairs.
//
// It covers the nodes with chains (paths of the graph, built greedily in
// topological order) and labels every node with, for each chain, the
// first chain index among its descendants and the last among its
// ancestors. Along a chain the descendants of a node form a suffix and its
// ancestors a prefix, so the nodes of chain c unrelated to a are the open
// interval (anc[a][c], desc[a][c]). Memory is 8 bytes per node and chain:
// one chain for a chain graph, a few for the zoo's branching models.
type reachIndex struct {
	k      int     // number of chains
	chain  []int32 // chain of each position
	idx    []int32 // index of each position within its chain
	chains [][]int32
	// desc[p*k+c] is the smallest index in chain c of a proper
	// descendant of p (math.MaxInt32: none); anc[p*k+c] the largest of a
	// proper ancestor (-1: none).
	desc, anc []int32
	// byOpChain[op][c] holds the chain indices of the op's nodes in chain
	// c, ascending (built on first use, under mu: rules are matched on
	// several goroutines).
	mu        sync.Mutex
	byOpChain map[string][][]int32
}

// maxReachEntries caps the labels (node count times chain count, 8 bytes
// each) at 256 MiB; wider graphs are matched without the index.
const maxReachEntries = 32 << 20

// newReachIndex builds the index of gx, or returns nil when the labels
// would exceed maxReachEntries.
func newReachIndex(gx *gindex) *reachIndex {
	n := len(gx.nodes)
	preds := make([][]int32, n)
	succs := make([][]int32, n)
	for p, nd := range gx.nodes {
		for _, in := range nd.AllInputs() {
			if in == nil {
				continue
			}
			if q := gx.producerOf(in); q >= 0 && !slices.Contains(preds[p], q) {
				preds[p] = append(preds[p], q)
				succs[q] = append(succs[q], int32(p))
			}
		}
	}
	ri := &reachIndex{chain: make([]int32, n), idx: make([]int32, n), byOpChain: map[string][][]int32{}}
	tail := make([]bool, n) // the node ends its chain so far
	for p := range n {
		c := int32(-1)
		for _, q := range preds[p] {
			if tail[q] {
				c, tail[q] = ri.chain[q], false
				break
			}
		}
		if c < 0 {
			c = int32(len(ri.chains))
			ri.chains = append(ri.chains, nil)
		}
		ri.chain[p], ri.idx[p] = c, int32(len(ri.chains[c]))
		ri.chains[c] = append(ri.chains[c], int32(p))
		tail[p] = true
	}
	k := len(ri.chains)
	if n > 0 && k > maxReachEntries/n {
		return nil
	}
	ri.k = k
	ri.desc = make([]int32, n*k)
	ri.anc = make([]int32, n*k)
	for i := range ri.desc {
		ri.desc[i], ri.anc[i] = math.MaxInt32, -1
	}
	for p := n - 1; p >= 0; p-- {
		row := ri.desc[p*k : (p+1)*k]
		for _, q := range succs[p] {
			qrow := ri.desc[int(q)*k : (int(q)+1)*k]
			for c, x := range qrow {
				row[c] = min(row[c], x)
			}
			row[ri.chain[q]] = min(row[ri.chain[q]], ri.idx[q])
		}
	}
	for p := range n {
		row := ri.anc[p*k : (p+1)*k]
		for _, q := range preds[p] {
			qrow := ri.anc[int(q)*k : (int(q)+1)*k]
			for c, x := range qrow {
				row[c] = max(row[c], x)
			}
			row[ri.chain[q]] = max(row[ri.chain[q]], ri.idx[q])
		}
	}
	return ri
}

// related reports whether a reaches b or b reaches a (a != b).
func (ri *reachIndex) related(a, b int32) bool {
	cb, ib := int(ri.chain[b]), ri.idx[b]
	off := int(a) * ri.k
	return ri.desc[off+cb] <= ib || ri.anc[off+cb] >= ib
}

// unrelated returns, ascending, the positions of the nodes among ops
// (positions of one op, ascending, as gindex.byOp holds them) that are
// unrelated to a (neither reach the other), a excluded.
func (ri *reachIndex) unrelated(op string, ops []int32, a int32) []int32 {
	ri.mu.Lock()
	per, ok := ri.byOpChain[op]
	if !ok {
		per = make([][]int32, ri.k)
		for _, p := range ops {
			c := ri.chain[p]
			per[c] = append(per[c], ri.idx[p])
		}
		ri.byOpChain[op] = per
	}
	ri.mu.Unlock()
	var out []int32
	off := int(a) * ri.k
	for c, list := range per {
		lo, hi := ri.anc[off+c], ri.desc[off+c]
		if hi <= lo+1 || len(list) == 0 {
			continue
		}
		i, _ := slices.BinarySearch(list, lo+1)
		for ; i < len(list) && list[i] < hi; i++ {
			if p := ri.chains[c][list[i]]; p != a {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}
