package graph

import "testing"

// hashVariant parametrises a small graph for CanonicalHash tests:
// y = op(LeakyRelu(Sub(x, c), alpha), Exp(x)).
type hashVariant struct {
	prefix  string
	reverse bool
	op      string
	alpha   float32
	width   int
	swap    bool
	cval    float32
}

func baseVariant() hashVariant {
	return hashVariant{op: "Add", alpha: 0.1, width: 3, cval: 1}
}

func (h hashVariant) graph(t *testing.T) *Graph {
	t.Helper()
	b := NewBuilder("g")
	x := b.Input("x", Float32, 2, h.width)
	c := b.Const("c", FromFloat32([]float32{h.cval}, 1))
	sub := []*Value{x, c}
	if h.swap {
		sub = []*Value{c, x}
	}
	s := b.Op("Sub", sub, nil)
	a := b.Op("LeakyRelu", []*Value{s}, Attrs{"alpha": FloatAttr(h.alpha)})
	e := b.Op("Exp", []*Value{x}, nil)
	b.Output(b.Op(h.op, []*Value{a, e}, nil))
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	if h.prefix != "" {
		seen := map[*Value]bool{}
		rename := func(v *Value) {
			if v != nil && !seen[v] {
				seen[v] = true
				v.Name = h.prefix + v.Name
			}
		}
		for _, v := range g.Inputs {
			rename(v)
		}
		for _, v := range g.Initializers {
			rename(v)
		}
		for _, n := range g.Nodes {
			n.Name = h.prefix + n.Name
			for _, v := range n.Outputs {
				rename(v)
			}
		}
		g.Name = h.prefix + g.Name
	}
	if h.reverse {
		for i, j := 0, len(g.Nodes)-1; i < j; i, j = i+1, j-1 {
			g.Nodes[i], g.Nodes[j] = g.Nodes[j], g.Nodes[i]
		}
	}
	return g
}

func TestCanonicalHash(t *testing.T) {
	base := baseVariant().graph(t).CanonicalHash()
	cases := []struct {
		name  string
		edit  func(*hashVariant)
		equal bool
	}{
		{"identical", func(h *hashVariant) {}, true},
		{"renamed", func(h *hashVariant) { h.prefix = "other_" }, true},
		{"node order", func(h *hashVariant) { h.reverse = true }, true},
		{"renamed and reordered", func(h *hashVariant) { h.prefix, h.reverse = "z", true }, true},
		{"op", func(h *hashVariant) { h.op = "Mul" }, false},
		{"attribute", func(h *hashVariant) { h.alpha = 0.2 }, false},
		{"shape", func(h *hashVariant) { h.width = 4 }, false},
		{"edge", func(h *hashVariant) { h.swap = true }, false},
		{"constant", func(h *hashVariant) { h.cval = 2 }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := baseVariant()
			c.edit(&h)
			got := h.graph(t).CanonicalHash()
			if (got == base) != c.equal {
				t.Errorf("hash equal = %v, want %v", got == base, c.equal)
			}
		})
	}
}

func TestCloneIndependent(t *testing.T) {
	g := baseVariant().graph(t)
	before := g.CanonicalHash()
	c := g.Clone()
	if c.CanonicalHash() != before {
		t.Fatal("clone hashes differently")
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("clone invalid: %v", err)
	}
	for i, n := range c.Nodes {
		if n == g.Nodes[i] || n.Outputs[0] == g.Nodes[i].Outputs[0] {
			t.Fatalf("clone shares node %q or its output", n.Name)
		}
	}
	// Mutate the clone in every way; the original must not change.
	leaky := nodeByOp(c, "LeakyRelu")
	leaky.Attrs["alpha"] = FloatAttr(9)
	c.Inputs[0].Shape[1] = Dim{Value: 7}
	c.Inputs[0].Name = "renamed"
	nodeByOp(c, "Sub").Inputs[0] = c.Inputs[0]
	c.Nodes = c.Nodes[:1]
	if g.CanonicalHash() != before {
		t.Error("mutating the clone changed the original's hash")
	}
	if g.Inputs[0].Name != "x" || g.Inputs[0].Shape.String() != "2x3" {
		t.Errorf("original input changed: %s %v", g.Inputs[0].Name, g.Inputs[0].Shape)
	}
	if a := nodeByOp(g, "LeakyRelu").AttrFloat("alpha"); a != 0.1 {
		t.Errorf("original alpha changed to %v", a)
	}
	if err := g.Validate(); err != nil {
		t.Errorf("original invalid after mutating clone: %v", err)
	}
}
