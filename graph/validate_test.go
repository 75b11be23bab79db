package graph

import (
	"errors"
	"strings"
	"testing"
)

// validGraph is x[1x4] -> MatMul(w[4x3]) -> Add(b[3]) -> Relu -> y.
func validGraph(t *testing.T) *Graph {
	t.Helper()
	b := NewBuilder("v")
	x := b.Input("x", Float32, 1, 4)
	m := b.Op("MatMul", []*Value{x, b.Const("w", NewTensor(Float32, 4, 3))}, nil)
	a := b.Op("Add", []*Value{m, b.Const("b", NewTensor(Float32, 3))}, nil)
	r := b.Op("Relu", []*Value{a}, nil)
	b.Output(r)
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func nodeByOp(g *Graph, op string) *Node {
	for _, n := range g.Nodes {
		if n.Op == op {
			return n
		}
	}
	return nil
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(g *Graph)
		err    string
	}{
		{"valid", func(g *Graph) {}, ""},
		{"nil node", func(g *Graph) { g.Nodes = append(g.Nodes, nil) }, "node 3 is nil"},
		{"nil output", func(g *Graph) { g.Outputs = append(g.Outputs, nil) }, "graph output 1 is nil"},
		{"initializer without data", func(g *Graph) { g.Initializers = append(g.Initializers, &Value{Name: "z"}) }, `initializer 2 "z" has no data`},
		{"empty name", func(g *Graph) { nodeByOp(g, "Add").Outputs[0].Name = "" }, `node "Add" (Add): output 0 has an empty name`},
		{"duplicate name", func(g *Graph) { nodeByOp(g, "Add").Outputs[0].Name = "x" }, `duplicate value name "x"`},
		{"dangling input", func(g *Graph) {
			n := nodeByOp(g, "Add")
			n.Inputs[1] = &Value{Name: "foo", DType: Float32, Shape: StaticShape(3), ShapeKnown: true}
		}, `node "Add" (Add): input 1 "foo" is not produced by any node, not a graph input and not an initializer`},
		{"produced twice", func(g *Graph) {
			nodeByOp(g, "Relu").Outputs[0] = nodeByOp(g, "Add").Outputs[0]
			g.Outputs[0] = nodeByOp(g, "Add").Outputs[0]
		}, "is produced by 2 nodes"},
		{"output is a graph input", func(g *Graph) { nodeByOp(g, "Relu").Outputs[0] = g.Inputs[0] }, "is also a graph input"},
		{"cycle", func(g *Graph) { nodeByOp(g, "MatMul").Inputs[0] = nodeByOp(g, "Relu").Outputs[0] }, "cycle"},
		{"too few inputs", func(g *Graph) { n := nodeByOp(g, "Add"); n.Inputs = n.Inputs[:1] }, `node "Add" (Add): has 1 inputs, want at least 2`},
		{"too many inputs", func(g *Graph) { n := nodeByOp(g, "Relu"); n.Inputs = append(n.Inputs, n.Inputs[0]) }, "want at most 1"},
		{"required input nil", func(g *Graph) { nodeByOp(g, "Add").Inputs[1] = nil }, "required input 1 (B) is missing"},
		{"too many outputs", func(g *Graph) {
			n := nodeByOp(g, "Relu")
			n.Outputs = append(n.Outputs, &Value{Name: "extra"})
		}, "want at most 1"},
		{"unknown attribute", func(g *Graph) { nodeByOp(g, "Relu").Attrs = Attrs{"alpha": FloatAttr(1)} }, `node "Relu" (Relu): unknown attribute "alpha"`},
		{"bad attribute kind", func(g *Graph) {
			g.Nodes = append(g.Nodes, &Node{Name: "lr", Op: "LeakyRelu", Inputs: []*Value{g.Outputs[0]},
				Outputs: []*Value{{Name: "lr_out"}}, Attrs: Attrs{"alpha": IntAttr(1)}})
		}, `node "lr" (LeakyRelu): attribute "alpha" has kind int, want float`},
		{"missing required attribute", func(g *Graph) {
			g.Nodes = append(g.Nodes, &Node{Name: "cat", Op: "Concat", Inputs: []*Value{g.Outputs[0]},
				Outputs: []*Value{{Name: "cat_out"}}})
		}, `node "cat" (Concat): required attribute "axis" is missing`},
		{"unknown op", func(g *Graph) { nodeByOp(g, "Relu").Op = "Frobnicate" }, `op "Frobnicate" (domain "") is not in the op-schema table`},
		{"opaque skips schema", func(g *Graph) {
			n := nodeByOp(g, "Relu")
			n.Op, n.Opaque, n.Attrs = "Frobnicate", []byte{1}, Attrs{"anything": IntAttr(1)}
		}, ""},
		{"output not produced", func(g *Graph) { g.Outputs = append(g.Outputs, &Value{Name: "ghost"}) }, `graph output 1 "ghost" is not produced`},
		{"shape mismatch", func(g *Graph) { nodeByOp(g, "Add").Outputs[0].Shape = StaticShape(1, 4) }, `node "Add" (Add): shape mismatch for output "Add": recorded 1x4, inferred 1x3`},
		{"dtype mismatch", func(g *Graph) { nodeByOp(g, "Relu").Outputs[0].DType = Float64 }, "dtype mismatch"},
		{"rank mismatch symbolic", func(g *Graph) {
			nodeByOp(g, "Relu").Outputs[0].Shape = Shape{{Value: -1, Param: "n"}}
		}, "shape mismatch"},
		{"symbolic recorded shape agrees", func(g *Graph) {
			nodeByOp(g, "Relu").Outputs[0].Shape = Shape{{Value: -1, Param: "n"}, {Value: 3}}
		}, ""},
		{"constant shape mismatch", func(g *Graph) { g.Initializers[0].Shape = StaticShape(4, 4) }, `constant "w": shape mismatch`},
		{"inference error", func(g *Graph) { nodeByOp(g, "MatMul").Inputs[1] = g.Initializers[1] }, "inner dimensions differ"},
		{"symbolic inputs skip inference", func(g *Graph) {
			g.Inputs[0].Shape = Shape{{Value: -1, Param: "batch"}, {Value: 4}}
			nodeByOp(g, "Relu").Outputs[0].DType = Float64
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := validGraph(t)
			c.mutate(g)
			err := g.Validate()
			if c.err == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want error containing %q", c.err)
			}
			if !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %q does not contain %q", err, c.err)
			}
		})
	}
}

func TestValidateCycleError(t *testing.T) {
	g := validGraph(t)
	nodeByOp(g, "MatMul").Inputs[0] = nodeByOp(g, "Relu").Outputs[0]
	var ce *CycleError
	if err := g.Validate(); !errors.As(err, &ce) {
		t.Fatalf("want *CycleError, got %v", err)
	}
	if len(ce.Nodes) != 3 {
		t.Errorf("cycle names %d nodes, want 3", len(ce.Nodes))
	}
}

// Validate must not modify the graph it checks.
func TestValidateDoesNotMutate(t *testing.T) {
	g := validGraph(t)
	out := nodeByOp(g, "Relu").Outputs[0]
	out.Shape = Shape{{Value: -1, Param: "n"}, {Value: 3}}
	before := g.CanonicalHash()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.CanonicalHash() != before || out.Shape.String() != "nx3" {
		t.Errorf("Validate changed the graph (shape now %v)", out.Shape)
	}
}
