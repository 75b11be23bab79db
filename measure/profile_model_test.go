package measure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
)

// fakeProfiler "profiles" a model as an engine would that fuses every
// MatMul with a following Add into one node named after the Add (with a
// suffix) and runs the rest node by node: each node costs its work at a
// fixed rate (1 ns per multiply-add pair for MatMul, 1 ns per element
// otherwise), plus 5 µs per run.
type fakeProfiler struct {
	calls int
	// unnamed gives fused nodes an engine-made name instead.
	unnamed bool
}

func (f *fakeProfiler) Profile(m *graph.Model, warmup, runs int) (*Profile, error) {
	f.calls++
	g := m.Graph
	cons := g.Consumers()
	fusedInto := map[*graph.Node]bool{}
	p := &Profile{Total: 5 * time.Microsecond}
	for _, cn := range costedNodes(g) {
		n := cn.node
		if !strings.HasPrefix(n.Name, "xrl") {
			return nil, fmt.Errorf("node %q was not renamed", n.Name)
		}
		if fusedInto[n] {
			continue
		}
		_, w := opWork(n)
		d := time.Duration(w)
		name := n.Name
		if n.Op == "MatMul" {
			d /= 2
			if c := cons[n.Outputs[0]]; len(c) == 1 && c[0].Op == "Add" {
				_, wa := opWork(c[0])
				d += time.Duration(wa) / 4 // the fused bias costs less
				fusedInto[c[0]] = true
				name = c[0].Name + "/MatMulAddFusion"
				if f.unnamed {
					name = "Gemm_fused_" + strconv.Itoa(f.calls)
				}
			}
		}
		p.Nodes = append(p.Nodes, NodeTime{Name: name, Op: n.Op, Time: d})
		p.Total += d
	}
	return p, nil
}

func constMatrix(r *rand.Rand, rows, cols int) *graph.Tensor {
	t := graph.NewTensor(graph.Float32, rows, cols)
	for i := range t.Float32s() {
		t.Float32s()[i] = float32(r.NormFloat64())
	}
	return t
}

// mlp builds layers of MatMul + Add (+ Relu when relu) on a 64x128 input.
func mlp(t *testing.T, layers int, relu bool, width int) *graph.Model {
	t.Helper()
	r := rand.New(rand.NewPCG(1, uint64(width)))
	b := graph.NewBuilder("mlp")
	x := b.Input("x", graph.Float32, 64, 128)
	for i := 0; i < layers; i++ {
		w := b.Const(fmt.Sprintf("w%d", i), constMatrix(r, 128, 128))
		bias := b.Const(fmt.Sprintf("b%d", i), constMatrix(r, 1, 128))
		x = b.Op("MatMul", []*graph.Value{x, w}, nil)
		x = b.Op("Add", []*graph.Value{x, bias}, nil)
		if relu {
			x = b.Op("Relu", []*graph.Value{x}, nil)
		}
	}
	b.Output(x)
	return graphtest.Model(t, b)
}

func TestProfileModel(t *testing.T) {
	for _, unnamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("unnamed=%v", unnamed), func(t *testing.T) {
			fp := &fakeProfiler{unnamed: unnamed}
			pm := NewProfileModel(fp, ProfileOptions{Reprofile: 0.005})
			base := mlp(t, 8, false, 1)
			want, _ := fp.Profile(renamed(base), 0, 1)
			fp.calls = 0
			got, exact, err := pm.Estimate(base)
			if err != nil || !exact || got != want.Total || fp.calls != 1 {
				t.Fatalf("first graph: got %v exact %v err %v after %d profiles, want its profile %v", got, exact, err, fp.calls, want.Total)
			}
			if again, exact, _ := pm.Estimate(base); again != got || !exact || fp.calls != 1 {
				t.Errorf("a profiled graph must be served from its profile")
			}
			// A candidate with one more Relu: costed from the parent plus the
			// Relu, priced by the rate measured for the other nodes.
			cand := mlp(t, 8, false, 1)
			addRelu(t, cand)
			est, exact, err := pm.Estimate(cand)
			if err != nil || exact || fp.calls != 1 {
				t.Fatalf("small change: err %v, exact %v, %d profiles (want no new profile)", err, exact, fp.calls)
			}
			truth, _ := fp.Profile(renamed(cand), 0, 1)
			fp.calls = 1
			if rel := relErr(est, truth.Total); rel > 0.02 {
				t.Errorf("candidate: estimate %v, true %v (%.1f%% off)", est, truth.Total, 100*rel)
			}
			// A large change (every layer gains a Relu) is profiled itself.
			big := mlp(t, 8, true, 1)
			est, exact, err = pm.Estimate(big)
			if err != nil || !exact || fp.calls != 2 {
				t.Fatalf("large change: estimate %v exact %v err %v, %d profiles (want 2)", est, exact, err, fp.calls)
			}
			// Now Relus of this configuration are known: a graph between the
			// two is costed from the closer profile without profiling.
			mid := mlp(t, 8, true, 1)
			removeLastRelu(t, mid)
			est, exact, err = pm.Estimate(mid)
			truth, _ = fp.Profile(renamed(mid), 0, 1)
			if err != nil || exact || fp.calls != 3 {
				t.Fatalf("mid: exact %v err %v calls %d", exact, err, fp.calls)
			}
			if rel := relErr(est, truth.Total); rel > 0.01 {
				t.Errorf("mid: estimate %v, true %v (%.1f%% off)", est, truth.Total, 100*rel)
			}
			if pm.Profiled() != 2 {
				t.Errorf("profiled %d graphs, want 2", pm.Profiled())
			}
		})
	}
}

