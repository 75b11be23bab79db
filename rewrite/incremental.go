package rewrite

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/rules"
)

// Incremental matching. An environment step, or a search expanding the
// graph it just made, generates the candidates of a graph built from one
// candidate of the previous generation. Matching every rule over the
// whole graph again costs the graph's size times the rule count (0.6 s of
// a 1.5 s step on the 50,000-node residual MLP), while the rewrite
// changed a handful of nodes. So engines keep what their last
// generations matched (matchSets, shared by engines with the same rules)
// and, for a graph whose origin they know (lineage.go), match again only
// near the change:
//
//   - A node is near the change when the new graph has it and the old one
//     does not, or when it is in either graph and reads a value made by,
//     or makes a value read by, a node only one of them has (or makes a
//     value only one of them declares a graph output).
//   - An old match none of whose nodes is near is a match of the new
//     graph: its nodes, their inputs and attributes, the producers of
//     those inputs (the only thing a rule's conditions look at outside the
//     match) and the readers of their outputs (the external-use check) are
//     all unchanged. The same holds for the matches rejected for external
//     use.
//   - Every other match of the new graph has a near node at some source
//     node. For each source node and each near node of its op, a matcher
//     following the plan that starts from that source node
//     (rules.Rule.PlanFrom) finds them.
//   - Each such match's node positions are then matched again under the
//     rule's own plan, restricted to those positions, which gives them the
//     trails (see found) a full match gives, and all matches are put in
//     the order of their trails, the order a full match finds them in
//     (scans go over nodes of an op, and consumer steps over readers, in
//     topological order; then commutative arguments as given before
//     swapped, and template segments shortest first). So the candidates
//     are those of a full generation, in the same order, with the same
//     statistics.
//
// Rules with parts matched by separate scans (rules.Rule.Disconnected) or
// pruned by reachability (prule.mixing) are matched in full: their
// matches depend on more than a neighbourhood (whether two parts are on
// one path), and they are few (on the 50,000-node residual chain, about
// 0.1 s of a step's CPU).

// keepMatchSets is the number of generations whose matches are kept,
// over all engines: an episode's step has two (the engine's, and the
// canonicalisation of a pass), and concurrent environments each their
// own.
const keepMatchSets = 6

// maxNearFraction bounds the share of nodes near a change up to which
// matching is incremental; above it, a full match is cheaper.
const maxNearFraction = 0.25

// matchSet is what one generation matched: every rule's complete matches
// in search order (before keepOnePerNodeSet) and the node positions of
// those rejected for external use, with the generation's index and the
// rules of its engine.
type matchSet struct {
	rules []*rules.Rule
	by    *Engine // the engine that matched
	gx    *gindex
	found [][]found
	ext   [][][]int32
}

// recentSets holds the kept generations, newest last. Engines with the
// same rules share them: matching depends on nothing else that a
// carried match keeps (pair pruning only affects the mixing rules, which
// are matched in full).
var recentSets struct {
	sync.Mutex
	list []*matchSet
}

// derives reports whether g is the generation's graph or built from one
// of the candidates of that graph (by any engine, see lineage.go).
func (ms *matchSet) derives(g *graph.Graph) bool {
	return ms.gx.g == g || parentOf(g) == ms.gx.g
}

// previous returns the newest kept generation of an engine with e's
// rules that g derives from, or nil.
func (e *Engine) previous(g *graph.Graph) *matchSet {
	recentSets.Lock()
	list := slices.Clone(recentSets.list)
	recentSets.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		if ms := list[i]; ms.sameRules(e) && ms.derives(g) {
			return ms
		}
	}
	return nil
}

// keptIndex returns the index of g kept with a recent generation (of any
// engine: the canonicalisation of a pass indexes the graph the engine
// just did), or nil. An index is read-only once built.
func keptIndex(g *graph.Graph) *gindex {
	recentSets.Lock()
	defer recentSets.Unlock()
	for i := len(recentSets.list) - 1; i >= 0; i-- {
		if gx := recentSets.list[i].gx; gx.g == g {
			return gx
		}
	}
	return nil
}

// sameRules reports whether ms was matched with e's rules.
func (ms *matchSet) sameRules(e *Engine) bool {
	if len(ms.rules) != len(e.rules) {
		return false
	}
	for i, pr := range e.rules {
		if ms.rules[i] != pr.r {
			return false
		}
	}
	return true
}

// remember keeps ms as the newest generation, dropping the oldest beyond
// keepMatchSets.
func (e *Engine) remember(ms *matchSet) {
	ms.by, ms.rules = e, make([]*rules.Rule, len(e.rules))
	for i, pr := range e.rules {
		ms.rules[i] = pr.r
	}
	recentSets.Lock()
	defer recentSets.Unlock()
	recentSets.list = append(recentSets.list, ms)
	if n := len(recentSets.list); n > keepMatchSets {
		recentSets.list = slices.Delete(recentSets.list, 0, n-keepMatchSets)
	}
}

