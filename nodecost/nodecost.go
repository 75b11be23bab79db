package nodecost

import (
	"sync"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rewrite"
)

// NodeTimer is a latency model's per-node view: measure.CostModel's
// latency is the sum of OpTime over the nodes that do not compute from
// constants only.
type NodeTimer interface {
	OpTime(m *graph.Model, n *graph.Node) (time.Duration, error)
}

// Timer remembers the time of every node it has timed: graphs that a
// rewrite made from one another share their unchanged nodes, so timing
// the next graph costs only its new nodes. It is safe for concurrent use.
type Timer struct {
	nodes NodeTimer
	mu    sync.Mutex
	times map[*graph.Node]time.Duration
}

// maxRemembered bounds the remembered node times; the memory is emptied
// when full.
const maxRemembered = 1 << 22

// NewTimer returns a Timer over t.
func NewTimer(t NodeTimer) *Timer {
	return &Timer{nodes: t, times: map[*graph.Node]time.Duration{}}
}

// time returns n's time (n in model m), remembered.
func (t *Timer) time(m *graph.Model, n *graph.Node) (time.Duration, error) {
	t.mu.Lock()
	d, ok := t.times[n]
	t.mu.Unlock()
	if ok {
		return d, nil
	}
	d, err := t.nodes.OpTime(m, n)
	if err != nil {
		return 0, err
	}
	t.mu.Lock()
	if len(t.times) >= maxRemembered {
		t.times = map[*graph.Node]time.Duration{}
	}
	t.times[n] = d
	t.mu.Unlock()
	return d, nil
}

// Latency returns m's latency under the model: the sum of the times of
// the nodes not computed from constants only, what measure.CostModel's
// Latency sums, from the remembered times.
func (t *Timer) Latency(m *graph.Model) (time.Duration, error) {
	var total time.Duration
	_, err := t.each(m, func(_ *graph.Node, d time.Duration) { total += d })
	return total, err
}

// Base is a graph whose candidates are scored: its latency, the time of
// each node and the values it computes from constants only (which the
// model charges nothing for).
type Base struct {
	t      *Timer
	m      *graph.Model
	lat    time.Duration
	time   map[*graph.Node]time.Duration
	folded map[*graph.Value]bool
}

// Base times every node of m's graph, whose latency under the model is
// lat.
func (t *Timer) Base(m *graph.Model, lat time.Duration) (*Base, error) {
	b := &Base{t: t, m: m, lat: lat, time: make(map[*graph.Node]time.Duration, len(m.Graph.Nodes))}
	folded, err := t.each(m, func(n *graph.Node, d time.Duration) { b.time[n] = d })
	b.folded = folded
	return b, err
}

// each calls f with every node of m's graph that does not compute from
// constants only and its time, and returns the values that are computed
// from constants only.
func (t *Timer) each(m *graph.Model, f func(*graph.Node, time.Duration)) (map[*graph.Value]bool, error) {
	folded := map[*graph.Value]bool{}
	isFolded := func(v *graph.Value) bool { return folded[v] }
	for _, n := range m.Graph.Nodes {
		if constantOnly(n, isFolded) {
			for _, o := range n.Outputs {
				if o != nil {
					folded[o] = true
				}
			}
			continue
		}
		d, err := t.time(m, n)
		if err != nil {
			return nil, err
		}
		f(n, d)
	}
	return folded, nil
}

// constantOnly reports whether every input of n is nil, a constant or a
// value folded says is computed from constants only, and n is not
// opaque.
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

// Latency returns the latency of candidate c of the base graph from its
// change: the base's, less the times of the nodes it removed or replaced,
// plus those of its new nodes. ok is false when c is not a lazy candidate
// of this graph, or when its change alters which values downstream of it
// are computed from constants only (then only the whole graph tells).
func (b *Base) Latency(c rewrite.Candidate) (lat time.Duration, ok bool, err error) {
	ch, ok := c.Change()
	if !ok || ch.Base != b.m.Graph {
		return 0, false, nil
	}
	lat = b.lat
	replaced := map[*graph.Value]bool{} // outputs of the old nodes
	for _, n := range ch.Old {
		lat -= b.time[n]
		for _, o := range n.Outputs {
			replaced[o] = true
		}
	}
	made := map[*graph.Value]bool{} // outputs of new nodes, true when folded
	isFolded := func(v *graph.Value) bool {
		if f, mine := made[v]; mine {
			return f
		}
		return b.folded[v]
	}
	for _, n := range ch.New {
		f := constantOnly(n, isFolded)
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			if replaced[o] && b.folded[o] != f {
				return 0, false, nil // the base nodes reading o change too
			}
			made[o] = f
		}
		if f {
			continue
		}
		d, err := b.t.time(b.m, n)
		if err != nil {
			return 0, false, err
		}
		lat += d
	}
	return lat, true, nil
}
