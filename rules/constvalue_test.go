package rules

import (
	"math"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// TestConstValuePredicates checks isConstValue and isConstNear on
// constants of both float types: exact values after rounding to the
// constant's type, values within and past the 1e-5 margin, non-constant
// and integer values.
func TestConstValuePredicates(t *testing.T) {
	f32 := func(xs ...float32) *graph.Value {
		v := &graph.Value{Name: "c", Const: graph.FromFloat32(xs, len(xs))}
		v.SetStatic(graph.Float32, []int{len(xs)})
		return v
	}
	f64 := func(xs ...float64) *graph.Value {
		v := &graph.Value{Name: "c", Const: graph.FromFloat64(xs, len(xs))}
		v.SetStatic(graph.Float64, []int{len(xs)})
		return v
	}
	input := &graph.Value{Name: "x"}
	input.SetStatic(graph.Float32, []int{1})
	ints := &graph.Value{Name: "i", Const: graph.FromInt64([]int64{1}, 1)}
	ints.SetStatic(graph.Int64, []int{1})
	sqrt2 := math.Sqrt2
	tests := []struct {
		name  string
		pred  string
		v     *graph.Value
		value float64
		want  bool
	}{
		{"one", "isConstValue", f32(1), 1, true},
		{"every element", "isConstValue", f32(0.5, 0.5, 0.5), 0.5, true},
		{"one element differs", "isConstValue", f32(0.5, 0.5, 0.25), 0.5, false},
		{"float32 rounding of the value", "isConstValue", f32(float32(sqrt2)), sqrt2, true},
		{"float64 needs the exact value", "isConstValue", f64(float64(float32(sqrt2))), sqrt2, false},
		{"float64 exact", "isConstValue", f64(sqrt2), sqrt2, true},
		{"not a constant", "isConstValue", input, 1, false},
		{"integer constant", "isConstValue", ints, 1, false},
		{"near: exported sqrt(2)", "isConstNear", f32(1.4142135), sqrt2, true},
		{"near: within the margin", "isConstNear", f64(sqrt2 * (1 + 0.9e-5)), sqrt2, true},
		{"near: past the margin", "isConstNear", f64(sqrt2 * (1 + 2e-5)), sqrt2, false},
		{"near: 1/sqrt(32) from its float32 divisor", "isConstNear", f32(1 / float32(math.Sqrt(32))), 1 / math.Sqrt(32), true},
		{"near: epsilon 1e-12 is not 1e-5", "isConstNear", f32(1e-12), 1e-5, false},
		{"near: not a constant", "isConstNear", input, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LookupFunc(tt.pred).Eval([]Value{tensorVal(tt.v), floatVal(tt.value)})
			if err != nil {
				t.Fatal(err)
			}
			if got.Bool != tt.want {
				t.Errorf("%s(%v, %g) = %v, want %v", tt.pred, tt.v.Const, tt.value, got.Bool, tt.want)
			}
		})
	}
}

// TestConstValueInstances checks that a pinned variable becomes a
// constant of the pinned value in every instance the verifier draws
// (isConstValue exactly, isConstNear within the margin), its value
// computed from the instance's dimensions.
func TestConstValueInstances(t *testing.T) {
	set, err := Parse("pins.rules", []byte(`default x[m, n]  h[]  s[]  n in {4, 16, 64}
half-to-div   Mul(x, h) && isConstValue(h, 0.5)                   => Div(x, Add(h, h))
scale-by-dim  Mul(x, s) && isConstNear(s, 1.0 / sqrt(dim(x, -1)))  => Div(x, Div(Div(s, s), s))
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range set.Rules {
		insts, err := r.Sample(SampleOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, inst := range insts {
			src, _, err := r.Instantiate(inst)
			if err != nil {
				t.Fatalf("%s %s: %v", r.Name, inst, err)
			}
			var pinned *graph.Value
			for _, v := range src.Initializers {
				if v.Name == "h" || v.Name == "s" {
					pinned = v
				}
			}
			if pinned == nil {
				t.Fatalf("%s %s: the pinned variable is not a constant", r.Name, inst)
			}
			got := float64(pinned.Const.Float32s()[0])
			want := 0.5
			if r.Name == "scale-by-dim" {
				want = 1 / math.Sqrt(float64(inst.Dims["n"][0]))
			}
			if r.Name == "half-to-div" && got != want || !near(got, want) {
				t.Errorf("%s %s: constant %g, want %g", r.Name, inst, got, want)
			}
		}
	}
}
