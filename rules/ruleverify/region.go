package ruleverify

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
)

// RegionMaxShare is the largest share of the rewritten graph's nodes that
// a check runs on its own (Reference.Regions); a rewrite that changed more
// is checked on the whole graphs. On ViT-B/16 the fusion passes change 36
// and 48 of 423 and 267 nodes.
const RegionMaxShare = 0.5

// changed is what a rewrite changed: the nodes of a that b lacks and the
// nodes of b that a lacks, each as a graph from the values they read (the
// boundary's inputs, left as they were) to the values read after them
// (the boundary's outputs, which both compute).
type changed struct {
	// a and b are the changed nodes of each graph, as graphs whose inputs
	// are the values they read and whose outputs are the boundary's.
	a, b *graph.Graph
	// reads names the values of a that either side reads and neither
	// computes: graph inputs and outputs of the nodes left as they were.
	reads []string
}

// boundary returns the values both sides compute and the rest of the
// graphs read (a's side's outputs; b's side gives them first).
func (c *changed) boundary() []*graph.Value { return c.a.Outputs }

// nodeKey identifies a node by what it computes and by the names and
// types of the values it reads and writes: a node of b with the key of a
// node of a is that node, left as it was by the rewrite.
func nodeKey(n *graph.Node) string {
	e := graph.HashEnc(nil).NodePrefix(n)
	value := func(v *graph.Value) {
		if v == nil {
			e = e.Str("")
			return
		}
		e = e.Str(v.Name).ValueType(v)
		if v.Const != nil {
			e = e.Tensor(v.Const)
		}
	}
	e = e.U64(uint64(len(n.Inputs)))
	for _, v := range n.Inputs {
		value(v)
	}
	e = e.U64(uint64(len(n.Implicit)))
	for _, v := range n.Implicit {
		value(v)
	}
	e = e.U64(uint64(len(n.Outputs)))
	for _, v := range n.Outputs {
		value(v)
	}
	return string(e)
}

// reads returns the non-constant values n reads, its implicit
// outer-scope values included.
func reads(n *graph.Node) []*graph.Value {
	var out []*graph.Value
	for _, v := range slices.Concat(n.Inputs, n.Implicit) {
		if v != nil && v.Const == nil {
			out = append(out, v)
		}
	}
	return out
}

