package graph

import (
	"encoding/binary"
	"math"
)

// HashEnc appends the byte encodings that canonical hashing digests. It is
// the one definition of that format: CanonicalHash streams these bytes
// into SHA-256, and the rewriter's incremental hashing assembles the same
// bytes piece by piece, so both give equal digests.
type HashEnc []byte

// U64 appends v, little-endian.
func (e HashEnc) U64(v uint64) HashEnc { return binary.LittleEndian.AppendUint64(e, v) }

// Str appends s with its length.
func (e HashEnc) Str(s string) HashEnc { return append(e.U64(uint64(len(s))), s...) }

// Bytes appends b with its length.
func (e HashEnc) Bytes(b []byte) HashEnc { return append(e.U64(uint64(len(b))), b...) }

// Digest appends h.
func (e HashEnc) Digest(h Hash) HashEnc { return append(e, h[:]...) }

// Tensor appends t's digest (a marker for nil).
func (e HashEnc) Tensor(t *Tensor) HashEnc {
	if t == nil {
		return e.Str("nil-tensor")
	}
	return e.Digest(t.Digest())
}

// Attr appends an attribute's kind and value.
func (e HashEnc) Attr(a Attr) HashEnc {
	e = e.U64(uint64(a.Kind))
	switch a.Kind {
	case AttrFloat:
		e = e.U64(uint64(math.Float32bits(a.Float)))
	case AttrInt:
		e = e.U64(uint64(a.Int))
	case AttrString:
		e = e.Str(a.String)
	case AttrTensor:
		e = e.Tensor(a.Tensor)
	case AttrFloats:
		e = e.U64(uint64(len(a.Floats)))
		for _, f := range a.Floats {
			e = e.U64(uint64(math.Float32bits(f)))
		}
	case AttrInts:
		e = e.U64(uint64(len(a.Ints)))
		for _, v := range a.Ints {
			e = e.U64(uint64(v))
		}
	case AttrStrings:
		e = e.U64(uint64(len(a.Strings)))
		for _, s := range a.Strings {
			e = e.Str(s)
		}
	case AttrTensors:
		e = e.U64(uint64(len(a.Tensors)))
		for _, t := range a.Tensors {
			e = e.Tensor(t)
		}
	}
	return e
}

// ValueType appends a value's dtype and shape (dims and symbols).
func (e HashEnc) ValueType(v *Value) HashEnc {
	e = e.U64(uint64(v.DType))
	if !v.ShapeKnown {
		return e.Str("unknown-shape")
	}
	e = e.U64(uint64(len(v.Shape)))
	for _, d := range v.Shape {
		e = e.U64(uint64(d.Value)).Str(d.Param)
	}
	return e
}

// NodePrefix appends what a node's digest starts with: domain, op, opaque
// bytes and the attributes in name order.
func (e HashEnc) NodePrefix(n *Node) HashEnc {
	e = e.Str(n.Domain).Str(n.Op)
	if n.Opaque != nil {
		e = e.Bytes(n.Opaque)
	}
	names := n.Attrs.Names()
	e = e.U64(uint64(len(names)))
	for _, name := range names {
		e = e.Str(name).Attr(n.Attrs[name])
	}
	return e
}
