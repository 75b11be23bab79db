package inspect

import (
	"fmt"
	"sort"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/pipeline"
)

// Report describes a model.
type Report struct {
	// Path is the model's file and Model the model as read, with its
	// shapes as imported (symbolic ones kept).
	Path  string
	Model *graph.Model
	// Bound is a copy of the graph with its input shapes bound and every
	// shape inferred, or nil when that failed (BindErr says why).
	// Observed lists the nodes whose shapes were taken from a run in ONNX
	// Runtime, as static inference cannot know them.
	Bound    *graph.Graph
	BindErr  error
	Observed []*graph.Node
	// Ops counts the nodes per op, most frequent first; Opaque names the
	// opaque ops (sorted) other than control flow with decoded bodies.
	Ops    []OpCount
	Opaque []string
	// Params counts the parameters outside control-flow bodies, Bodies
	// what the bodies hold.
	Params int64
	Bodies Bodies
	// FLOPs is the bound graph's count (2 per multiply-add).
	FLOPs int64
}

// OpCount is the number of nodes of one op; Op is "Domain.Op" outside
// the default domain.
type OpCount struct {
	Op     string
	N      int
	Opaque bool
}

// Bodies counts what a graph's If, Loop and Scan bodies hold (nested ones
// included). Constants a body reads from an enclosing graph are counted
// there, not again.
type Bodies struct {
	Bodies, Nodes int
	Params        int64
}

// Read reads and validates the model at path and describes it, binding
// its input shapes with shapes (input name -> dims; unbound leading
// dimensions default to 1) in a copy. A binding that fails is reported in
// BindErr, not as an error.
func Read(path string, shapes map[string][]int) (*Report, error) {
	m, err := pipeline.ReadModel(path)
	if err != nil {
		return nil, err
	}
	g := m.Graph
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := &Report{Path: path, Model: m, Params: models.Params(g), Bodies: bodiesOf(g)}
	r.Ops, r.Opaque = histogram(g)
	bound := *m
	bound.Graph = g.Clone()
	r.Observed, r.BindErr = measure.BindShapes(&bound, shapes)
	if r.BindErr == nil {
		r.Bound = bound.Graph
		r.FLOPs = graph.FLOPs(bound.Graph)
	}
	return r, nil
}

// histogram counts g's nodes per op and names the opaque ops.
func histogram(g *graph.Graph) ([]OpCount, []string) {
	counts := map[string]int{}
	opaque := map[string]bool{}
	for _, n := range g.Nodes {
		key := n.Op
		if n.Domain != "" && n.Domain != "ai.onnx" {
			key = n.Domain + "." + n.Op
		}
		counts[key]++
		if n.IsOpaque() && len(n.Bodies) == 0 && !graph.IsRecurrent(n) {
			opaque[key] = true
		}
	}
	ops := make([]OpCount, 0, len(counts))
	var names []string
	for k, n := range counts {
		ops = append(ops, OpCount{Op: k, N: n, Opaque: opaque[k]})
		if opaque[k] {
			names = append(names, k)
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].N != ops[j].N {
			return ops[i].N > ops[j].N
		}
		return ops[i].Op < ops[j].Op
	})
	sort.Strings(names)
	return ops, names
}

// bodiesOf counts the nodes and parameters inside g's bodies.
func bodiesOf(g *graph.Graph) Bodies {
	var b Bodies
	g.WalkBodies(func(_ *graph.Node, body *graph.Body) {
		b.Bodies++
		b.Nodes += len(body.Graph.Nodes)
		b.Params += models.Params(body.Graph)
		for _, v := range body.OuterInputs() {
			if v.Const != nil && v.Const.DType.IsFloat() && len(v.Const.Shape) > 0 {
				b.Params -= int64(v.Const.Len())
			}
		}
	})
	return b
}
