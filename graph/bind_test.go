package graph

import (
	"strings"
	"testing"
)

func sym(name string) Dim { return Dim{Value: -1, Param: name} }
func dim(v int64) Dim     { return Dim{Value: v} }

// symbolicGraph has inputs x [batch,3,height,width] and m [batch,seq]
// feeding a GlobalAveragePool and an Identity.
func symbolicGraph() *Graph {
	x := &Value{Name: "x", DType: Float32, ShapeKnown: true, Shape: Shape{sym("batch"), dim(3), sym("height"), sym("width")}}
	m := &Value{Name: "m", DType: Float32, ShapeKnown: true, Shape: Shape{sym("batch"), sym("seq")}}
	p := &Value{Name: "p"}
	id := &Value{Name: "id"}
	return &Graph{
		Name:    "sym",
		Inputs:  []*Value{x, m},
		Outputs: []*Value{p, id},
		Nodes: []*Node{
			{Name: "pool", Op: "GlobalAveragePool", Inputs: []*Value{x}, Outputs: []*Value{p}},
			{Name: "id", Op: "Identity", Inputs: []*Value{m}, Outputs: []*Value{id}},
		},
	}
}

func TestBindShapes(t *testing.T) {
	cases := []struct {
		name string
		bind map[string][]int
		want []string // shapes of x, m, p, id
		err  string
	}{
		{"explicit binds shared symbol", map[string][]int{"x": {2, 3, 8, 9}, "m": {2, 5}}, []string{"2x3x8x9", "2x5", "2x3x1x1", "2x5"}, ""},
		{"symbol shared with other input", map[string][]int{"x": {4, 3, 8, 8}, "m": {4, 7}}, []string{"4x3x8x8", "4x7", "4x3x1x1", "4x7"}, ""},
		{"leading default", map[string][]int{"x": {1, 3, 8, 8}, "m": {1, 7}}, []string{"1x3x8x8", "1x7", "1x3x1x1", "1x7"}, ""},
		{"batch from x binds m", map[string][]int{"x": {6, 3, 2, 2}}, nil, `input "m" dimension 1 ("seq") is not bound; pass --shape m=6xSEQ`},
		{"unbound spatial", map[string][]int{"m": {1, 7}}, nil, `input "x" dimension 2 ("height") is not bound; pass --shape x=1x3xHEIGHTxWIDTH`},
		{"conflicting symbol", map[string][]int{"x": {2, 3, 8, 8}, "m": {3, 7}}, nil, `"batch" is already bound to 2`},
		{"known dim differs", map[string][]int{"x": {1, 4, 8, 8}, "m": {1, 7}}, nil, `input "x" dimension 1 is 3, but the binding gives 4`},
		{"rank differs", map[string][]int{"x": {1, 3, 8}}, nil, `input "x" has rank 4`},
		{"not an input", map[string][]int{"y": {1}}, nil, `cannot bind "y": not a graph input (inputs: x, m)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := symbolicGraph()
			err := g.BindShapes(c.bind)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want it to contain %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			vals := []*Value{g.Inputs[0], g.Inputs[1], g.Outputs[0], g.Outputs[1]}
			for i, v := range vals {
				if got := v.Shape.String(); got != c.want[i] {
					t.Errorf("%s: shape %s, want %s", v.Name, got, c.want[i])
				}
			}
		})
	}
}

// A leading symbolic dimension defaults to 1 and binds its symbol elsewhere.
func TestBindShapesLeadingDefault(t *testing.T) {
	g := symbolicGraph()
	g.Inputs[1].Shape = Shape{sym("seq"), sym("batch")}
	if err := g.BindShapes(map[string][]int{"x": {2, 3, 4, 4}}); err != nil {
		t.Fatal(err)
	}
	if got := g.Inputs[1].Shape.String(); got != "1x2" {
		t.Errorf("m shape %s, want 1x2 (seq leading defaults to 1, batch bound through x)", got)
	}
	g = symbolicGraph()
	g.Inputs[1].Shape = Shape{dim(5), sym("batch")}
	g.Inputs[0].Shape[2], g.Inputs[0].Shape[3] = dim(8), dim(8)
	if err := g.BindShapes(nil); err != nil {
		t.Fatal(err)
	}
	if got := g.Inputs[1].Shape.String(); got != "5x1" {
		t.Errorf("m shape %s, want 5x1 (batch defaulted to 1 through x)", got)
	}
	if got := g.Inputs[0].Shape.String(); got != "1x3x8x8" {
		t.Errorf("x shape %s, want 1x3x8x8", got)
	}
}

func TestInferShapesNeedsStaticInputs(t *testing.T) {
	g := symbolicGraph()
	err := g.InferShapes()
	if err == nil || !strings.Contains(err.Error(), `graph input "x" dimension 0 (batch) is not static`) {
		t.Fatalf("got %v", err)
	}
}

// Imported value_info that disagrees with inference is reported.
func TestInferShapesRecordedMismatch(t *testing.T) {
	g := symbolicGraph()
	g.Outputs[0].Shape, g.Outputs[0].ShapeKnown = StaticShape(1, 3, 2, 2), true
	err := g.BindShapes(map[string][]int{"x": {1, 3, 8, 8}, "m": {1, 2}})
	if err == nil || !strings.Contains(err.Error(), `node "pool" (GlobalAveragePool): shape mismatch for output "p"`) {
		t.Fatalf("got %v", err)
	}
}

// Opaque nodes pass through when their output shapes were recorded, and
// fail with a clear message otherwise.
func TestInferShapesOpaque(t *testing.T) {
	x := &Value{Name: "x"}
	x.SetStatic(Float32, []int{2})
	o := &Value{Name: "o"}
	r := &Value{Name: "r"}
	g := &Graph{Inputs: []*Value{x}, Outputs: []*Value{r}, Nodes: []*Node{
		{Name: "custom", Op: "Custom", Domain: "com.example", Opaque: []byte{0}, Inputs: []*Value{x}, Outputs: []*Value{o}},
		{Name: "relu", Op: "Relu", Inputs: []*Value{o}, Outputs: []*Value{r}},
	}}
	err := g.InferShapes()
	if err == nil || !strings.Contains(err.Error(), "value_info missing") {
		t.Fatalf("got %v", err)
	}
	o.SetStatic(Float32, []int{2, 5})
	if err := g.InferShapes(); err != nil {
		t.Fatal(err)
	}
	if r.Shape.String() != "2x5" {
		t.Errorf("relu after opaque: %v", r.Shape)
	}
}