// splitChanged returns what the rewrite of a into b changed, or false
// when the check should run on the whole graphs: the signatures differ by
// name, the change is larger than RegionMaxShare of b, or its boundary is
// not one both graphs share (a value read on one side that the other
// computes, a boundary value one side does not compute).
func splitChanged(a, b *graph.Graph) (*changed, bool) {
	if len(a.Inputs) != len(b.Inputs) || len(a.Outputs) != len(b.Outputs) {
		return nil, false
	}
	same := func(x, y *graph.Value) bool {
		return x != nil && y != nil && x.Name == y.Name && string(graph.HashEnc(nil).ValueType(x)) == string(graph.HashEnc(nil).ValueType(y))
	}
	for i := range a.Inputs {
		if !same(a.Inputs[i], b.Inputs[i]) || a.Inputs[i].Const != nil {
			return nil, false
		}
	}
	for i := range a.Outputs {
		if !same(a.Outputs[i], b.Outputs[i]) {
			return nil, false
		}
	}
	keysA, keysB := map[string]bool{}, map[string]bool{}
	for _, n := range a.Nodes {
		keysA[nodeKey(n)] = true
	}
	for _, n := range b.Nodes {
		keysB[nodeKey(n)] = true
	}
	var ra, rb []*graph.Node
	for _, n := range a.Nodes {
		if !keysB[nodeKey(n)] {
			ra = append(ra, n)
		}
	}
	for _, n := range b.Nodes {
		if !keysA[nodeKey(n)] {
			rb = append(rb, n)
		}
	}
	if len(rb) == 0 || float64(len(rb)) > RegionMaxShare*float64(len(b.Nodes)) {
		return nil, false
	}
	valuesA := map[string]*graph.Value{}
	for _, v := range a.Inputs {
		valuesA[v.Name] = v
	}
	for _, n := range a.Nodes {
		for _, o := range n.Outputs {
			if o != nil {
				valuesA[o.Name] = o
			}
		}
	}
	c := &changed{}
	readSet := map[string]bool{}
	side := func(region []*graph.Node) (made map[string]*graph.Value, ins []*graph.Value, ok bool) {
		made = map[string]*graph.Value{}
		for _, n := range region {
			for _, o := range n.Outputs {
				if o != nil {
					made[o.Name] = o
				}
			}
		}
		taken := map[string]bool{}
		for _, n := range region {
			for _, v := range reads(n) {
				if made[v.Name] != nil || taken[v.Name] {
					continue
				}
				// A value read from outside the change is a's value of
				// that name, computed by a node both graphs keep.
				w := valuesA[v.Name]
				if !same(v, w) {
					return nil, nil, false
				}
				taken[v.Name] = true
				ins = append(ins, v)
				if !readSet[v.Name] {
					readSet[v.Name] = true
					c.reads = append(c.reads, v.Name)
				}
			}
		}
		return made, ins, true
	}
	madeA, insA, okA := side(ra)
	madeB, insB, okB := side(rb)
	if !okA || !okB {
		return nil, false
	}
	for _, name := range c.reads {
		if madeA[name] != nil || madeB[name] != nil {
			return nil, false
		}
	}
	// The boundary's outputs: values a change computes that the rest of
	// its graph, or the graph's outputs, read.
	var outs []string
	seen := map[string]bool{}
	boundary := func(g *graph.Graph, made map[string]*graph.Value, region []*graph.Node) {
		in := map[*graph.Node]bool{}
		for _, n := range region {
			in[n] = true
		}
		add := func(v *graph.Value) {
			if v != nil && made[v.Name] == v && !seen[v.Name] {
				seen[v.Name] = true
				outs = append(outs, v.Name)
			}
		}
		for _, n := range g.Nodes {
			if !in[n] {
				for _, v := range reads(n) {
					add(v)
				}
			}
		}
		for _, v := range g.Outputs {
			add(v)
		}
	}
	boundary(a, madeA, ra)
	boundary(b, madeB, rb)
	var outA, outB []*graph.Value
	for _, name := range outs {
		x, y := madeA[name], madeB[name]
		if x == nil || y == nil {
			return nil, false
		}
		outA, outB = append(outA, x), append(outB, y)
	}
	if len(outs) == 0 {
		return nil, false
	}
	c.a = &graph.Graph{Name: "changed (before)", Inputs: insA, Nodes: ra, Outputs: outA}
	// b's side also gives every value it computes: they, with a's other
	// values, are b's values for the next change checked on b.
	for _, n := range rb {
		for _, o := range n.Outputs {
			if o != nil && !seen[o.Name] {
				outB = append(outB, o)
			}
		}
	}
	c.b = &graph.Graph{Name: "changed (after)", Inputs: insB, Nodes: rb, Outputs: outB}
	return c, true
}

// observeGraph returns the part of a that computes the named values (none
// of them a graph input), as a graph with a's inputs and those outputs.
func observeGraph(a *graph.Graph, names []string) *graph.Graph {
	producer := map[string]*graph.Node{}
	for _, n := range a.Nodes {
		for _, o := range n.Outputs {
			if o != nil {
				producer[o.Name] = n
			}
		}
	}
	need := map[*graph.Node]bool{}
	var outs []*graph.Value
	stack := []string{}
	for _, name := range names {
		n := producer[name]
		if n == nil {
			continue
		}
		for _, o := range n.Outputs {
			if o != nil && o.Name == name {
				outs = append(outs, o)
			}
		}
		stack = append(stack, name)
	}
	for len(stack) > 0 {
		name := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := producer[name]
		if n == nil || need[n] {
			continue
		}
		need[n] = true
		for _, v := range reads(n) {
			stack = append(stack, v.Name)
		}
	}
	var nodes []*graph.Node
	for _, n := range a.Nodes {
		if need[n] {
			nodes = append(nodes, n)
		}
	}
	return &graph.Graph{Name: "observed", Inputs: a.Inputs, Nodes: nodes, Outputs: outs}
}

// errObserve marks a failure to observe the values a change reads: the
// check then runs on the whole graphs instead.
var errObserve = errors.New("observing the values a change reads")

// observations are the values of one graph a Reference observed, by name,
// one tensor per input set.
type observations map[string][]*graph.Tensor

