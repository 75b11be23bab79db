package rules

// makePlan orders the source nodes for matching. The first step scans for
// the node of the first source output; every later step reaches its node
// from values already bound: through the producer of a bound node output
// (a direct graph lookup) when possible, else through the consumers of a
// bound value (usually few), and only when the pattern has a part that
// shares nothing with the matched part, by another scan.
func makePlan(r *Rule) ([]Step, bool) { return makePlanFrom(r, nil) }

// PlanFrom returns a matching plan that starts by scanning for source node
// root and then reaches the others as Plan does: a matcher following it
// finds the matches of the rule with root bound to a given graph node
// (incremental matching starts from each node a rewrite changed). root
// must be one of r's source nodes.
func (r *Rule) PlanFrom(root *PNode) []Step {
	plan, _ := makePlanFrom(r, root)
	return plan
}

// makePlanFrom is makePlan with the first step scanning for root (nil:
// chosen as makePlan does).
func makePlanFrom(r *Rule, root *PNode) ([]Step, bool) {
	src := r.Source
	matched := make([]bool, len(src.Nodes))
	boundVar := make([]bool, len(r.Vars))
	boundOut := map[[2]int]bool{} // node index, output
	var plan []Step
	scans := 0
	isBound := func(a Ref) bool {
		switch a.Kind {
		case RefVar:
			return boundVar[a.Var.Index]
		case RefNode:
			return matched[a.Node.Index] || boundOut[[2]int{a.Node.Index, a.Output}]
		}
		return false
	}
	mark := func(n *PNode) {
		matched[n.Index] = true
		for _, a := range n.Args {
			switch a.Kind {
			case RefVar:
				boundVar[a.Var.Index] = true
			case RefNode:
				boundOut[[2]int{a.Node.Index, a.Output}] = true
			}
		}
	}
	for len(plan) < len(src.Nodes) {
		var step *Step
		// A node whose output is already bound: take the producer.
		for _, n := range src.Nodes {
			if matched[n.Index] {
				continue
			}
			for k := 0; k < n.NumOutputs && step == nil; k++ {
				if boundOut[[2]int{n.Index, k}] {
					step = &Step{Kind: StepProducer, Node: n, From: Ref{Kind: RefNode, Node: n, Output: k}}
				}
			}
			if step != nil {
				break
			}
		}
		// A node reading a bound value: enumerate that value's consumers.
		if step == nil {
			for _, n := range src.Nodes {
				if matched[n.Index] {
					continue
				}
				for i, a := range n.Args {
					if isBound(a) {
						step = &Step{Kind: StepConsumer, Node: n, From: a, Arg: i}
						break
					}
				}
				if step != nil {
					break
				}
			}
		}
		// Otherwise scan: root first, else preferring the nodes of the
		// source outputs.
		if step == nil && root != nil && !matched[root.Index] {
			step = &Step{Kind: StepScan, Node: root}
			scans++
		}
		if step == nil {
			for _, o := range src.Outputs {
				if o.Kind == RefNode && !matched[o.Node.Index] {
					step = &Step{Kind: StepScan, Node: o.Node}
					break
				}
			}
			if step == nil {
				for _, n := range src.Nodes {
					if !matched[n.Index] {
						step = &Step{Kind: StepScan, Node: n}
						break
					}
				}
			}
			scans++
		}
		mark(step.Node)
		plan = append(plan, *step)
	}
	return plan, scans > 1
}

// Root returns the source node a matcher starts from (the first plan
// step's node, found by scanning for its op).
func (r *Rule) Root() *PNode {
	if len(r.Plan) == 0 {
		return nil
	}
	return r.Plan[0].Node
}
