package measure

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/xrl-dev/xrl/internal/defaults"

	"github.com/xrl-dev/xrl/graph"
)

// ProfileOptions configures the profile cost model.
type ProfileOptions struct {
	// Warmup and Runs are the untimed and profiled runs of each profile
	// (defaults 3 and 24).
	Warmup, Runs int
	// Reprofile is the share of the reference profile's latency above
	// which a candidate's changes (time removed plus time added) count as
	// large, so the candidate is profiled itself (default 0.2).
	Reprofile float64
	// MaxProfiles bounds the reference profiles kept (default 32; the
	// oldest is dropped first).
	MaxProfiles int
	// Timer, when set, times each profiled graph end to end with the
	// profiler off, and its steady latency is the graph's latency: the
	// profiler adds time to every node, a large share of a
	// sub-millisecond run. The profile then only apportions that latency
	// to the nodes, pricing what a candidate changes. Without a Timer the
	// profile's own total counts.
	Timer LatencyModel
}

// ProfileTimerSessions is the number of ONNX Runtime sessions the
// profile model's Timer times a profiled graph in (Measured.Sessions):
// every candidate costed from that profile inherits the figure's error,
// and a single session's figure for a millisecond-scale model moves by
// 10% from one session to the next.
const ProfileTimerSessions = 3

func (o ProfileOptions) withDefaults() ProfileOptions {
	o.Warmup = defaults.Positive(o.Warmup, 3)
	o.Runs = defaults.Positive(o.Runs, 24)
	o.Reprofile = defaults.Positive(o.Reprofile, 0.2)
	o.MaxProfiles = defaults.Positive(o.MaxProfiles, 32)
	return o
}

// ProfileModel estimates latency from the engine's own per-node profile
// of whole graphs. A profiled graph costs what its session takes (timed
// with the profiler off when ProfileOptions.Timer is set).
// Any other graph is costed from the profiled graph it shares most nodes
// with (nodes compared by operator configuration: op, attributes, input
// and output types and shapes): that graph's latency, minus the times of
// its nodes the candidate no longer has, plus the times of the candidate's
// new nodes. A new node whose configuration occurs in some profile costs
// what it cost there; otherwise the per-op model prices it: its work
// (multiply-adds, or elements read and written) at the rate the profiles
// measured for that operator (or for its class of operators). When the
// change is large (Reprofile), the candidate is profiled itself.
//
// Profiled node times are mapped back to the model's nodes by name: the
// model is profiled with its nodes renamed xrl0, xrl1, ..., and the engine
// names a fused node after one of the nodes it replaces, so its time goes
// to that node and the nodes fused into it cost nothing. Time of engine
// nodes that carry no such name (fusions named by the engine) is shared
// among the model's nodes that received no time, in proportion to their
// work.
type ProfileModel struct {
	prof Profiler
	opts ProfileOptions

	mu       sync.Mutex
	profiles []*refProfile
	// bySig holds, per operator configuration, the summed time and count
	// of its nodes over all profiles.
	bySig map[string]sigTime
	// rates holds per op (and per work class) the summed time and work.
	rates map[string]workRate
	// Profiled counts the graphs profiled so far.
	profiled int
}

type sigTime struct {
	total time.Duration
	n     int
}

type workRate struct {
	time time.Duration
	work float64
}

// refProfile is a profiled graph reduced to what costing needs.
type refProfile struct {
	hash  graph.Hash
	total time.Duration
	// sigs maps each operator configuration to the times of its nodes.
	sigs map[string][]time.Duration
}

// NewProfileModel returns a cost model profiling on p.
func NewProfileModel(p Profiler, opts ProfileOptions) *ProfileModel {
	return &ProfileModel{prof: p, opts: opts.withDefaults(), bySig: map[string]sigTime{}, rates: map[string]workRate{}}
}

// Name returns "profile".
func (pm *ProfileModel) Name() string { return "profile" }

// Profiled returns the number of graphs profiled so far.
func (pm *ProfileModel) Profiled() int {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	return pm.profiled
}