// observeKeep bounds the bytes of observed values a Reference keeps. A
// graph whose values all fit is observed whole the first time a change
// to it is checked, so that the changes checked after (the other passes
// tried on the same graph) read them without running it again: on
// ViT-B/16 (925 MB for two input sets) a run at float32 takes 2 s.
const observeKeep = 3 << 29

// valueBytes returns the bytes of g's node outputs at their static
// shapes, computed at the precision a graph runs at (float32 stays
// float32); false when some shape is not static.
func valueBytes(g *graph.Graph) (int64, bool) {
	var total int64
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			shape, err := o.StaticShape()
			if err != nil {
				return 0, false
			}
			total += int64(graph.NumElements(shape)) * int64(max(o.DType.Size(), 1))
		}
	}
	return total, true
}

// observe returns a's values of names on each input set r draws, run at
// a's own precision (they are the inputs a change is checked on, so they
// need to be values a computes, not exact ones), taken from r when a was
// observed before.
func (r *Reference) observe(a *graph.Graph, names []string) ([]map[string]*graph.Tensor, error) {
	h := a.CanonicalHash()
	isInput := map[string]bool{}
	for _, v := range a.Inputs {
		isInput[v.Name] = true
	}
	r.mu.Lock()
	kept := r.observed[h]
	var missing []string
	for _, name := range names {
		if !isInput[name] && kept[name] == nil {
			missing = append(missing, name)
		}
	}
	r.mu.Unlock()
	gen := inputs.New(a, inputs.Options{})
	sets := make([]map[string]*graph.Tensor, r.Seeds)
	for s := range sets {
		in, err := gen.Draw(r.FirstSeed + uint64(s))
		if err != nil {
			return nil, err
		}
		sets[s] = in
	}
	got := observations{}
	if len(missing) > 0 {
		// Every value when they all fit, else those asked for.
		if total, ok := valueBytes(a); ok && total*int64(r.Seeds) <= observeKeep*2/3 {
			missing = missing[:0]
			for _, n := range a.Nodes {
				for _, o := range n.Outputs {
					if o != nil {
						missing = append(missing, o.Name)
					}
				}
			}
		}
		r.mu.Lock()
		r.observeRuns++
		r.mu.Unlock()
		ex, err := executor.NewExecutor(observeGraph(a, missing), executor.ExecOptions{Threads: r.Threads})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errObserve, err)
		}
		for _, in := range sets {
			o, err := ex.Run(in)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", errObserve, err)
			}
			for _, name := range missing {
				got[name] = append(got[name], o[name])
			}
		}
		var bytes int64
		for _, ts := range got {
			for _, t := range ts {
				bytes += int64(t.Len() * max(t.DType.Size(), 1))
			}
		}
		r.mu.Lock()
		if r.observed == nil || r.observedBytes+bytes > observeKeep {
			r.observed, r.observedBytes = map[graph.Hash]observations{}, 0
		}
		if r.observed[h] == nil {
			r.observed[h] = observations{}
		}
		for name, ts := range got {
			r.observed[h][name] = ts
		}
		r.observedBytes += bytes
		r.mu.Unlock()
	}
	// Other checks may add to the kept values meanwhile: they are read
	// under the lock.
	r.mu.Lock()
	defer r.mu.Unlock()
	kept = r.observed[h]
	out := make([]map[string]*graph.Tensor, r.Seeds)
	for s := range out {
		out[s] = map[string]*graph.Tensor{}
		for _, name := range names {
			switch {
			case isInput[name]:
				out[s][name] = sets[s][name]
			case got[name] != nil:
				out[s][name] = got[name][s]
			case kept[name] != nil:
				out[s][name] = kept[name][s]
			}
			if out[s][name] == nil {
				return nil, fmt.Errorf("%w: no value %q (dropped by another check)", errObserve, name)
			}
		}
	}
	return out, nil
}

// verdictKey names one check: the two graphs and the tolerance.
type verdictKey struct {
	a, b graph.Hash
	tol  float64
}

// verdict is a check's outcome.
type verdict struct {
	rel float64
	err error
}

// verdictsKeep bounds the checks a Reference remembers.
const verdictsKeep = 4096

