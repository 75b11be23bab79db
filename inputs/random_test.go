package inputs

import (
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/onnx"
)

// controlFlowModel reads one of testdata/controlflow's models with x bound.
func controlFlowModel(t *testing.T, name string, x ...int) *graph.Graph {
	t.Helper()
	m, err := onnx.ReadFile("../testdata/controlflow/" + name + ".onnx")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Graph.BindShapes(map[string][]int{"x": x}); err != nil {
		t.Fatal(err)
	}
	return m.Graph
}

// drawn returns the int64 values input name takes over seeds 1..n, per
// seed.
func drawn(t *testing.T, g *graph.Graph, name string, n int) [][]int64 {
	t.Helper()
	gen := New(g, Options{})
	var out [][]int64
	for seed := uint64(1); seed <= uint64(n); seed++ {
		in, err := gen.Draw(seed)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, in[name].Int64s())
	}
	return out
}

// TestRandomInputsTokenIDsBelowTableSize checks on every kind of seed
// (seed 3 draws floats 100 times larger) that an integer input a Gather
// reads as indices, also through a Cast, is drawn over the indexed axis
// and stays below its size.
func TestRandomInputsTokenIDsBelowTableSize(t *testing.T) {
	b := graph.NewBuilder("embed")
	table := b.Const("table", graph.NewTensor(graph.Float32, 300, 8))
	b.Output(b.Op("Gather", []*graph.Value{table, b.Input("ids", graph.Int64, 4, 64)}, nil))
	pos := b.Op("Cast", []*graph.Value{b.Input("pos", graph.Int64, 4, 64)}, graph.Attrs{"to": graph.IntAttr(int64(graph.Int32))})
	b.Output(b.Op("Gather", []*graph.Value{b.Const("ptable", graph.NewTensor(graph.Float32, 50, 8)), pos}, nil))
	g := graphtest.Graph(t, b)
	for _, tc := range []struct {
		input string
		size  int64
	}{{"ids", 300}, {"pos", 50}} {
		for seed, vals := range drawn(t, g, tc.input, 3) {
			hi := slices.Max(vals)
			if slices.Min(vals) < 0 || hi >= tc.size {
				t.Fatalf("%s, seed %d: index outside [0, %d)", tc.input, seed+1, tc.size)
			}
			if hi < tc.size/3 {
				t.Errorf("%s, seed %d: indices only reach %d: not drawn over the table", tc.input, seed+1, hi)
			}
		}
	}
}

// TestRandomInputsIntegerRanges checks what integers that are not token
// ids are drawn from: every element over three seeds sees a value the
// graph compares the input with (its offset removed), 0 or 1, and a small
// value; a Loop's trip count exceeds 1; an index of another op and an
// input subtracted from 1 (an attention mask) stay 0 or 1.
func TestRandomInputsIntegerRanges(t *testing.T) {
	b := graph.NewBuilder("ints")
	sr := b.Input("sr", graph.Int64)
	b.Output(b.Op("Equal", []*graph.Value{sr, b.Const("rate", graph.FromInt64([]int64{16000}))}, nil))
	steps := b.Input("steps", graph.Int64, 3)
	less := b.Op("Sub", []*graph.Value{steps, b.Const("one", graph.FromInt64([]int64{1}))}, nil)
	b.Output(b.Op("Greater", []*graph.Value{less, b.Const("five", graph.FromInt64([]int64{5}))}, nil))
	flag := b.Input("flag", graph.Int32, 8)
	b.Output(b.Op("Add", []*graph.Value{flag, flag}, nil))
	maskF := b.Op("Cast", []*graph.Value{b.Input("mask", graph.Int64, 2, 8)}, graph.Attrs{"to": graph.IntAttr(int64(graph.Float32))})
	b.Output(b.Op("Sub", []*graph.Value{b.Const("onef", graph.FromFloat32([]float32{1})), maskF}, nil))
	data := b.Input("data", graph.Float32, 4, 4)
	b.Output(b.Op("GatherElements", []*graph.Value{data, b.Input("idx", graph.Int64, 4, 4)}, nil))
	g := graphtest.Graph(t, b)

	tests := []struct {
		input string
		// want lists values every element must take on some seed; allowed
		// holds every value allowed (nil: any).
		want, allowed []int64
	}{
		{"sr", []int64{16000}, nil},
		{"steps", []int64{5, 6, 7}, nil}, // 6 - 1 > 5 is the border, and its neighbours
		{"idx", nil, []int64{0, 1}},
		{"mask", nil, []int64{0, 1}}, // 1 - mask: an attention mask
	}
	for _, tc := range tests {
		t.Run(tc.input, func(t *testing.T) {
			sets := drawn(t, g, tc.input, 3)
			for i := range sets[0] {
				var seen []int64
				for _, s := range sets {
					seen = append(seen, s[i])
				}
				for _, v := range seen {
					if tc.allowed != nil && !slices.Contains(tc.allowed, v) {
						t.Errorf("element %d took %d, want one of %v", i, v, tc.allowed)
					}
				}
				if tc.want == nil {
					continue
				}
				if !slices.ContainsFunc(seen, func(v int64) bool { return slices.Contains(tc.want, v) }) {
					t.Errorf("element %d took %v over three seeds, none of the compared values %v", i, seen, tc.want)
				}
				if !slices.ContainsFunc(seen, func(v int64) bool { return v == 0 || v == 1 }) {
					t.Errorf("element %d took %v over three seeds, neither 0 nor 1", i, seen)
				}
			}
		})
	}
	flags, err := New(g, Options{}).Draw(2)
	if err != nil {
		t.Fatal(err)
	}
	if d := flags["flag"].Data.([]int32); slices.Max(d) < minSmall {
		t.Errorf("an integer compared with nothing took only %v: no small values", d)
	}
}

