package env_test

import (
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/ppo/builtin"
)

// frozenClassCount is the number of node classes every shipped checkpoint
// was trained with; changing it means retraining them.
const frozenClassCount = 128

// TestOpClassesFrozen checks the class list stays the one the checkpoints
// were trained with: its size, its order, that each operator name is a
// default-domain row of the op-schema table, and that the embedded agent
// takes exactly this many classes.
func TestOpClassesFrozen(t *testing.T) {
	classes := env.OpClasses()
	if len(classes) != frozenClassCount || env.NumOpClasses() != frozenClassCount {
		t.Fatalf("%d node classes, want the frozen %d", len(classes), frozenClassCount)
	}
	ops := classes[:len(classes)-3]
	if got := classes[len(ops):]; !slices.Equal(got, []string{env.ClassInput, env.ClassWeight, env.ClassOther}) {
		t.Errorf("last classes %v, want input, weight, other", got)
	}
	if !slices.IsSorted(ops) {
		t.Errorf("operator classes are not in name order")
	}
	for i, op := range ops {
		if i > 0 && ops[i-1] == op {
			t.Errorf("class %q listed twice", op)
		}
		if graph.Lookup("", op) == nil {
			t.Errorf("class %q is not an operator of the schema table", op)
		}
	}
	net, _, err := builtin.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := net.Config().Classes; got != frozenClassCount {
		t.Errorf("the built-in agent takes %d classes, the environment %d", got, frozenClassCount)
	}
}

// TestNewOperatorIsOther checks an operator of the table that is not in
// the frozen list encodes as ClassOther.
func TestNewOperatorIsOther(t *testing.T) {
	classes := env.OpClasses()
	var extra string
	for _, s := range graph.Schemas() {
		if (s.Domain == "" || s.Domain == "ai.onnx") && !slices.Contains(classes, s.Op) {
			extra = s.Op
			break
		}
	}
	if extra == "" {
		t.Skip("every operator of the table has a class of its own")
	}
	x := &graph.Value{Name: "x"}
	x.SetStatic(graph.Float32, []int{2, 2})
	y := &graph.Value{Name: "y"}
	g := &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}}
	g.Nodes = []*graph.Node{{Name: "n", Op: extra, Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}}}
	gt := env.EncodeGraph(g)
	if c := classes[gt.NodeClass[len(gt.NodeClass)-1]]; c != env.ClassOther {
		t.Errorf("%s encodes as class %q, want %q", extra, c, env.ClassOther)
	}
}
