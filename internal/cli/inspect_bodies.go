package cli

import (
	"fmt"
	"io"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/models"
)

// writeBodies prints the nodes and parameters inside g's If, Loop and Scan
// bodies (nested ones included), which the "nodes" and "parameters" lines
// above do not count. Constants a body reads from an enclosing graph are
// counted there, not again.
func writeBodies(w io.Writer, g *graph.Graph) {
	bodies, nodes := 0, 0
	var params int64
	g.WalkBodies(func(_ *graph.Node, b *graph.Body) {
		bodies++
		nodes += len(b.Graph.Nodes)
		params += models.Params(b.Graph)
		for _, v := range b.OuterInputs() {
			if v.Const != nil && v.Const.DType.IsFloat() && len(v.Const.Shape) > 0 {
				params -= int64(v.Const.Len())
			}
		}
	})
	if bodies == 0 {
		return
	}
	fmt.Fprintf(w, "bodies      %d If/Loop/Scan bodies hold %d more nodes and %s (%d) more parameters (not counted above; bodies are rewritten with the same rules, and run by the Go executor when their shapes are static)\n",
		bodies, nodes, humanCount(float64(params)), params)
}