// nearChange returns the positions of gx near a change from old (see the
// comment above), ascending, and their marks.
func nearChange(old, gx *gindex) (near []bool, list []int32) {
	near = make([]bool, len(gx.nodes))
	mark := func(n *graph.Node) {
		if n == nil {
			return
		}
		if p, in := gx.pos[n]; in && !near[p] {
			near[p] = true
			list = append(list, p)
		}
	}
	// touch marks a node only one graph has and its neighbours in both.
	touch := func(n *graph.Node) {
		mark(n)
		for _, v := range n.AllInputs() {
			if v != nil {
				mark(gx.producerNode(v))
				mark(old.producerNode(v))
			}
		}
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			for _, c := range gx.consumers[o] {
				mark(gx.nodes[c])
			}
			for _, c := range old.consumers[o] {
				mark(old.nodes[c])
			}
		}
	}
	for _, n := range gx.nodes {
		if _, in := old.pos[n]; !in {
			touch(n)
		}
	}
	for _, n := range old.nodes {
		if _, in := gx.pos[n]; !in {
			touch(n)
		}
	}
	for v := range gx.isOutput {
		if !old.isOutput[v] {
			mark(gx.producerNode(v))
		}
	}
	for v := range old.isOutput {
		if !gx.isOutput[v] {
			mark(gx.producerNode(v))
			mark(old.producerNode(v))
		}
	}
	slices.Sort(list)
	return near, list
}

// fewNear reports whether near nodes few enough for incremental matching
// to pay are near a change in a graph of nodes nodes.
func fewNear(near, nodes int) bool { return float64(near) <= maxNearFraction*float64(nodes) }

// rematch returns rule i's matches of gx and the positions of those
// rejected for external use, from prev's and the nodes near the change.
func rematch(gx *gindex, pr *prule, prev *matchSet, i int, near []bool, list []int32) ([]found, [][]int32) {
	// The old matches away from the change, at their new positions.
	var kept []found
	for _, f := range prev.found[i] {
		if pos, ok := carried(gx, near, f.m.Nodes); ok {
			kept = append(kept, found{m: f.m, pos: pos, trail: retrail(prev.gx, gx, f.trail)})
		}
	}
	var ext [][]int32
	for _, old := range prev.ext[i] {
		if pos, ok := carried(gx, near, positionsIn(prev.gx, old)); ok {
			ext = append(ext, pos)
		}
	}
	// The positions of every match with a node near the change.
	var tuples [][]int32
	seen := map[string]bool{}
	var key []byte
	add := func(pos []int32) {
		key = key[:0]
		for _, p := range pos {
			key = binary.LittleEndian.AppendUint32(key, uint32(p))
		}
		if !seen[string(key)] {
			seen[string(key)] = true
			tuples = append(tuples, pos)
		}
	}
	for _, pn := range pr.r.Source.Nodes {
		mt := newMatcher(gx, pr, pr.rooted[pn.Index], false)
		for _, p := range list {
			if gx.nodes[p].Op != pn.Op {
				continue
			}
			mt.only = p
			mt.step(0)
		}
		for _, f := range mt.out {
			add(f.pos)
		}
		for _, pos := range mt.extPos {
			add(pos)
		}
	}
	// Those matches again under the rule's plan, with their trails.
	var fresh []found
	if len(tuples) > 0 {
		plan := pr.r.Plan
		mt := newMatcher(gx, pr, plan, false)
		for _, pos := range tuples {
			mt.force, mt.only = pos, pos[plan[0].Node.Index]
			mt.step(0)
		}
		fresh = mt.out
		ext = append(ext, mt.extPos...)
	}
	byTrail := func(a, b found) int { return slices.Compare(a.trail, b.trail) }
	if !slices.IsSortedFunc(kept, byTrail) {
		slices.SortFunc(kept, byTrail)
	}
	slices.SortFunc(fresh, byTrail)
	return mergeFound(kept, fresh, byTrail), ext
}

// retrail returns an old match's trail with the positions of old's nodes
// replaced by their positions in gx (every node of the match is in both).
func retrail(old, gx *gindex, trail []uint64) []uint64 {
	out := make([]uint64, len(trail))
	for k, e := range trail {
		if e&^(1<<32-1) == trailPos {
			e = trailPos | uint64(uint32(gx.pos[old.nodes[uint32(e)]]))
		}
		out[k] = e
	}
	return out
}

// carried returns the new positions of an old match's nodes, and false
// when one is gone or near the change.
func carried(gx *gindex, near []bool, nodes []*graph.Node) ([]int32, bool) {
	pos := make([]int32, len(nodes))
	for k, n := range nodes {
		p, in := gx.pos[n]
		if !in || near[p] {
			return nil, false
		}
		pos[k] = p
	}
	return pos, true
}

// positionsIn returns the nodes of gx at positions pos.
func positionsIn(gx *gindex, pos []int32) []*graph.Node {
	out := make([]*graph.Node, len(pos))
	for k, p := range pos {
		out[k] = gx.nodes[p]
	}
	return out
}

// mergeFound merges two lists sorted by order (no entry of a equals one
// of b).
func mergeFound(a, b []found, order func(x, y found) int) []found {
	if len(b) == 0 {
		return a
	}
	out := make([]found, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if order(b[0], a[0]) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}
