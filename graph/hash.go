package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sort"
)

// Hash is a canonical structural digest.
type Hash [32]byte

// String returns the first 16 hex digits of h.
func (h Hash) String() string { return hex.EncodeToString(h[:8]) }

type hasher struct {
	h   hash.Hash
	buf [8]byte
}

func newHasher() *hasher { return &hasher{h: sha256.New()} }

func (h *hasher) u64(v uint64) {
	binary.LittleEndian.PutUint64(h.buf[:], v)
	h.h.Write(h.buf[:])
}
func (h *hasher) i64(v int64) { h.u64(uint64(v)) }
func (h *hasher) str(s string) {
	h.u64(uint64(len(s)))
	h.h.Write([]byte(s))
}
func (h *hasher) bytes(b []byte) {
	h.u64(uint64(len(b)))
	h.h.Write(b)
}
func (h *hasher) digest(d Hash) { h.h.Write(d[:]) }
func (h *hasher) sum() Hash {
	var out Hash
	h.h.Sum(out[:0])
	return out
}

// enc writes bytes encoded by HashEnc.
func (h *hasher) enc(e HashEnc) { h.h.Write(e) }

// tensor hashes dtype, shape and element bits.
func (h *hasher) tensor(t *Tensor) { h.enc(HashEnc(nil).Tensor(t)) }

func (h *hasher) valueType(v *Value) { h.enc(HashEnc(nil).ValueType(v)) }

// Digest returns a digest of the tensor's dtype, shape and element bits.
// It is computed once and cached: tensors held by graphs are immutable.
func (t *Tensor) Digest() Hash {
	if d := t.digest.Load(); d != nil {
		return *d
	}
	h := newHasher()
	h.u64(uint64(t.DType))
	h.u64(uint64(len(t.Shape)))
	for _, d := range t.Shape {
		h.i64(int64(d))
	}
	// Elements in little-endian order (bool as one byte 0 or 1, complex
	// as real then imaginary part); strings one by one.
	b, ok := rawBytes(t.Data)
	if s, isStr := t.Data.([]string); isStr {
		for _, v := range s {
			h.str(v)
		}
	} else if !ok {
		// Data of a type the IR does not use hashes as no bytes, as
		// Validate reports it.
		b, _ = binary.Append(nil, binary.LittleEndian, t.Data)
	}
	h.bytes(b)
	d := h.sum()
	t.digest.Store(&d)
	return d
}

// CanonicalHash returns a structural digest of g that does not depend on
// node order or on node and value names, and changes when any operator,
// attribute, dtype, shape, edge or constant changes. Each value is
// identified by how it is computed: graph inputs by position and type,
// constants by content, node outputs by the node's op, attributes, input
// identities and output index. The graph digest combines the inputs, the
// ordered outputs and the multiset of node digests (so unused nodes count).
func (g *Graph) CanonicalHash() Hash {
	vh, nodeHashes := g.valueHashes()
	sort.Slice(nodeHashes, func(i, j int) bool {
		a, b := nodeHashes[i], nodeHashes[j]
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	})
	h := newHasher()
	h.u64(uint64(len(g.Inputs)))
	for _, in := range g.Inputs {
		h.digest(vh[in])
	}
	h.u64(uint64(len(g.Outputs)))
	for _, o := range g.Outputs {
		h.digest(vh[o])
	}
	h.u64(uint64(len(nodeHashes)))
	for _, d := range nodeHashes {
		h.digest(d)
	}
	return h.sum()
}

// ValueHashes returns, for every value of g (inputs, constants and node
// outputs), the digest of how it is computed, as CanonicalHash defines
// it: two values of two graphs with equal digests are computed the same
// way from the same inputs, so they hold the same data on the same
// inputs. Rewrite checks use it to find the values a rewrite left as they
// were.
func (g *Graph) ValueHashes() map[*Value]Hash {
	vh, _ := g.valueHashes()
	return vh
}

// valueHashes returns ValueHashes and the digests of g's nodes in
// topological order.
func (g *Graph) valueHashes() (map[*Value]Hash, []Hash) {
	vh := make(map[*Value]Hash)
	for i, in := range g.Inputs {
		h := newHasher()
		h.str("input")
		h.u64(uint64(i))
		h.valueType(in)
		if in.Const != nil {
			h.tensor(in.Const)
		}
		vh[in] = h.sum()
	}
	valueHash := func(v *Value) Hash {
		if v == nil {
			return Hash{}
		}
		if d, ok := vh[v]; ok {
			return d
		}
		h := newHasher()
		if v.Const != nil {
			h.str("const")
			h.valueType(v)
			h.tensor(v.Const)
		} else {
			// A value with no producer, input or constant: dangling. Hash
			// by type so the result is still deterministic.
			h.str("dangling")
			h.valueType(v)
		}
		d := h.sum()
		vh[v] = d
		return d
	}
	order, err := TopoOrder(g.Nodes)
	if err != nil {
		order = g.Nodes
	}
	nodeHashes := make([]Hash, 0, len(order))
	for _, n := range order {
		h := newHasher()
		h.enc(HashEnc(nil).NodePrefix(n))
		h.u64(uint64(len(n.Inputs)))
		for _, in := range n.Inputs {
			d := valueHash(in)
			h.digest(d)
		}
		h.u64(uint64(len(n.Outputs)))
		nd := h.sum()
		nodeHashes = append(nodeHashes, nd)
		for i, o := range n.Outputs {
			if o == nil {
				continue
			}
			oh := newHasher()
			oh.digest(nd)
			oh.u64(uint64(i))
			oh.valueType(o)
			vh[o] = oh.sum()
		}
	}
	for _, o := range g.Outputs {
		valueHash(o)
	}
	return vh, nodeHashes
}
