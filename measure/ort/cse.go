package ort

import (
	ortgo "github.com/yalue/onnxruntime_go"

	"github.com/xrl-dev/xrl/graph"
)

// cseCheckNodes is the node count from which a session is created without
// ONNX Runtime's common-subexpression elimination when the graph has no
// common subexpression (hasCommonSubexpression). ONNX Runtime's pass spent
// 45 s finding nothing to merge in the 50,000-node residual MLP (a chain
// of blocks sharing one weight), and ran twice, where the whole load
// without it took under 2 s; on graphs of a few thousand nodes it costs
// well under a second, and they keep every pass as users run them.
const cseCheckNodes = 10_000

// disableIdleCSE turns ONNX Runtime's common-subexpression elimination off
// in opts when g is large (cseCheckNodes) and has no common
// subexpression: the pass would then change nothing, so the session runs
// the graph a default session runs.
func disableIdleCSE(opts *ortgo.SessionOptions, g *graph.Graph) error {
	if len(g.Nodes) < cseCheckNodes || hasCommonSubexpression(g) {
		return nil
	}
	return opts.AddSessionConfigEntry("optimization.disable_specified_optimizers", "CommonSubexpressionElimination")
}

// hasCommonSubexpression reports whether two nodes of g could be merged
// as computing the same thing: same domain, op and attributes (a node's
// graph attributes left out) and the same inputs, constants compared by
// content. It errs on the side of yes, so that ONNX Runtime's pass is only
// skipped where it could merge nothing: if no two nodes match, no two
// nodes further down can either, as their inputs all differ.
func hasCommonSubexpression(g *graph.Graph) bool {
	ids := map[*graph.Value]int{}
	constIDs := map[graph.Hash]int{}
	id := func(v *graph.Value) int {
		if v == nil {
			return -1
		}
		if v.Const != nil {
			d := v.Const.Digest()
			if _, ok := constIDs[d]; !ok {
				constIDs[d] = len(constIDs)
			}
			return -2 - constIDs[d]
		}
		if _, ok := ids[v]; !ok {
			ids[v] = len(ids)
		}
		return ids[v]
	}
	seen := make(map[string]bool, len(g.Nodes))
	var key graph.HashEnc
	for _, n := range g.Nodes {
		key = key[:0].NodePrefix(n).U64(uint64(len(n.Inputs)))
		for _, v := range n.Inputs {
			key = key.U64(uint64(id(v)))
		}
		if seen[string(key)] {
			return true
		}
		seen[string(key)] = true
	}
	return false
}
