package rewrite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// symShape parses "2:batch x 3:seq x 4" style shapes: sizes at the
// binding, each with its expression when symbolic.
func symShape(t *testing.T, s string) graph.Shape {
	t.Helper()
	var out graph.Shape
	for _, p := range strings.Split(s, "x") {
		size, expr, _ := strings.Cut(strings.TrimSpace(p), ":")
		var v int64
		if _, err := fmt.Sscan(size, &v); err != nil {
			t.Fatalf("bad shape %q: %v", s, err)
		}
		d := graph.Dim{Value: v}
		if expr != "" {
			e, err := graph.ParseSym(expr)
			if err != nil {
				t.Fatal(err)
			}
			d = graph.SymDim(v, e)
		}
		out = append(out, d)
	}
	return out
}

// spans parses "0:1, 0:batch" style boxes at binding dims: lo and hi of
// each axis, "*" for the whole axis.
func spans(t *testing.T, shape graph.Shape, s string) region {
	t.Helper()
	bind := map[string]int64{"batch": 2, "seq": 3}
	dim := func(x string) graph.Dim {
		e, err := graph.ParseSym(x)
		v, err2 := e.Eval(bind)
		if err != nil || err2 != nil {
			t.Fatalf("bad bound %q: %v %v", x, err, err2)
		}
		return graph.SymDim(v, e)
	}
	var r region
	for i, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "*" {
			r = append(r, span{fixedDim(0), shape[i]})
			continue
		}
		lo, hi, _ := strings.Cut(p, ":")
		r = append(r, span{dim(lo), dim(hi)})
	}
	return r
}

func TestReshapeNeed(t *testing.T) {
	tests := []struct {
		name    string
		in, out string // shapes at batch 2, seq 3
		box     string // the output box read
		want    string // the input box, "" when the reshape needs all of its input
	}{
		{name: "heads merged back into rows, first token of each sequence",
			in: "3:seq x 12:6*batch x 64", out: "6:batch*seq x 384", box: "0:batch, *", want: "0:1, *, *"},
		{name: "rows split into sequence-first 3-D",
			in: "6:batch*seq x 384", out: "3:seq x 2:batch x 384", box: "0:1, *, *", want: "0:batch, *"},
		{name: "a unit batch squeezed",
			in: "1 x 8 x 384", out: "8 x 384", box: "2:3, *", want: "*, 2:3, *"},
		{name: "a cut that is not whole rows of the merged axis",
			in: "2 x 3 x 4", out: "6 x 4", box: "2:5, *"},
		{name: "an outer index and a cut inner one make a box",
			in: "6 x 4", out: "2 x 3 x 4", box: "1:2, 0:2, *", want: "3:5, *"},
		{name: "a cut outer axis and a cut inner one do not",
			in: "6 x 4", out: "2 x 3 x 4", box: "0:2, 1:2, *"},
		{name: "symbolic rows read whole",
			in: "2:batch x 3:seq x 4", out: "6:batch*seq x 4", box: "*, 0:2", want: "*, *, 0:2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, out := symShape(t, tt.in), symShape(t, tt.out)
			got, ok := reshapeNeed(in, out, spans(t, out, tt.box))
			if tt.want == "" {
				if ok {
					t.Fatalf("got box %v, want none", got)
				}
				return
			}
			if !ok {
				t.Fatal("no box, want one")
			}
			if want := spans(t, in, tt.want); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("box %v, want %v", got, want)
			}
		})
	}
}

func TestShapeSourceReshapeTo(t *testing.T) {
	tests := []struct {
		name, from, to string
		// want is the constant shape input, or "run time" for a computed
		// one; "" for an error.
		want string
	}{
		{name: "fixed", from: "2 x 3 x 4", to: "6 x 4", want: "[6 4]"},
		{name: "batch and sequence merged", from: "2:batch x 3:seq x 4", to: "6:batch*seq x 4", want: "[-1 4]"},
		{name: "heads split off", from: "3:seq x 2:batch x 384", to: "3:seq x 2:batch x 6 x 64", want: "[0 0 6 64]"},
		{name: "rows back to batch and sequence", from: "6:batch*seq x 4", to: "2:batch x 3:seq x 4", want: "run time"},
		{name: "a constant count only at the binding", from: "2:batch x 4", to: "8", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := graph.NewBuilder("src")
			ids := b.Input("ids", graph.Int64, 2, 3)
			ids.Shape = symShape(t, "2:batch x 3:seq")
			g := &graph.Graph{Inputs: []*graph.Value{ids}}
			var added []*graph.Node
			src := newShapeSource(g, g.Names(), func(n *graph.Node) { added = append(added, n) })
			x := &graph.Value{Name: "x", DType: graph.Float32, Shape: symShape(t, tt.from), ShapeKnown: true}
			want := symShape(t, tt.to)
			s, err := src.reshapeTo(x, want, "x_shape")
			if tt.want == "" {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "run time" && (s.IsConst() || len(added) == 0):
				t.Fatalf("shape %v, want one computed at run time", s.Const)
			case tt.want != "run time" && (!s.IsConst() || fmt.Sprint(s.Const.Data) != tt.want):
				t.Fatalf("shape %v, want %s", s.Const, tt.want)
			}
			r := &graph.Node{Name: "r", Op: "Reshape", Inputs: []*graph.Value{x, s}, Outputs: []*graph.Value{{Name: "y"}}}
			if err := inferAs(r, want); err != nil {
				t.Fatal(err)
			}
		})
	}
}