// Latency returns m's estimated latency (a Stats with equal median,
// steady and quantiles; N is the number of nodes).
func (pm *ProfileModel) Latency(m *graph.Model) (Stats, error) {
	est, _, err := pm.Estimate(m)
	if err != nil {
		return Stats{}, err
	}
	return Stats{N: len(m.Graph.Nodes), Median: est, Steady: est, P10: est, P90: est, Min: est, Stable: true}, nil
}

// Estimate returns m's estimated latency and whether it is the time of a
// profile of m itself (profiling m now if its changes are large).
func (pm *ProfileModel) Estimate(m *graph.Model) (time.Duration, bool, error) {
	nodes := costedNodes(m.Graph)
	pm.mu.Lock()
	d := pm.closest(m.Graph.CanonicalHash(), nodes)
	if d.ref != nil && d.same {
		pm.mu.Unlock()
		return d.ref.total, true, nil
	}
	if d.ref != nil && float64(d.added+d.removed) <= pm.opts.Reprofile*float64(d.ref.total) {
		pm.mu.Unlock()
		return max(d.ref.total+d.added-d.removed, 0), false, nil
	}
	pm.mu.Unlock()
	p, err := pm.profile(m, nodes)
	if err != nil {
		return 0, false, err
	}
	return p.total, true, nil
}

// Change returns the share of the closest profile's latency that m's
// changes against it amount to (time removed plus time added): Estimate
// profiles m when it exceeds ProfileOptions.Reprofile. It is 0 for a
// profiled graph; without any profile it is an error.
func (pm *ProfileModel) Change(m *graph.Model) (float64, error) {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	d := pm.closest(m.Graph.CanonicalHash(), costedNodes(m.Graph))
	switch {
	case d.ref == nil:
		return 0, fmt.Errorf("no profile to compare with")
	case d.same || d.ref.total == 0:
		return 0, nil
	}
	return float64(d.added+d.removed) / float64(d.ref.total), nil
}

// delta is a graph's difference from a reference profile.
type delta struct {
	ref *refProfile
	// same: the graph is ref's graph.
	same bool
	// added is the priced time of the graph's nodes ref lacks; removed the
	// time of ref's nodes the graph lacks.
	added, removed time.Duration
}

// closest returns the delta to the profile with the fewest changed nodes
// (ref nil without profiles). pm.mu is held.
func (pm *ProfileModel) closest(h graph.Hash, nodes []costedNode) delta {
	var best delta
	var bestAdded []*graph.Node
	bestChanged := -1
	for _, p := range pm.profiles {
		if p.hash == h {
			return delta{ref: p, same: true}
		}
		added, removed, changed := p.diff(nodes)
		if bestChanged < 0 || changed < bestChanged {
			best, bestAdded, bestChanged = delta{ref: p, removed: removed}, added, changed
		}
	}
	for _, n := range bestAdded {
		best.added += pm.nodeCost(n)
	}
	return best
}

// diff matches nodes against p's nodes by configuration and returns the
// nodes p lacks, the summed time of p's nodes the graph lacks, and the
// number of unmatched nodes on both sides.
func (p *refProfile) diff(nodes []costedNode) (added []*graph.Node, removed time.Duration, changed int) {
	used := map[string]int{}
	for _, cn := range nodes {
		if used[cn.sig] < len(p.sigs[cn.sig]) {
			used[cn.sig]++
			continue
		}
		added = append(added, cn.node)
	}
	changed = len(added)
	for sig, ts := range p.sigs {
		for _, t := range ts[used[sig]:] {
			removed += t
			changed++
		}
	}
	return added, removed, changed
}

