package graph

import (
	"errors"
	"testing"
)

// A shape computed at run time (here Reshape's shape fed by a graph input)
// cannot be inferred, but the graph is still structurally valid.
func TestValidateAcceptsRunTimeShapes(t *testing.T) {
	x := &Value{Name: "x"}
	x.SetStatic(Float32, []int{2, 3})
	shape := &Value{Name: "shape"}
	shape.SetStatic(Int64, []int{2})
	y := &Value{Name: "y", DType: Float32}
	z := &Value{Name: "z", DType: Float32}
	g := &Graph{
		Inputs:  []*Value{x, shape},
		Outputs: []*Value{z},
		Nodes: []*Node{
			{Name: "r", Op: "Reshape", Inputs: []*Value{x, shape}, Outputs: []*Value{y}},
			{Name: "t", Op: "Tanh", Inputs: []*Value{y}, Outputs: []*Value{z}},
		},
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	err := g.Clone().InferShapes()
	var dyn *DynamicValueError
	if !errors.As(err, &dyn) || dyn.Name != "shape" {
		t.Fatalf("InferShapes: want a DynamicValueError naming \"shape\", got %v", err)
	}
	// Structural errors are still found in such graphs.
	g.Nodes[1].Inputs = []*Value{y, y}
	if err := g.Validate(); err == nil {
		t.Error("arity error not reported")
	}
}