func relErr(a, b time.Duration) float64 {
	d := float64(a-b) / float64(b)
	if d < 0 {
		d = -d
	}
	return d
}

// renamed returns m with nodes named as ProfileModel names them.
func renamed(m *graph.Model) *graph.Model {
	g := m.Graph.Clone()
	for i, n := range g.Nodes {
		n.Name = "xrl" + strconv.Itoa(i)
	}
	return &graph.Model{Graph: g}
}

// addRelu appends a Relu after the graph's output.
func addRelu(t *testing.T, m *graph.Model) {
	t.Helper()
	g := m.Graph
	out := g.Outputs[0]
	nv := &graph.Value{Name: out.Name + "_relu", DType: out.DType, Shape: out.Shape.Clone(), ShapeKnown: true}
	g.Nodes = append(g.Nodes, &graph.Node{Name: "extra", Op: "Relu", Inputs: []*graph.Value{out}, Outputs: []*graph.Value{nv}})
	g.Outputs[0] = nv
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
}

// removeLastRelu drops the final Relu.
func removeLastRelu(t *testing.T, m *graph.Model) {
	t.Helper()
	g := m.Graph
	last := g.Nodes[len(g.Nodes)-1]
	if last.Op != "Relu" {
		t.Fatalf("last node is %s", last.Op)
	}
	g.Nodes = g.Nodes[:len(g.Nodes)-1]
	g.Outputs[0] = last.Inputs[0]
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestAttributeOrphans(t *testing.T) {
	m := mlp(t, 1, true, 1)
	nodes := costedNodes(m.Graph)
	if len(nodes) != 3 {
		t.Fatalf("want 3 costed nodes, got %d", len(nodes))
	}
	pr := &Profile{Nodes: []NodeTime{
		{Name: "xrl0_nchwc", Time: 30 * time.Microsecond},
		{Name: "LayerNormFusion", Time: 8 * time.Microsecond},
		{Name: "xrl0", Time: 2 * time.Microsecond},
	}}
	got := attribute(pr, nodes)
	// Add and Relu read and write as many elements each: they share the
	// orphan time equally; the MatMul gets both of its named nodes.
	want := []time.Duration{32 * time.Microsecond, 4 * time.Microsecond, 4 * time.Microsecond}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("node %d (%s): got %v, want %v", i, nodes[i].node.Op, got[i], want[i])
		}
	}
}

// fixedTimer is a LatencyModel that "times" every graph at its profile's
// total minus a fixed profiler overhead per node, counting its calls.
type fixedTimer struct {
	fp       *fakeProfiler
	overhead time.Duration
	calls    int
}

func (f *fixedTimer) Name() string { return "timer" }

func (f *fixedTimer) Latency(m *graph.Model) (Stats, error) {
	f.calls++
	p, err := f.fp.Profile(renamed(m), 0, 1)
	if err != nil {
		return Stats{}, err
	}
	d := p.Total - time.Duration(len(p.Nodes))*f.overhead
	return Stats{N: 1, Median: 2 * d, Steady: d}, nil
}

// TestProfileModelTimer checks that with a Timer a profiled graph costs
// the Timer's steady latency (not the profiler's total) and a candidate
// that total plus the profiled delta, without timing it.
func TestProfileModelTimer(t *testing.T) {
	fp := &fakeProfiler{}
	timer := &fixedTimer{fp: &fakeProfiler{}, overhead: time.Microsecond}
	pm := NewProfileModel(fp, ProfileOptions{Reprofile: 0.5, Timer: timer})
	base := mlp(t, 8, false, 1)
	want, _ := timer.Latency(base)
	timer.calls = 0
	got, exact, err := pm.Estimate(base)
	if err != nil || !exact || got != want.Steady || timer.calls != 1 {
		t.Fatalf("profiled graph: got %v exact %v err %v (%d timings), want the timer's steady %v", got, exact, err, timer.calls, want.Steady)
	}
	cand := mlp(t, 8, false, 1)
	addRelu(t, cand)
	est, exact, err := pm.Estimate(cand)
	if err != nil || exact || timer.calls != 1 || fp.calls != 1 {
		t.Fatalf("candidate: exact %v err %v, %d timings, %d profiles (want no new ones)", exact, err, timer.calls, fp.calls)
	}
	if c, err := pm.Change(base); err != nil || c != 0 {
		t.Errorf("change of the profiled graph: %v, %v; want 0", c, err)
	}
	// Only time was added: the change is the estimate's excess.
	if c, err := pm.Change(cand); err != nil || math.Abs(c-float64(est-got)/float64(got)) > 1e-9 {
		t.Errorf("change of the candidate: %v, %v; want %v", c, err, float64(est-got)/float64(got))
	}
	if _, err := NewProfileModel(fp, ProfileOptions{}).Change(base); err == nil {
		t.Error("change without a profile: want an error")
	}
	truth, _ := (&fakeProfiler{}).Profile(renamed(cand), 0, 1)
	base0, _ := (&fakeProfiler{}).Profile(renamed(base), 0, 1)
	// The Relu is priced at the rate of the profiled element-wise work
	// (here the bias Adds fused into the MatMuls, cheaper than a Relu): a
	// small error on the delta, on top of the timed parent.
	if delta := truth.Total - base0.Total; est <= got || relErr(est, got+delta) > 0.005 {
		t.Errorf("candidate: %v, want the parent's timed %v plus about %v", est, got, delta)
	}
}