// TestRandomInputsControlFlowModels checks the integers of exported
// control-flow models: loop_mlp's trip count is above 1 on every seed, so
// that a body's second iteration runs, and vad_if's sample rate is 16000
// on some of three seeds and something else on others, so that its If is
// taken both ways.
func TestRandomInputsControlFlowModels(t *testing.T) {
	for seed, v := range drawn(t, controlFlowModel(t, "loop_mlp", 4, 32), "steps", 6) {
		if v[0] < minTrip || v[0] > maxTrip {
			t.Errorf("loop_mlp, seed %d: trip count %d, want %d..%d", seed+1, v[0], minTrip, maxTrip)
		}
	}
	var rates []int64
	for _, v := range drawn(t, controlFlowModel(t, "vad_if", 1, 512), "sr", 3) {
		rates = append(rates, v[0])
	}
	if !slices.Contains(rates, 16000) || !slices.ContainsFunc(rates, func(r int64) bool { return r != 16000 }) {
		t.Errorf("vad_if: sample rates %v over three seeds, want 16000 and another", rates)
	}
}

// TestRandomInputsFloat64 checks Options.Float64: float32 inputs come as
// float64 tensors with the same values.
func TestRandomInputsFloat64(t *testing.T) {
	b := graph.NewBuilder("f")
	b.Output(b.Op("Relu", []*graph.Value{b.Input("x", graph.Float32, 5)}, nil))
	g := graphtest.Graph(t, b)
	a, err := Random(g, 4)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(g, Options{Float64: true}).Draw(4)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range c["x"].Float64s() {
		if float32(v) != a["x"].Float32s()[i] {
			t.Fatalf("element %d: %g as float64, %g as float32", i, v, a["x"].Float32s()[i])
		}
	}
}

// TestInputIfs checks which Ifs depend on the inputs: the sample-rate If
// of vad_if and the If inside loop_if's Loop (on the carried state).
func TestInputIfs(t *testing.T) {
	tests := []struct {
		model string
		x     []int
		want  int
	}{
		{"vad_if", []int{1, 512}, 1},
		{"loop_if", []int{2, 16}, 1},
		{"loop_mlp", []int{4, 32}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			ifs := InputIfs(controlFlowModel(t, tc.model, tc.x...))
			if len(ifs) != tc.want {
				t.Fatalf("%d input-dependent Ifs, want %d", len(ifs), tc.want)
			}
			for _, n := range ifs {
				if n.Op != "If" {
					t.Errorf("%v is not an If", n)
				}
			}
		})
	}
}