// nodeCost prices a node absent from the reference profile. pm.mu is held.
func (pm *ProfileModel) nodeCost(n *graph.Node) time.Duration {
	if st, ok := pm.bySig[opSignature(n)]; ok {
		return st.total / time.Duration(st.n)
	}
	class, work := opWork(n)
	for _, key := range []string{n.Op, class} {
		if r, ok := pm.rates[key]; ok && r.work > 0 {
			return time.Duration(float64(r.time) * work / r.work)
		}
	}
	var t time.Duration
	var w float64
	for key, r := range pm.rates {
		if key == workFLOPs || key == workBytes {
			t, w = t+r.time, w+r.work
		}
	}
	if w > 0 {
		return time.Duration(float64(t) * work / w)
	}
	return time.Microsecond
}

// costedNode is a node the engine executes (not folded from constants)
// with its configuration.
type costedNode struct {
	index int
	node  *graph.Node
	sig   string
}

func costedNodes(g *graph.Graph) []costedNode {
	var out []costedNode
	folded := map[*graph.Value]bool{}
	for i, n := range g.Nodes {
		if foldable(n, folded) {
			for _, o := range n.Outputs {
				folded[o] = true
			}
			continue
		}
		out = append(out, costedNode{index: i, node: n, sig: opSignature(n)})
	}
	return out
}

// profileNodeName matches the model node index in an engine node's name.
var profileNodeName = regexp.MustCompile(`xrl(\d+)`)

// profile profiles m and records it as a reference.
func (pm *ProfileModel) profile(m *graph.Model, nodes []costedNode) (*refProfile, error) {
	g := m.Graph.Clone()
	for i, n := range g.Nodes {
		n.Name = "xrl" + strconv.Itoa(i)
	}
	mc := *m
	mc.Graph = g
	pr, err := pm.prof.Profile(&mc, pm.opts.Warmup, pm.opts.Runs)
	if err != nil {
		return nil, fmt.Errorf("profiling: %w", err)
	}
	total := pr.Total
	if pm.opts.Timer != nil {
		st, err := pm.opts.Timer.Latency(m)
		if err != nil {
			return nil, fmt.Errorf("timing the profiled graph: %w", err)
		}
		total = st.Steady
		if total == 0 {
			total = st.Median
		}
	}
	times := attribute(pr, nodes)
	ref := &refProfile{hash: m.Graph.CanonicalHash(), total: total, sigs: map[string][]time.Duration{}}
	pm.mu.Lock()
	defer pm.mu.Unlock()
	for i, cn := range nodes {
		t := times[i]
		ref.sigs[cn.sig] = append(ref.sigs[cn.sig], t)
		st := pm.bySig[cn.sig]
		pm.bySig[cn.sig] = sigTime{total: st.total + t, n: st.n + 1}
		class, work := opWork(cn.node)
		for _, key := range []string{cn.node.Op, class} {
			r := pm.rates[key]
			pm.rates[key] = workRate{time: r.time + t, work: r.work + work}
		}
	}
	pm.profiles = append(pm.profiles, ref)
	if len(pm.profiles) > pm.opts.MaxProfiles {
		pm.profiles = pm.profiles[1:]
	}
	pm.profiled++
	return ref, nil
}

// attribute maps a profile's node times onto nodes (returned in the same
// order). An engine node named after model node i runs i's operator, or,
// when its operator differs, a fusion of i with neighbours that have no
// engine node of their own: its time goes to i, or is shared by work among
// i and those neighbours (found transitively). The time of engine nodes
// named after no model node is shared among the nodes still without time,
// in proportion to their work.
func attribute(pr *Profile, nodes []costedNode) []time.Duration {
	pos := make(map[int]int, len(nodes))
	for i, cn := range nodes {
		pos[cn.index] = i
	}
	times := make([]time.Duration, len(nodes))
	got := make([]bool, len(nodes))
	type fused struct {
		at int
		op string
		t  time.Duration
	}
	var fusions []fused
	var orphan time.Duration
	for _, nt := range pr.Nodes {
		mt := profileNodeName.FindStringSubmatch(nt.Name)
		if mt == nil {
			orphan += nt.Time
			continue
		}
		idx, _ := strconv.Atoi(mt[1])
		i, ok := pos[idx]
		if !ok {
			orphan += nt.Time
			continue
		}
		got[i] = true
		if nt.Op != "" && nt.Op != nodes[i].node.Op {
			fusions = append(fusions, fused{i, nt.Op, nt.Time})
			continue
		}
		times[i] += nt.Time
	}
	up, down := links(nodes)
	for _, f := range fusions {
		share(times, f.t, fusionGroup(f.at, f.op, nodes, up, down, got), nodes)
	}
	if orphan == 0 {
		return times
	}
	var rest []int
	for i := range nodes {
		if !got[i] {
			rest = append(rest, i)
		}
	}
	if len(rest) == 0 {
		for i := range nodes {
			rest = append(rest, i)
		}
	}
	share(times, orphan, rest, nodes)
	return times
}

