package rules

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// TestRangeNeedsProof checks that a value-range assumption the matcher
// cannot prove is rejected at load with its position, and that the ones
// it can prove load.
func TestRangeNeedsProof(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"pos-input", "r Relu(x) => x\n    where x[n, d] pos\n", "a.rules:2:11: x is declared pos"},
		{"pos-const", "r Relu(x) && isConst(x) => x\n    where x[n, d] pos\n", ""},
		{"nonneg-input", "r Relu(x) => x\n    where x[n, d] nonneg\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("a.rules", []byte(tc.src))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestRangeProvedAtMatch checks that the matcher fires a nonneg rule only
// where the producer proves the range, and a pos rule only on constants
// whose data is positive.
func TestRangeProvedAtMatch(t *testing.T) {
	set, err := Parse("a.rules", []byte("nn Relu(x) => x\n    where x[n] nonneg\npc Relu(x) && isConst(x) => x\n    where x[n] pos\n"))
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string) *graph.Value {
		v := &graph.Value{Name: name}
		v.SetStatic(graph.Float32, []int{3})
		return v
	}
	node := func(op string, in, out *graph.Value) *graph.Node {
		return &graph.Node{Name: out.Name, Op: op, Inputs: []*graph.Value{in}, Outputs: []*graph.Value{out}}
	}
	in, e, r1, r2 := mk("in"), mk("e"), mk("r1"), mk("r2")
	pc, nc, r3, r4 := mk("pc"), mk("nc"), mk("r3"), mk("r4")
	pc.Const = graph.NewTensor(graph.Float32, 3)
	FillDist(pc.Const, rand.New(rand.NewPCG(1, 2)), DistSpecial, RangePos)
	nc.Const = graph.NewTensor(graph.Float32, 3)
	copy(nc.Const.Float32s(), []float32{1, -2, 3})
	g := &graph.Graph{Inputs: []*graph.Value{in}, Initializers: []*graph.Value{pc, nc},
		Nodes:   []*graph.Node{node("Exp", in, e), node("Relu", e, r1), node("Relu", in, r2), node("Relu", pc, r3), node("Relu", nc, r4)},
		Outputs: []*graph.Value{r1, r2, r3, r4}}
	ix := NewIndex(g)
	matched := func(rule string) []string {
		var out []string
		for _, m := range ix.FindMatches(set.Lookup(rule)) {
			out = append(out, m.Nodes[0].Outputs[0].Name)
		}
		return out
	}
	// r1: Exp proves it; r3: positive constant data; r4's constant has a
	// negative element; r2 reads a graph input.
	if got := strings.Join(matched("nn"), " "); got != "r1 r3" {
		t.Errorf("nonneg rule matched at %q, want r1 r3", got)
	}
	if got := strings.Join(matched("pc"), " "); got != "r3" {
		t.Errorf("pos rule matched at %q, want only r3", got)
	}
}

// TestFillDist checks the distributions' ranges: large values are beyond
// 1, special values include exact zeros and ones, and range-limited fills
// respect their range.
func TestFillDist(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	t64 := graph.NewTensor(graph.Float64, 2000)
	FillDist(t64, rng, DistLarge, RangeAny)
	big, neg := 0, 0
	for _, x := range t64.Float64s() {
		if x > 10 || x < -10 {
			big++
		}
		if x < 0 {
			neg++
		}
	}
	if big < 1000 || neg < 500 {
		t.Errorf("large: %d of 2000 beyond 10, %d negative", big, neg)
	}
	FillDist(t64, rng, DistSpecial, RangeAny)
	zeros, ones := 0, 0
	for _, x := range t64.Float64s() {
		switch x {
		case 0:
			zeros++
		case 1:
			ones++
		}
	}
	if zeros == 0 || ones == 0 {
		t.Errorf("special: %d zeros, %d ones", zeros, ones)
	}
	for _, r := range []Range{RangeNonNeg, RangePos} {
		for _, d := range Dists {
			FillDist(t64, rng, d, r)
			if !r.holdsOn(t64) {
				t.Errorf("%v data filled for %v is out of range", d, r)
			}
		}
	}
}
