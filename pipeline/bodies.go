package pipeline

import (
	"fmt"
	"io"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/search"
)

// BodyStats is what OptimizeBodies did to the bodies of a graph's
// If, Loop and Scan nodes (nested bodies included).
type BodyStats struct {
	// Bodies counts the bodies seen and Rewritten those that changed;
	// Skipped counts bodies without static shapes on every execution.
	Bodies, Rewritten, Skipped int
	// NodesBefore and NodesAfter count the nodes inside all bodies.
	NodesBefore, NodesAfter int
	// Applied lists the rules applied inside bodies, in order.
	Applied []string
}

// OptimizeBodies returns a copy of g whose control-flow bodies have each
// been folded and improved by greedy search with rw, scored by the
// roofline latency model (deterministic, no measurement); g is not
// modified. Bodies are rewritten with the same rules as the main graph:
// a body is searched as a graph of its own whose inputs are its formal
// inputs followed by the outer-scope values it reads, so neither are ever
// renamed or removed. Only bodies whose shapes inference fixed for every
// execution (graph.Body.ShapesOK) are rewritten; nested bodies first.
func OptimizeBodies(g *graph.Graph, rw rewrite.Rewriter) (*graph.Graph, BodyStats, error) {
	var st BodyStats
	if !hasBodies(g) {
		return g, st, nil
	}
	lm, err := measure.NewLatencyModel(measure.RooflineName, measure.BackendOptions{}, measure.MeasureOptions{})
	if err != nil {
		return nil, st, err
	}
	out := g.Clone()
	if err := optimizeBodies(out, rw, lm, &st); err != nil {
		return nil, st, err
	}
	return out, st, nil
}

// hasBodies reports whether a node of g has decoded bodies.
func hasBodies(g *graph.Graph) bool {
	for _, n := range g.Nodes {
		if len(n.Bodies) > 0 {
			return true
		}
	}
	return false
}

// optimizeBodies rewrites the bodies of g's nodes in place (g is a
// private copy).
func optimizeBodies(g *graph.Graph, rw rewrite.Rewriter, lm measure.LatencyModel, st *BodyStats) error {
	for _, n := range g.Nodes {
		for _, b := range n.Bodies {
			st.Bodies++
			before := len(b.Graph.Nodes)
			st.NodesBefore += before
			if !b.ShapesOK {
				st.Skipped++
				st.NodesAfter += before
				continue
			}
			nested := st.Rewritten
			if err := optimizeBodies(b.Graph, rw, lm, st); err != nil {
				return err
			}
			// The canonical hash does not see inside nested bodies: a
			// rewritten nested body makes this one edited too.
			nestedEdited := st.Rewritten > nested
			best, applied, err := optimizeBody(b.Graph, rw, lm)
			if err != nil {
				return fmt.Errorf("%v: body %s: %w", n, b.Attr, err)
			}
			st.NodesAfter += len(best.Nodes)
			if nestedEdited || best.CanonicalHash() != b.Graph.CanonicalHash() {
				b.Graph, b.Edited = best, true
				st.Rewritten++
				st.Applied = append(st.Applied, applied...)
			}
		}
		dropUnreadOuter(n)
	}
	return nil
}

// dropUnreadOuter removes from n's edited bodies the outer-scope inputs
// they no longer read (a folded weight, for example), and from n.Implicit
// the values no body reads any more, so that folding the enclosing graph
// can drop them. Unedited bodies are written verbatim and keep theirs.
func dropUnreadOuter(n *graph.Node) {
	if len(n.Bodies) == 0 {
		return
	}
	used := make([]bool, len(n.Implicit))
	for _, b := range n.Bodies {
		read := map[*graph.Value]bool{}
		for _, bn := range b.Graph.Nodes {
			for _, v := range bn.AllInputs() {
				read[v] = true
			}
		}
		for _, v := range b.Graph.Outputs {
			read[v] = true
		}
		inputs, outer := b.Graph.Inputs[:b.Formal:b.Formal], []int(nil)
		for k, v := range b.OuterInputs() {
			if b.Edited && !read[v] {
				continue
			}
			inputs, outer = append(inputs, v), append(outer, b.Outer[k])
			used[b.Outer[k]] = true
		}
		b.Graph.Inputs, b.Outer = inputs, outer
	}
	index := make([]int, len(n.Implicit))
	var kept []*graph.Value
	for i, v := range n.Implicit {
		index[i] = len(kept)
		if used[i] {
			kept = append(kept, v)
		}
	}
	for _, b := range n.Bodies {
		for k := range b.Outer {
			b.Outer[k] = index[b.Outer[k]]
		}
	}
	n.Implicit = kept
}

// optimizeBody folds body, searches it greedily and folds the result.
func optimizeBody(body *graph.Graph, rw rewrite.Rewriter, lm measure.LatencyModel) (*graph.Graph, []string, error) {
	folded, _, err := rewrite.Fold(body, executor.Evaluate)
	if err != nil {
		return nil, nil, fmt.Errorf("folding constants: %w", err)
	}
	res, err := search.Greedy(&search.Problem{Model: &graph.Model{Graph: folded}, Rewriter: rw, Latency: lm}, search.Options{})
	if err != nil {
		return nil, nil, err
	}
	best, _, err := rewrite.Fold(res.Best, executor.Evaluate)
	if err != nil {
		return nil, nil, fmt.Errorf("folding constants: %w", err)
	}
	return best, res.Path, nil
}

// reportBodies prints what OptimizeBodies did, when g has bodies.
func reportBodies(w io.Writer, st BodyStats) {
	if st.Bodies == 0 {
		return
	}
	fmt.Fprintf(w, "control-flow bodies: %d (%d rewritten, %d without fixed shapes); nodes inside bodies: %d -> %d",
		st.Bodies, st.Rewritten, st.Skipped, st.NodesBefore, st.NodesAfter)
	if len(st.Applied) > 0 {
		fmt.Fprintf(w, "; rules applied inside bodies: %s", CountRules(st.Applied))
	}
	fmt.Fprintln(w)
}
