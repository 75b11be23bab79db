// Package xrltest provides small, deterministic stand-ins used by the tests
// of several packages: a rewriter with two real (if trivial) rewrite rules
// and a latency model that charges a fixed time per node.
package xrltest

import (
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/rewrite"
)

// DropRewriter proposes removing any Identity node ("drop-identity") and any
// Relu fed by a Relu ("relu-idempotent"): consumers then read the removed
// node's input. Nodes producing graph outputs are kept. Candidates are
// deduplicated by canonical hash.
type DropRewriter struct{}

// Candidates implements rewrite.Rewriter.
func (DropRewriter) Candidates(g *graph.Graph) ([]rewrite.Candidate, error) {
	prod := g.Producers()
	outputs := map[*graph.Value]bool{}
	for _, o := range g.Outputs {
		outputs[o] = true
	}
	seen := map[graph.Hash]bool{g.CanonicalHash(): true}
	var out []rewrite.Candidate
	for i, n := range g.Nodes {
		rule := ""
		switch {
		case outputs[n.Outputs[0]]:
			continue
		case n.Op == "Identity":
			rule = "drop-identity"
		case n.Op == "Relu" && prod[n.Inputs[0]] != nil && prod[n.Inputs[0]].Op == "Relu":
			rule = "relu-idempotent"
		default:
			continue
		}
		c := g.Clone()
		victim := c.Nodes[i]
		in, gone := victim.Inputs[0], victim.Outputs[0]
		c.Nodes = append(c.Nodes[:i:i], c.Nodes[i+1:]...)
		for _, m := range c.Nodes {
			for k, v := range m.Inputs {
				if v == gone {
					m.Inputs[k] = in
				}
			}
		}
		if h := c.CanonicalHash(); !seen[h] {
			seen[h] = true
			out = append(out, rewrite.Candidate{Graph: c, Rule: rule})
		}
	}
	return out, nil
}

// NodeLatency is a deterministic latency model charging PerNode (default
// 1µs) per node; Calls counts queries.
type NodeLatency struct {
	PerNode time.Duration
	Calls   int
}

// Name implements measure.LatencyModel.
func (*NodeLatency) Name() string { return "nodes" }

// Latency implements measure.LatencyModel.
func (l *NodeLatency) Latency(m *graph.Model) (measure.Stats, error) {
	l.Calls++
	per := l.PerNode
	if per == 0 {
		per = time.Microsecond
	}
	d := time.Duration(len(m.Graph.Nodes)) * per
	return measure.Stats{N: 1, Median: d, P10: d, P90: d, Min: d, Stable: true}, nil
}

// ChainModel builds x -> ops... -> Sigmoid on a 2x8 float32 input.
func ChainModel(t testing.TB, ops ...string) *graph.Model {
	t.Helper()
	b := graph.NewBuilder("chain")
	x := b.Input("x", graph.Float32, 2, 8)
	for _, op := range ops {
		x = b.Op(op, []*graph.Value{x}, nil)
	}
	b.Output(b.Op("Sigmoid", []*graph.Value{x}, nil))
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	return &graph.Model{Graph: g}
}
