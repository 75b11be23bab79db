package env

import (
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rewrite"
)

// encodeCandidate returns EncodeGraph(c.Materialize()), reusing the
// encoding b of the graph c was generated from: the nodes c shares with it
// keep their classes, incoming edges and edge features, renumbered; only
// the nodes the rewrite added or rewired are encoded. It needs no map
// lookup per node, and falls back to EncodeGraph when c is not a lazy
// candidate of b's graph or its constants are not its initializers.
func encodeCandidate(b *baseEncoding, c Candidate) *GraphTensor {
	if t, ok := encodeFromBase(b, c); ok {
		return t
	}
	return EncodeGraph(c.Materialize())
}

// encodeFromBase is encodeCandidate's renumbering; ok is false when it
// does not apply.
func encodeFromBase(b *baseEncoding, c Candidate) (*GraphTensor, bool) {
	g := c.Materialize()
	base, src, ok := c.Sources()
	if !ok || base != b.g || !b.initsOnly || !sameInputs(g, base) {
		return nil, false
	}
	ce, ok := newCandidateEncoder(b, g, src)
	if !ok {
		return nil, false
	}
	return ce.encode()
}

// candidateEncoder renumbers a base encoding for one candidate.
type candidateEncoder struct {
	b   *baseEncoding
	g   *graph.Graph
	src []rewrite.NodeSource
	t   *GraphTensor
	// constNew and nodeNew give the candidate's node of each base
	// constant and operator (-1: gone); fresh numbers the constants and
	// outputs the rewrite created.
	constNew, nodeNew []int32
	fresh             map[*graph.Value]int32
	first             int32
}

// newCandidateEncoder numbers the candidate's nodes; ok is false when its
// constants are not the base's initializers (less the dropped ones) then
// new ones, as the engine leaves them.
func newCandidateEncoder(b *baseEncoding, g *graph.Graph, src []rewrite.NodeSource) (*candidateEncoder, bool) {
	for _, o := range g.Outputs {
		if o.Const != nil {
			return nil, false
		}
	}
	ce := &candidateEncoder{b: b, g: g, src: src, fresh: map[*graph.Value]int32{},
		constNew: make([]int32, len(b.g.Initializers)), nodeNew: make([]int32, len(b.g.Nodes))}
	j := 0
	for i, v := range b.g.Initializers {
		ce.constNew[i] = -1
		if j < len(g.Initializers) && g.Initializers[j] == v {
			ce.constNew[i] = b.nIn + int32(j)
			j++
		}
	}
	for ; j < len(g.Initializers); j++ {
		v := g.Initializers[j]
		if _, known := b.src[v]; known {
			return nil, false // a base constant out of order
		}
		ce.fresh[v] = b.nIn + int32(j)
	}
	ce.first = b.nIn + int32(len(g.Initializers))
	for i := range ce.nodeNew {
		ce.nodeNew[i] = -1
	}
	for i, s := range src {
		if s.Base >= 0 {
			ce.nodeNew[s.Base] = ce.first + int32(i)
		}
	}
	return ce, true
}

// renumber maps a base node number to the candidate's (-1: gone).
func (ce *candidateEncoder) renumber(old int32) int32 {
	switch b := ce.b; {
	case old < b.nIn:
		return old
	case old < b.first:
		return ce.constNew[old-b.nIn]
	}
	return ce.nodeNew[old-ce.b.first]
}

// encode builds the candidate's tensor; ok is false when a new node reads
// a constant that is not an initializer (EncodeGraph numbers it among the
// constants).
func (ce *candidateEncoder) encode() (*GraphTensor, bool) {
	b, g := ce.b, ce.g
	n := int(ce.first) + len(g.Nodes)
	t := &GraphTensor{NodeClass: make([]int32, n), Global: make([]float32, GlobalDim),
		Senders:   make([]int32, 0, len(b.t.Senders)+8),
		Receivers: make([]int32, 0, len(b.t.Senders)+8),
		EdgeFeat:  make([]float32, 0, len(b.t.EdgeFeat)+8*EdgeDim)}
	copy(t.NodeClass, b.t.NodeClass[:b.nIn])
	for i := b.nIn; i < ce.first; i++ {
		t.NodeClass[i] = classIndex[ClassWeight]
	}
	// Outputs of nodes the rewrite added get their numbers as the nodes
	// are met (a node's inputs come before it).
	for i, nd := range g.Nodes {
		recv := ce.first + int32(i)
		s := ce.src[i]
		if s.Base >= 0 && !s.Copy {
			t.NodeClass[recv] = b.t.NodeClass[b.first+s.Base]
			for e := b.edgeOff[s.Base]; e < b.edgeOff[s.Base+1]; e++ {
				t.Senders = append(t.Senders, ce.renumber(b.t.Senders[e]))
				t.Receivers = append(t.Receivers, recv)
				t.EdgeFeat = append(t.EdgeFeat, b.t.EdgeFeat[e*EdgeDim:(e+1)*EdgeDim]...)
			}
			continue
		}
		t.NodeClass[recv] = nodeClass(nd)
		var feat [EdgeDim]float32
		for _, in := range nd.AllInputs() {
			if in == nil {
				continue
			}
			sender := ce.sender(in)
			if sender < 0 {
				if in.Const != nil {
					return nil, false
				}
				continue
			}
			t.Senders = append(t.Senders, sender)
			t.Receivers = append(t.Receivers, recv)
			shapeFeature(in, feat[:])
			t.EdgeFeat = append(t.EdgeFeat, feat[:]...)
		}
		if s.Base < 0 {
			for _, o := range nd.Outputs {
				if o != nil {
					ce.fresh[o] = recv
				}
			}
		}
	}
	return t, true
}

// sender returns the candidate's node of value v (-1: none, as for a
// value EncodeGraph does not number).
func (ce *candidateEncoder) sender(v *graph.Value) int32 {
	if s, ok := ce.fresh[v]; ok {
		return s
	}
	if old, ok := ce.b.src[v]; ok {
		return ce.renumber(old)
	}
	return -1
}

// sameInputs reports whether g and base have the same inputs.
func sameInputs(g, base *graph.Graph) bool {
	if len(g.Inputs) != len(base.Inputs) {
		return false
	}
	for i, v := range g.Inputs {
		if base.Inputs[i] != v {
			return false
		}
	}
	return true
}
