package search

import (
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rewrite"
)

// NodeTimer is a latency model's per-node view: measure.CostModel's
// latency is the sum of OpTime over the nodes that do not compute from
// constants only. Given one (Problem.NodeTimes), a search scores a lazy
// candidate from its parent's latency and the nodes its rewrite changed,
// instead of summing every node of every candidate: on a 50,000-node
// chain with as many candidates a generation, that sum is what the
// search would spend its time on.
type NodeTimer interface {
	OpTime(m *graph.Model, n *graph.Node) (time.Duration, error)
}

// parentTimes holds, for a graph being expanded, its latency, the time of
// each node and which values are computed from constants only (what a
// per-node model charges nothing for).
type parentTimes struct {
	lat    time.Duration
	time   map[*graph.Node]time.Duration
	folded map[*graph.Value]bool
}

// constantOnly reports whether every input of n is nil, a constant or a
// value in folded (computed from constants only) and n is not opaque: a
// per-node cost model charges such nodes nothing.
func constantOnly(n *graph.Node, folded func(*graph.Value) bool) bool {
	if n.IsOpaque() {
		return false
	}
	for _, in := range n.AllInputs() {
		if in != nil && in.Const == nil && !folded(in) {
			return false
		}
	}
	return true
}

// newParentTimes times every node of g (latency lat under p's model).
func (p *Problem) newParentTimes(g *graph.Graph, lat time.Duration) (*parentTimes, error) {
	pt := &parentTimes{lat: lat, time: make(map[*graph.Node]time.Duration, len(g.Nodes)), folded: map[*graph.Value]bool{}}
	m := p.modelOf(g)
	isFolded := func(v *graph.Value) bool { return pt.folded[v] }
	for _, n := range g.Nodes {
		if constantOnly(n, isFolded) {
			for _, o := range n.Outputs {
				if o != nil {
					pt.folded[o] = true
				}
			}
			continue
		}
		d, err := p.NodeTimes.OpTime(m, n)
		if err != nil {
			return nil, err
		}
		pt.time[n] = d
	}
	return pt, nil
}

// changeLatency returns the latency of the candidate whose change to the
// parent is ch: the parent's, less the times of the nodes the change
// removed or replaced, plus those of its new nodes. ok is false when the
// change alters which values downstream of it are computed from
// constants only (then only the whole graph tells).
func (p *Problem) changeLatency(pt *parentTimes, ch rewrite.Change) (lat time.Duration, ok bool, err error) {
	lat = pt.lat
	replaced := map[*graph.Value]bool{} // outputs of the old nodes
	for _, n := range ch.Old {
		lat -= pt.time[n]
		for _, o := range n.Outputs {
			replaced[o] = true
		}
	}
	made := map[*graph.Value]bool{} // outputs of new nodes, true when folded
	isFolded := func(v *graph.Value) bool {
		if f, mine := made[v]; mine {
			return f
		}
		return pt.folded[v]
	}
	m := p.modelOf(ch.Base)
	for _, n := range ch.New {
		f := constantOnly(n, isFolded)
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			if replaced[o] && pt.folded[o] != f {
				return 0, false, nil // the base nodes reading o change too
			}
			made[o] = f
		}
		if f {
			continue
		}
		d, err := p.NodeTimes.OpTime(m, n)
		if err != nil {
			return 0, false, err
		}
		lat += d
	}
	return lat, true, nil
}
