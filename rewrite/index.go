package rewrite

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/xrl-dev/xrl/graph"
)

// gindex is an input graph prepared once for matching and applying: nodes
// in topological order with their positions, producers, consumers and
// nodes by op. It is read-only after construction (the name set is built
// on first use under a sync.Once), so workers share it.
type gindex struct {
	g     *graph.Graph
	nodes []*graph.Node // topological order
	pos   map[*graph.Node]int32
	// producer maps a node output to the position of its node.
	producer map[*graph.Value]int32
	// consumers maps a value to the positions of the nodes reading it
	// (once per node, ascending).
	consumers map[*graph.Value][]int32
	byOp      map[string][]int32
	isOutput  map[*graph.Value]bool
	isInput   map[*graph.Value]bool
	// inits marks the values of g.Initializers.
	inits map[*graph.Value]bool

	namesOnce sync.Once
	names     map[string]bool

	reachOnce sync.Once
	reach     *reachIndex
}

// newIndex indexes g; it fails when g has a cycle.
func newIndex(g *graph.Graph) (*gindex, error) {
	order, err := graph.TopoOrder(g.Nodes)
	if err != nil {
		return nil, fmt.Errorf("rewrite: input graph %q: %w", g.Name, err)
	}
	n := len(order)
	gx := &gindex{
		g: g, nodes: order,
		pos:       make(map[*graph.Node]int32, n),
		producer:  make(map[*graph.Value]int32, n),
		consumers: make(map[*graph.Value][]int32, 2*n),
		byOp:      map[string][]int32{},
		isOutput:  make(map[*graph.Value]bool, len(g.Outputs)),
		inits:     make(map[*graph.Value]bool, len(g.Initializers)),
		isInput:   make(map[*graph.Value]bool, len(g.Inputs)),
	}
	for i, nd := range order {
		p := int32(i)
		gx.pos[nd] = p
		for _, o := range nd.Outputs {
			if o != nil {
				gx.producer[o] = p
			}
		}
		ins := nd.AllInputs()
		for k, in := range ins {
			if in == nil || seenBefore(ins, k) {
				continue
			}
			gx.consumers[in] = append(gx.consumers[in], p)
		}
		if !nd.IsOpaque() && (nd.Domain == "" || nd.Domain == "ai.onnx") {
			gx.byOp[nd.Op] = append(gx.byOp[nd.Op], p)
		}
	}
	for _, o := range g.Outputs {
		gx.isOutput[o] = true
	}
	for _, v := range g.Initializers {
		gx.inits[v] = true
	}
	for _, v := range g.Inputs {
		gx.isInput[v] = true
	}
	return gx, nil
}

// seenBefore reports whether vs[k] also occurs in vs[:k].
func seenBefore(vs []*graph.Value, k int) bool {
	for _, v := range vs[:k] {
		if v == vs[k] {
			return true
		}
	}
	return false
}

// producerOf returns the position of v's producer, or -1.
func (gx *gindex) producerOf(v *graph.Value) int32 {
	if p, ok := gx.producer[v]; ok {
		return p
	}
	return -1
}

// producerNode returns the node producing v, or nil.
func (gx *gindex) producerNode(v *graph.Value) *graph.Node {
	if p := gx.producerOf(v); p >= 0 {
		return gx.nodes[p]
	}
	return nil
}

// usedNames returns every node and value name of the graph.
func (gx *gindex) usedNames() map[string]bool {
	gx.namesOnce.Do(func() {
		gx.names = gx.g.Names()
	})
	return gx.names
}

// namer returns a rules.Namer-compatible function producing names unused
// in the graph and by earlier calls of the same namer.
func (gx *gindex) namer(prefix string) func(base string) string {
	used := gx.usedNames()
	mine := map[string]bool{}
	count := 0
	return func(base string) string {
		for {
			count++
			name := prefix + "/" + base + "_" + strconv.Itoa(count)
			if !used[name] && !used[name+":0"] && !mine[name] {
				mine[name] = true
				return name
			}
		}
	}
}

// reachability returns the graph's reachIndex (built on first use), or
// nil when the graph is too wide for it.
func (gx *gindex) reachability() *reachIndex {
	gx.reachOnce.Do(func() { gx.reach = newReachIndex(gx) })
	return gx.reach
}
