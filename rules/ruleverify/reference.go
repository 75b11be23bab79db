package ruleverify

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
)

// Reference is SameFunction for a chain of checks that share graphs: the
// passes tried on one start graph all compare against it, and a pass
// applied after another compares against the first's result. It keeps
// the float64 outputs of the graphs it ran (by canonical hash, at most
// referenceKeep of them), so that each graph runs once however many
// checks it takes part in on the same inputs; a run of ViT-B/16 in
// float64 takes seconds.
// It is safe for concurrent use.
type Reference struct {
	// Seeds and FirstSeed are the input sets drawn, as SameFunction's.
	Seeds     int
	FirstSeed uint64
	// Threads is the executor's threads (0: all cores).
	Threads int
	// Regions checks a rewrite that changed a small part of a graph
	// (RegionMaxShare) on that part alone: the nodes of a that b lacks
	// against the nodes of b that a lacks, run in float64 on the values
	// they read as a computes them (observed by running a at its own
	// precision), compared where the rest of the graph reads them. The
	// nodes both graphs keep (same operator, attributes and value names
	// and types) compute the same values from equal inputs, so the graphs
	// compute the same function when the changed parts do.
	Regions bool

	mu            sync.Mutex
	outs          map[string][]map[string]*graph.Tensor // by graph and inputs
	observed      map[graph.Hash]observations           // by graph
	observedBytes int64
	verdicts      map[verdictKey]verdict
	observeRuns   int // graphs run to observe their values
}

// Forget drops the outputs and observed values r keeps (it keeps its
// verdicts): a run calls it when its last pass has been checked.
func (r *Reference) Forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outs, r.observed, r.observedBytes = nil, nil, 0
}

// referenceKeep bounds the graphs whose outputs a Reference keeps.
const referenceKeep = 16

// Same is SameFunction(a, b, r.Seeds, r.FirstSeed, tol) with the
// outputs of a graph already run on the same inputs taken from r.
func (r *Reference) Same(a, b *graph.Graph, tol float64) (float64, error) {
	if len(a.Inputs) != len(b.Inputs) || len(a.Outputs) != len(b.Outputs) {
		return 0, fmt.Errorf("the graphs have different signatures")
	}
	if r.Regions {
		return r.sameByRegion(a, b, tol)
	}
	return r.sameWhole(a, b, tol)
}

// sameWhole is Same on the whole graphs.
func (r *Reference) sameWhole(a, b *graph.Graph, tol float64) (float64, error) {
	// Inputs are drawn for a, as SameFunction draws them, and a graph's
	// outputs are remembered with the digest of the inputs they came
	// from.
	gen := inputs.New(a, inputs.Options{Float64: true})
	sets := make([]map[string]*graph.Tensor, r.Seeds)
	var key []byte
	for s := range sets {
		in, err := gen.Draw(r.FirstSeed + uint64(s))
		if err != nil {
			return 0, err
		}
		sets[s] = in
		for _, v := range a.Inputs {
			if t := in[v.Name]; t != nil {
				d := t.Digest()
				key = append(append(key, v.Name...), d[:]...)
			}
		}
	}
	oa, err := r.outputs(a, sets, string(key), "before")
	if err != nil {
		return 0, err
	}
	ob, err := r.outputs(b, sets, string(key), "after")
	if err != nil {
		return 0, err
	}
	worst := 0.0
	for s := range sets {
		for i := range a.Outputs {
			x, y := oa[s][a.Outputs[i].Name], ob[s][b.Outputs[i].Name]
			if x == nil || y == nil {
				return 0, fmt.Errorf("output %d missing", i)
			}
			if !slices.Equal(x.Shape, y.Shape) {
				return 0, fmt.Errorf("output %q: shape %s after, %s before", a.Outputs[i].Name, graph.ShapeString(y.Shape), graph.ShapeString(x.Shape))
			}
			rel, err := graph.MaxRelDiff(x, y)
			if err != nil {
				return 0, fmt.Errorf("output %q: %w", a.Outputs[i].Name, err)
			}
			if math.IsNaN(rel) || rel > tol {
				return rel, fmt.Errorf("output %q differs: relative error %.3g > %.3g (seed %d)", a.Outputs[i].Name, rel, tol, r.FirstSeed+uint64(s))
			}
			worst = max(worst, rel)
		}
	}
	return worst, nil
}

// outputs returns g's float64 outputs on each of sets (whose digest is
// key), run now or remembered; name says which graph it is in errors.
func (r *Reference) outputs(g *graph.Graph, sets []map[string]*graph.Tensor, key, name string) ([]map[string]*graph.Tensor, error) {
	h := g.CanonicalHash()
	k := string(h[:]) + key
	r.mu.Lock()
	out, ok := r.outs[k]
	r.mu.Unlock()
	if ok {
		return out, nil
	}
	ex, err := executor.NewExecutor(g, executor.ExecOptions{Precision: graph.Float64, Threads: r.Threads})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, in := range sets {
		o, err := ex.Run(in)
		if err != nil {
			return nil, fmt.Errorf("running %s: %w", name, err)
		}
		out = append(out, o)
	}
	r.mu.Lock()
	if r.outs == nil || len(r.outs) >= referenceKeep {
		r.outs = map[string][]map[string]*graph.Tensor{}
	}
	r.outs[k] = out
	r.mu.Unlock()
	return out, nil
}
