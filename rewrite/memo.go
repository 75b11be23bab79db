package rewrite

import (
	"encoding/binary"
	"slices"
	"sync"
	"unsafe"

	"github.com/xrl-dev/xrl/graph"
)

// DefaultMemoBytes is the default budget of an engine's fold memo.
const DefaultMemoBytes = 256 << 20

// foldMemo remembers the constants folding computed, keyed by the op, its
// attributes and its input tensors (see memoKey). Tensors held by
// graphs are immutable, so the same node over the same tensors always
// folds to the same result; successive graphs of a search or an episode
// share most constants, and their candidates repeat most folds (merging
// the same weights again). A hit returns the earlier tensors, whose
// digests are already cached, so the candidate costs neither the fold nor
// hashing the new constant. Entries keep their input tensors alive, so
// the addresses in a key cannot be reused by other tensors while it is
// stored.
// The memo holds at most budget bytes of results; when full it evicts the
// entries not used in the current generation, least recently used first.
type foldMemo struct {
	mu      sync.Mutex
	budget  int64
	bytes   int64
	gen     uint64
	entries map[string]*memoEntry
	hits    int
	misses  int
}

type memoEntry struct {
	inputs  []*graph.Tensor // kept alive: their addresses are in the key
	outputs []*graph.Tensor
	bytes   int64
	used    uint64 // generation of the last use
}

func newFoldMemo(budget int64) *foldMemo {
	return &foldMemo{budget: budget, entries: map[string]*memoEntry{}}
}

// next starts a generation.
func (m *foldMemo) next() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen++
	m.hits, m.misses = 0, 0
}

// stats returns the hits and misses of the current generation.
func (m *foldMemo) stats() (hits, misses int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hits, m.misses
}

// memoSmall is the size (in elements) up to which inputs are keyed by
// content: targets create their small constants (const(1.0), shapes)
// anew for every candidate, while large inputs are weights shared by
// successive graphs, keyed by identity so that they need no digest.
const memoSmall = 4096

// memoKey returns the key of a node whose inputs are all constants: its
// op and attributes, each input's content digest (small inputs) or
// identity (large ones), and the output types.
func memoKey(n *graph.Node) string {
	k := append([]byte(nil), nodePrefix(n)...)
	for _, in := range n.Inputs {
		switch {
		case in == nil:
			k = append(k, 0)
		case in.Const.Len() <= memoSmall:
			d := in.Const.Digest()
			k = append(append(k, 1), d[:]...)
		default:
			k = binary.LittleEndian.AppendUint64(append(k, 2), uint64(uintptr(unsafe.Pointer(in.Const))))
		}
	}
	for _, o := range n.Outputs {
		if o == nil {
			k = append(k, 0)
			continue
		}
		k = enc(append(k, 1)).ValueType(o)
	}
	return string(k)
}

// eval returns n's folded outputs from the memo or computes them.
func (m *foldMemo) eval(n *graph.Node, ev Evaluator) ([]*graph.Tensor, error) {
	if m == nil || n.Op == "Shape" || n.Op == "Size" || symbolicConst(n) {
		return evalNode(n, ev)
	}
	key := memoKey(n)
	m.mu.Lock()
	if e, ok := m.entries[key]; ok {
		e.used = m.gen
		m.hits++
		m.mu.Unlock()
		return e.outputs, nil
	}
	m.misses++
	m.mu.Unlock()
	out, err := evalNode(n, ev)
	if err != nil {
		return nil, err
	}
	e := &memoEntry{outputs: out}
	for _, in := range n.Inputs {
		if in != nil {
			e.inputs = append(e.inputs, in.Const)
		}
	}
	for _, t := range out {
		if t != nil {
			e.bytes += int64(t.Len()) * int64(max(t.DType.Size(), 1))
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.entries[key]; ok {
		return out, nil // another worker stored it meanwhile
	}
	if m.bytes+e.bytes > m.budget {
		m.evict(m.budget - e.bytes)
	}
	if m.bytes+e.bytes <= m.budget {
		e.used = m.gen
		m.entries[key] = e
		m.bytes += e.bytes
	}
	return out, nil
}

// evict drops entries not used in the current generation, least recently
// used first, until the memo holds at most target bytes.
func (m *foldMemo) evict(target int64) {
	type aged struct {
		key  string
		used uint64
	}
	var old []aged
	for k, e := range m.entries {
		if e.used < m.gen {
			old = append(old, aged{k, e.used})
		}
	}
	slices.SortFunc(old, func(a, b aged) int {
		switch {
		case a.used < b.used:
			return -1
		case a.used > b.used:
			return 1
		}
		return 0
	})
	for _, a := range old {
		if m.bytes <= target {
			return
		}
		m.bytes -= m.entries[a.key].bytes
		delete(m.entries, a.key)
	}
}
