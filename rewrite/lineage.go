package rewrite

import (
	"runtime"
	"sync"
	"weak"

	"github.com/xrl-dev/xrl/graph"
)

// parents maps a graph built from a candidate to the graph the candidate
// was generated from, both held weakly: an entry keeps neither alive and
// goes when the built graph does. Any engine that matched the parent
// recently can then match the child incrementally (see incremental.go),
// not only the engine that made the candidate: the canonicalisation a
// pass runs on every graph of an episode has its own engine.
var parents sync.Map // weak.Pointer[graph.Graph] -> weak.Pointer[graph.Graph]

// recordParent records that child was built from a candidate of parent.
func recordParent(child, parent *graph.Graph) {
	k := weak.Make(child)
	if _, loaded := parents.LoadOrStore(k, weak.Make(parent)); !loaded {
		runtime.AddCleanup(child, func(k weak.Pointer[graph.Graph]) { parents.Delete(k) }, k)
	}
}

// parentOf returns the graph g was built from a candidate of, or nil.
func parentOf(g *graph.Graph) *graph.Graph {
	v, ok := parents.Load(weak.Make(g))
	if !ok {
		return nil
	}
	return v.(weak.Pointer[graph.Graph]).Value()
}
