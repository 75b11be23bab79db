package rules

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
)

// runGraph executes g in float64 on the given inputs.
func runGraph(t *testing.T, g *graph.Graph, in map[string]*graph.Tensor) []*graph.Tensor {
	t.Helper()
	ex, err := executor.NewExecutor(g, executor.ExecOptions{Precision: graph.Float64, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	out, err := ex.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	res := make([]*graph.Tensor, len(g.Outputs))
	for i, o := range g.Outputs {
		res[i] = out[o.Name]
	}
	return res
}

// TestApplyConformance applies every shipped rule to its own instance
// graph with FindMatches and Apply (the path a rewriter takes) and checks
// that the result is valid, keeps the output names and computes the same.
func TestApplyConformance(t *testing.T) {
	set := loadShipped(t)
	for _, r := range set.Rules {
		insts, err := r.Sample(SampleOptions{Instances: 1})
		if err != nil {
			t.Errorf("%s: %v", r.Name, err)
			continue
		}
		src, _, err := r.Instantiate(insts[0])
		if err != nil {
			t.Errorf("%s: %v", r.Name, err)
			continue
		}
		var m *Match
		for _, fm := range NewIndex(src).FindMatches(r) {
			if len(fm.Nodes) == len(src.Nodes) {
				m = fm
				break
			}
		}
		if m == nil {
			t.Errorf("%s: no match in its own instance", r.Name)
			continue
		}
		g, err := Apply(src, m)
		if err != nil {
			t.Errorf("%s: Apply: %v", r.Name, err)
			continue
		}
		if err := g.Validate(); err != nil {
			t.Errorf("%s: rewritten graph is invalid: %v", r.Name, err)
			continue
		}
		for i := range src.Outputs {
			if g.Outputs[i].Name != src.Outputs[i].Name {
				t.Errorf("%s: output %d renamed from %q to %q", r.Name, i, src.Outputs[i].Name, g.Outputs[i].Name)
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		in := map[string]*graph.Tensor{}
		for _, v := range src.Inputs {
			tt := graph.NewTensor(graph.Float64, v.Shape.Ints()...)
			FillRandom(tt, rng, true)
			in[v.Name] = tt
		}
		a, b := runGraph(t, src, in), runGraph(t, g, in)
		for i := range a {
			rel, err := graph.MaxRelDiff(a[i], b[i])
			if err != nil || rel > 1e-9 {
				t.Errorf("%s: output %d differs after Apply (rel %g, %v)", r.Name, i, rel, err)
			}
		}
	}
}

// matcherGraph builds a small graph for the matcher cases.
type matcherGraph func(b *graph.Builder)

// mulAddGraph builds Mul(x, Add(y, z)) with x of shape xs and y and z
// of shape 3x4.
func mulAddGraph(xs ...int) func(b *graph.Builder) {
	return func(b *graph.Builder) {
		x, y, z := b.Input("x", graph.Float32, xs...), b.Input("y", graph.Float32, 3, 4), b.Input("z", graph.Float32, 3, 4)
		b.Output(b.Op("Mul", []*graph.Value{x, b.Op("Add", []*graph.Value{y, z}, nil)}, nil))
	}
}

func TestFindMatches(t *testing.T) {
	f32 := graph.Float32
	tests := []struct {
		name    string
		rule    string
		build   matcherGraph
		matches int
	}{
		{
			name: "commutative add matched both ways",
			rule: "r Add(MatMul(x, a), MatMul(y, a)) => MatMul(Add(x, y), a)\n where x[m, k]  y[m, k]  a[k, n]",
			build: func(b *graph.Builder) {
				p, q, w := b.Input("p", f32, 2, 3), b.Input("q", f32, 2, 3), b.Input("w", f32, 3, 4)
				b.Output(b.Op("Add", []*graph.Value{b.Op("MatMul", []*graph.Value{q, w}, nil), b.Op("MatMul", []*graph.Value{p, w}, nil)}, nil))
			},
			matches: 2,
		},
		{
			name:    "template rejects broadcasting",
			rule:    "r Mul(x, Add(y, z)) => Add(Mul(x, y), Mul(x, z))\n where x[*s]  y[*s]  z[*s]",
			build:   mulAddGraph(1, 4),
			matches: 0,
		},
		{
			name:    "template accepts equal shapes",
			rule:    "r Mul(x, Add(y, z)) => Add(Mul(x, y), Mul(x, z))\n where x[*s]  y[*s]  z[*s]",
			build:   mulAddGraph(3, 4),
			matches: 2,
		},
		{
			name: "internal value used outside",
			rule: "r MatMul(MatMul(x, a), b) => MatMul(x, MatMul(a, b))\n where x[m, k]  a[k, n]  b[n, p]",
			build: func(b *graph.Builder) {
				x, a, c := b.Input("x", f32, 2, 3), b.Input("a", f32, 3, 4), b.Input("c", f32, 4, 5)
				inner := b.Op("MatMul", []*graph.Value{x, a}, nil)
				b.Output(b.Op("MatMul", []*graph.Value{inner, c}, nil), inner)
			},
			matches: 0,
		},
		{
			name: "unmentioned attribute must be default",
			rule: "r Relu(Conv(x, w)) => Conv(x, w)\n where x[n, c, h, h]  w[o, c, k, k]",
			build: func(b *graph.Builder) {
				x, w := b.Input("x", f32, 1, 2, 5, 5), b.Input("w", f32, 2, 2, 3, 3)
				b.Output(b.Op("Relu", []*graph.Value{b.Op("Conv", []*graph.Value{x, w}, graph.Attrs{"strides": graph.IntsAttr(2, 2)})}, nil))
			},
			matches: 0,
		},
		{
			name: "explicit default equals absent",
			rule: "r Relu(Conv(x, w)) => Conv(x, w)\n where x[n, c, h, h]  w[o, c, k, k]",
			build: func(b *graph.Builder) {
				x, w := b.Input("x", f32, 1, 2, 5, 5), b.Input("w", f32, 2, 2, 3, 3)
				b.Output(b.Op("Relu", []*graph.Value{b.Op("Conv", []*graph.Value{x, w}, graph.Attrs{"strides": graph.IntsAttr(1, 1), "group": graph.IntAttr(1)})}, nil))
			},
			matches: 1,
		},
		{
			name: "constant input read as a value",
			rule: "r (s:Split[axis=0, split=sz](Relu(x)), s.1) && sz == [1, 2] => (Relu(t:Split[axis=0, split=sz](x)), Relu(t.1))\n where x[n, *s]",
			build: func(b *graph.Builder) {
				x := b.Input("x", f32, 3, 2)
				sz := b.Const("sz", graph.FromInt64([]int64{1, 2}, 2))
				outs := b.OpN("Split", []*graph.Value{b.Op("Relu", []*graph.Value{x}, nil), sz}, nil, 2)
				b.Output(outs...)
			},
			matches: 1,
		},
		{
			name: "disconnected pattern enumerates pairs",
			rule: "r (Relu(x), Relu(z)) => (s:Split[axis=0, split=[dim(x, 0), dim(z, 0)]](Relu(Concat[axis=0](x, z))), s.1)\n where x[p, *s]  z[q, *s]",
			build: func(b *graph.Builder) {
				x, y := b.Input("x", f32, 2, 3), b.Input("y", f32, 4, 3)
				b.Output(b.Op("Relu", []*graph.Value{x}, nil), b.Op("Relu", []*graph.Value{y}, nil))
			},
			matches: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Parse("case.rules", []byte(tc.rule+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			b := graph.NewBuilder("case")
			tc.build(b)
			g := graphtest.Graph(t, b)
			ms := NewIndex(g).FindMatches(set.Rules[0])
			if len(ms) != tc.matches {
				t.Fatalf("found %d matches, want %d", len(ms), tc.matches)
			}
			for _, m := range ms {
				out, err := Apply(g, m)
				if err != nil {
					t.Fatalf("Apply: %v", err)
				}
				if err := out.Validate(); err != nil {
					t.Fatalf("rewritten graph invalid: %v", err)
				}
			}
		})
	}
}

// TestApplyRejectsCycle: merging two Relus where one reads the other would
// make the merged Relu read its own output.
func TestApplyRejectsCycle(t *testing.T) {
	set, err := Parse("cycle.rules", []byte("r (Relu(x), Relu(z)) => (s:Split[axis=0, split=[dim(x, 0), dim(z, 0)]](Relu(Concat[axis=0](x, z))), s.1)\n where x[p, *s]  z[q, *s]\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := graph.NewBuilder("cycle")
	x := b.Input("x", graph.Float32, 2, 3)
	inner := b.Op("Relu", []*graph.Value{x}, nil)
	b.Output(b.Op("Relu", []*graph.Value{inner}, nil), inner)
	g := graphtest.Graph(t, b)
	cycles := 0
	for _, m := range NewIndex(g).FindMatches(set.Rules[0]) {
		if _, err := Apply(g, m); err != nil {
			if !strings.Contains(err.Error(), "cycle") {
				t.Errorf("unexpected error: %v", err)
			}
			cycles++
		}
	}
	if cycles == 0 {
		t.Errorf("no match was rejected for a cycle")
	}
}

// TestPlans checks every shipped rule's matching plan: it visits each
// source node once, starts with a scan, and reaches later nodes from bound
// values unless the pattern is disconnected.
func TestPlans(t *testing.T) {
	set := loadShipped(t)
	for _, r := range set.Rules {
		seen := map[*PNode]bool{}
		scans := 0
		for i, st := range r.Plan {
			if seen[st.Node] {
				t.Errorf("%s: plan visits %s twice", r.Name, st.Node.Op)
			}
			seen[st.Node] = true
			if st.Kind == StepScan {
				scans++
			} else if i == 0 {
				t.Errorf("%s: plan does not start with a scan", r.Name)
			}
		}
		if len(seen) != len(r.Source.Nodes) {
			t.Errorf("%s: plan visits %d of %d nodes", r.Name, len(seen), len(r.Source.Nodes))
		}
		if r.Disconnected != (scans > 1) {
			t.Errorf("%s: Disconnected=%v with %d scans", r.Name, r.Disconnected, scans)
		}
	}
	if !set.Lookup("relu-merge-rows").Disconnected || set.Lookup("matmul-merge-cols").Disconnected {
		t.Errorf("Disconnected flags wrong")
	}
}

// TestPlanFrom checks the plans from every source node of every shipped
// rule: each scans for its root first, visits every node once, reaches
// every node of a connected source from the root without another scan,
// and starts each later step from a reference bound by an earlier one;
// the plan from the rule's root is its own plan.
func TestPlanFrom(t *testing.T) {
	set := loadShipped(t)
	for _, r := range set.Rules {
		if got := r.PlanFrom(r.Root()); !slices.EqualFunc(got, r.Plan, func(a, b Step) bool { return a == b }) {
			t.Errorf("%s: the plan from its root differs from its plan", r.Name)
		}
		for _, root := range r.Source.Nodes {
			plan := r.PlanFrom(root)
			if len(plan) != len(r.Source.Nodes) || plan[0].Kind != StepScan || plan[0].Node != root {
				t.Fatalf("%s from %s: %d steps, first %v of %s", r.Name, root.Op, len(plan), plan[0].Kind, plan[0].Node.Op)
			}
			matched := map[*PNode]bool{}
			scans := 0
			for _, st := range plan {
				if matched[st.Node] {
					t.Errorf("%s from %s: visits %s twice", r.Name, root.Op, st.Node.Op)
				}
				switch st.Kind {
				case StepScan:
					scans++
				case StepProducer:
					if !boundBy(matched, st.From) {
						t.Errorf("%s from %s: takes the producer of an unbound output", r.Name, root.Op)
					}
				case StepConsumer:
					if !boundBy(matched, st.From) {
						t.Errorf("%s from %s: enumerates the readers of an unbound value", r.Name, root.Op)
					}
				}
				matched[st.Node] = true
			}
			if !r.Disconnected && scans != 1 {
				t.Errorf("%s from %s: %d scans in a connected source", r.Name, root.Op, scans)
			}
		}
	}
}

// boundBy reports whether reference a is bound once the nodes of matched
// are: a variable or node output one of them reads, or an output of one.
func boundBy(matched map[*PNode]bool, a Ref) bool {
	if a.Kind == RefNode && matched[a.Node] {
		return true
	}
	for n := range matched {
		for _, b := range n.Args {
			if b.Kind == a.Kind && (a.Kind == RefVar && b.Var == a.Var || a.Kind == RefNode && b.Node == a.Node && b.Output == a.Output) {
				return true
			}
		}
	}
	return false
}

// TestIntegerTensorsNotMatched: shape arithmetic on int64 values must not
// be rewritten by rules verified in floating point.
func TestIntegerTensorsNotMatched(t *testing.T) {
	set := loadShipped(t)
	b := graph.NewBuilder("ints")
	x := b.Input("x", graph.Int64, 4)
	two := b.Const("two", graph.FromInt64([]int64{2}))
	b.Output(b.Op("Div", []*graph.Value{x, two}, nil))
	g := graphtest.Graph(t, b)
	ix := NewIndex(g)
	for _, r := range set.Rules {
		if ms := ix.FindMatches(r); len(ms) > 0 {
			t.Errorf("rule %s matched integer Div", r.Name)
		}
	}
}
