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