// share adds t to the times of group, in proportion to each node's work
// (equally if they do none).
func share(times []time.Duration, t time.Duration, group []int, nodes []costedNode) {
	w := make([]float64, len(group))
	var total float64
	for k, i := range group {
		_, w[k] = opWork(nodes[i].node)
		total += w[k]
	}
	for k, i := range group {
		if total > 0 {
			times[i] += time.Duration(float64(t) * w[k] / total)
		} else {
			times[i] += t / time.Duration(len(group))
		}
	}
}

// links lists, per costed node, the costed nodes it reads from (up) and
// those that read it (down).
func links(nodes []costedNode) (up, down [][]int) {
	producer := map[*graph.Value]int{}
	for i, cn := range nodes {
		for _, o := range cn.node.Outputs {
			if o != nil {
				producer[o] = i
			}
		}
	}
	up, down = make([][]int, len(nodes)), make([][]int, len(nodes))
	for i, cn := range nodes {
		for _, in := range cn.node.Inputs {
			if j, ok := producer[in]; ok && in != nil {
				up[i] = append(up[i], j)
				down[j] = append(down[j], i)
			}
		}
	}
	return up, down
}

// computes reports whether an engine node of operator engineOp does the
// arithmetic of a model node of operator op (a Gemm made of a MatMul, a
// FusedConv of a Conv ...).
func computes(engineOp, op string) bool {
	switch {
	case engineOp == op:
		return true
	case op == "MatMul":
		return engineOp == "Gemm" || engineOp == "FusedGemm" || engineOp == "FusedMatMul"
	case op == "Conv":
		return engineOp == "FusedConv"
	case op == "Gemm":
		return engineOp == "FusedGemm"
	}
	return false
}

// maxFusionDepth bounds how far a fusion reaches from the node it is named
// after (Conv, BatchNormalization, Add, Relu: three links).
const maxFusionDepth = 3

// fusionGroup returns the model nodes an engine node of operator engineOp,
// named after node at, stands for, marking them as attributed. Named after
// its arithmetic node (at computes engineOp), it also stands for the
// unattributed nodes right after it (bias, activation); named after a later
// node, it stands for the path up to the nearest unattributed node whose
// arithmetic it does.
func fusionGroup(at int, engineOp string, nodes []costedNode, up, down [][]int, got []bool) []int {
	group := []int{at}
	if computes(engineOp, nodes[at].node.Op) {
		for k := 0; k < len(group) && k < maxFusionDepth; k++ {
			for _, j := range down[group[k]] {
				if !got[j] {
					got[j] = true
					group = append(group, j)
				}
			}
		}
		return group
	}
	parent := map[int]int{at: -1}
	frontier := []int{at}
	for depth := 0; depth < maxFusionDepth; depth++ {
		var next []int
		for _, i := range frontier {
			for _, j := range up[i] {
				if _, seen := parent[j]; seen || got[j] {
					continue
				}
				parent[j] = i
				if computes(engineOp, nodes[j].node.Op) {
					for p := j; p != at; p = parent[p] {
						got[p] = true
						group = append(group, p)
					}
					return group
				}
				next = append(next, j)
			}
		}
		frontier = next
	}
	return group
}