// sameByRegion is Same with Regions set: a graph is the same function
// as itself, a check made before is not made again, and a change small
// enough is checked on its own (sameChanged), else the whole graphs are.
func (r *Reference) sameByRegion(a, b *graph.Graph, tol float64) (float64, error) {
	k := verdictKey{a.CanonicalHash(), b.CanonicalHash(), tol}
	if k.a == k.b {
		return 0, nil
	}
	r.mu.Lock()
	v, ok := r.verdicts[k]
	r.mu.Unlock()
	if ok {
		return v.rel, v.err
	}
	c, ok := splitChanged(a, b)
	if ok {
		v.rel, v.err = r.sameChanged(a, b, c, tol)
	}
	if !ok || errors.Is(v.err, errObserve) {
		v.rel, v.err = r.sameWhole(a, b, tol)
	}
	r.mu.Lock()
	if r.verdicts == nil || len(r.verdicts) >= verdictsKeep {
		r.verdicts = map[verdictKey]verdict{}
	}
	r.verdicts[k] = v
	r.mu.Unlock()
	return v.rel, v.err
}

// sameChanged checks c, the change from a to b: its two sides in
// float64 on the values a reads there (observed by running a), and
// returns the largest relative difference of the boundary's values.
func (r *Reference) sameChanged(a, b *graph.Graph, c *changed, tol float64) (float64, error) {
	obs, err := r.observe(a, c.reads)
	if err != nil {
		return 0, err
	}
	run := func(g *graph.Graph, in map[string]*graph.Tensor, name string) (map[string]*graph.Tensor, error) {
		ex, err := executor.NewExecutor(g, executor.ExecOptions{Precision: graph.Float64, Threads: r.Threads})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		sub := make(map[string]*graph.Tensor, len(g.Inputs))
		for _, v := range g.Inputs {
			sub[v.Name] = in[v.Name]
		}
		out, err := ex.Run(sub)
		if err != nil {
			return nil, fmt.Errorf("running %s: %w", name, err)
		}
		return out, nil
	}
	worst := 0.0
	made := make([]map[string]*graph.Tensor, len(obs))
	for s, in := range obs {
		oa, err := run(c.a, in, "before, where it changed")
		if err != nil {
			return 0, err
		}
		ob, err := run(c.b, in, "after, where it changed")
		if err != nil {
			return 0, err
		}
		made[s] = ob
		for _, v := range c.boundary() {
			x, y := oa[v.Name], ob[v.Name]
			if x == nil || y == nil {
				return 0, fmt.Errorf("value %q missing where the graphs differ", v.Name)
			}
			if !slices.Equal(x.Shape, y.Shape) {
				return 0, fmt.Errorf("value %q, where the graphs differ: shape %s after, %s before", v.Name, graph.ShapeString(y.Shape), graph.ShapeString(x.Shape))
			}
			rel, err := graph.MaxRelDiff(x, y)
			if err != nil {
				return 0, fmt.Errorf("value %q, where the graphs differ: %w", v.Name, err)
			}
			if math.IsNaN(rel) || rel > tol {
				return rel, fmt.Errorf("value %q, where the graphs differ, differs: relative error %.3g > %.3g (seed %d)", v.Name, rel, tol, r.FirstSeed+uint64(s))
			}
			worst = max(worst, rel)
		}
	}
	r.inherit(a, b, made)
	return worst, nil
}

// inherit records b's values once the change from a to b has passed its
// check: where b changed, the values its side computed (made, one map an
// input set), elsewhere a's observed values of the same names, which the
// check has shown b computes too. A chain of passes (each checked against
// the one before) then observes its first graph only.
func (r *Reference) inherit(a, b *graph.Graph, made []map[string]*graph.Tensor) {
	ha, hb := a.CanonicalHash(), b.CanonicalHash()
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.observed[ha]
	if kept == nil || r.observed[hb] != nil {
		return
	}
	obs := observations{}
	var bytes int64
	for _, n := range b.Nodes {
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			if t := made[0][o.Name]; t != nil {
				ts := make([]*graph.Tensor, len(made))
				for s := range made {
					ts[s] = made[s][o.Name]
					bytes += int64(ts[s].Len() * max(ts[s].DType.Size(), 1))
				}
				obs[o.Name] = ts
			} else if ts := kept[o.Name]; ts != nil {
				obs[o.Name] = ts
			}
		}
	}
	if r.observedBytes+bytes > observeKeep {
		return
	}
	r.observed[hb] = obs
	r.observedBytes += bytes
}
