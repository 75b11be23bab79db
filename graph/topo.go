package graph

import (
	"fmt"
	"sort"
	"strings"
)

// CycleError reports nodes that lie on or behind a dependency cycle.
type CycleError struct {
	Nodes []*Node
}

func (e *CycleError) Error() string {
	names := make([]string, 0, len(e.Nodes))
	for i, n := range e.Nodes {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(e.Nodes)-5))
			break
		}
		names = append(names, fmt.Sprintf("%q (%s)", n.Name, n.Op))
	}
	return "graph has a cycle through nodes " + strings.Join(names, ", ")
}

// Producers maps every node output to the node that produces it.
func (g *Graph) Producers() map[*Value]*Node {
	m := make(map[*Value]*Node, len(g.Nodes))
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o != nil {
				m[o] = n
			}
		}
	}
	return m
}

// Consumers maps every value to the nodes that read it (once per node, in
// node order).
func (g *Graph) Consumers() map[*Value][]*Node {
	m := make(map[*Value][]*Node, len(g.Nodes))
	for _, n := range g.Nodes {
		ins := n.AllInputs()
		for i, in := range ins {
			if in == nil {
				continue
			}
			dup := false
			for _, p := range ins[:i] {
				if p == in {
					dup = true
					break
				}
			}
			if !dup {
				m[in] = append(m[in], n)
			}
		}
	}
	return m
}

// Sort reorders g.Nodes topologically (stable: among ready nodes the one
// earliest in the current order goes first). It returns a *CycleError naming
// the nodes that could not be ordered.
func (g *Graph) Sort() error {
	order, err := TopoOrder(g.Nodes)
	if err != nil {
		return err
	}
	g.Nodes = order
	return nil
}

// TopoOrder returns nodes in a stable topological order.
func TopoOrder(nodes []*Node) ([]*Node, error) {
	prod := make(map[*Value]int, len(nodes))
	for i, n := range nodes {
		for _, o := range n.Outputs {
			if o != nil {
				prod[o] = i
			}
		}
	}
	indeg := make([]int, len(nodes))
	succ := make([][]int, len(nodes))
	for i, n := range nodes {
		for _, in := range n.AllInputs() {
			if in == nil {
				continue
			}
			if p, ok := prod[in]; ok {
				indeg[i]++
				succ[p] = append(succ[p], i)
			}
		}
	}
	// A min-heap on original index keeps the order stable.
	ready := make([]int, 0, len(nodes))
	for i := range nodes {
		if indeg[i] == 0 {
			ready = append(ready, i)
		}
	}
	out := make([]*Node, 0, len(nodes))
	h := intHeap(ready)
	h.init()
	for h.len() > 0 {
		i := h.pop()
		out = append(out, nodes[i])
		for _, s := range succ[i] {
			indeg[s]--
			if indeg[s] == 0 {
				h.push(s)
			}
		}
	}
	if len(out) != len(nodes) {
		var stuck []*Node
		for i, n := range nodes {
			if indeg[i] > 0 {
				stuck = append(stuck, n)
			}
		}
		sort.SliceStable(stuck, func(a, b int) bool { return stuck[a].Name < stuck[b].Name })
		return nil, &CycleError{Nodes: stuck}
	}
	return out, nil
}

type intHeap []int

func (h *intHeap) len() int { return len(*h) }
func (h *intHeap) init() {
	for i := len(*h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}
func (h *intHeap) push(x int) {
	*h = append(*h, x)
	i := len(*h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if (*h)[p] <= (*h)[i] {
			break
		}
		(*h)[p], (*h)[i] = (*h)[i], (*h)[p]
		i = p
	}
}
func (h *intHeap) pop() int {
	old := *h
	x := old[0]
	n := len(old) - 1
	old[0] = old[n]
	*h = old[:n]
	h.down(0)
	return x
}
func (h *intHeap) down(i int) {
	a := *h
	for {
		l := 2*i + 1
		if l >= len(a) {
			return
		}
		m := l
		if r := l + 1; r < len(a) && a[r] < a[l] {
			m = r
		}
		if a[i] <= a[m] {
			return
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
}

// Constants returns every constant value referenced by g (initializers
// first, in file order, then constants only referenced by nodes).
func (g *Graph) Constants() []*Value {
	seen := make(map[*Value]bool)
	var out []*Value
	add := func(v *Value) {
		if v != nil && v.Const != nil && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, v := range g.Initializers {
		add(v)
	}
	for _, n := range g.Nodes {
		for _, in := range n.Inputs {
			add(in)
		}
	}
	for _, v := range g.Outputs {
		add(v)
	}
	return out
}
