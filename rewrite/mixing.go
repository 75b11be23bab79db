package rewrite

import "github.com/xrl-dev/xrl/rules"

// mixesParts reports whether rewriting a match of r can only succeed when
// no matched node reaches another matched node: r's source has more than
// one node, each source node is an op with one output that is a source
// output and reads only tensor variables (no other source node, no
// constant input written in brackets), and every target output depends on
// every tensor variable. A path from one matched node to another then
// leaves through a source output and enters through a variable (not one
// both nodes read: that variable would depend on itself), and the target
// closes it into a cycle. Parts may share variables: matmul-merge-rows'
// two MatMuls read one weight, and on a graph that reuses a weight along a
// chain nearly all of its pairs lie on one path.
func mixesParts(r *rules.Rule) bool {
	if len(r.Source.Nodes) < 2 {
		return false
	}
	isOut := make([]bool, len(r.Source.Nodes))
	for _, o := range r.Source.Outputs {
		if o.Kind != rules.RefNode || o.Output != 0 {
			return false
		}
		isOut[o.Node.Index] = true
	}
	for _, pn := range r.Source.Nodes {
		if !isOut[pn.Index] || pn.NumOutputs != 1 || pn.Schema == nil || pn.Schema.MaxOutputs() != 1 {
			return false
		}
		for _, a := range pn.Args {
			if a.Kind != rules.RefVar {
				return false
			}
		}
		for _, a := range pn.Attrs {
			if a.Param {
				return false
			}
		}
	}
	var tensors []int
	for _, v := range r.Vars {
		if v.Kind == rules.TensorVar {
			tensors = append(tensors, v.Index)
		}
	}
	// deps[node] is the set of variable indices a target node reads,
	// directly or through other target nodes (nodes come in post-order).
	deps := make([]map[int]bool, len(r.Target.Nodes))
	refDeps := func(ref rules.Ref) map[int]bool {
		switch ref.Kind {
		case rules.RefVar:
			return map[int]bool{ref.Var.Index: true}
		case rules.RefNode:
			return deps[ref.Node.Index]
		}
		return nil
	}
	for _, pn := range r.Target.Nodes {
		d := map[int]bool{}
		for _, a := range pn.Args {
			for x := range refDeps(a) {
				d[x] = true
			}
		}
		deps[pn.Index] = d
	}
	for _, o := range r.Target.Outputs {
		d := refDeps(o)
		for _, x := range tensors {
			if !d[x] {
				return false
			}
		}
	}
	return true
}
