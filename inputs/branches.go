package inputs

import "github.com/xrl-dev/xrl/graph"

// InputIfs returns the If nodes of g and of its control-flow bodies,
// nested ones after the node holding them, whose condition depends on
// g's non-constant inputs: those that verification must see taken both
// ways. Inside a Loop or Scan body the iteration number and the carried
// values count as depending on the inputs when the node itself reads
// some input.
func InputIfs(g *graph.Graph) []*graph.Node {
	dep := map[*graph.Value]bool{}
	for _, v := range g.Inputs {
		if v.Const == nil {
			dep[v] = true
		}
	}
	var out []*graph.Node
	inputIfs(g, dep, &out)
	return out
}

// inputIfs appends to out the input-dependent Ifs of g, given which of
// g's inputs depend on the model's inputs (dep, extended in place).
func inputIfs(g *graph.Graph, dep map[*graph.Value]bool, out *[]*graph.Node) {
	nodes, err := graph.TopoOrder(g.Nodes)
	if err != nil {
		nodes = g.Nodes
	}
	for _, n := range nodes {
		reads := false
		for _, v := range n.AllInputs() {
			reads = reads || dep[v]
		}
		if !reads {
			continue
		}
		for _, o := range n.Outputs {
			if o != nil {
				dep[o] = true
			}
		}
		if n.Op == "If" && dep[n.Input(0)] {
			*out = append(*out, n)
		}
		for _, b := range n.Bodies {
			for _, v := range b.FormalInputs() {
				dep[v] = true
			}
			for j, v := range b.OuterInputs() {
				if k := b.Outer[j]; k < len(n.Implicit) && dep[n.Implicit[k]] {
					dep[v] = true
				}
			}
			inputIfs(b.Graph, dep, out)
		}
	}
}
