// Command costcheck compares latency estimates with measured ONNX Runtime
// latency on models: the per-op cost model ("cost") and the in-session
// profile model ("profile") on each model itself, and the profile model on
// a rewritten candidate of each model (a few random rewrites away), costed
// from the model's profile plus what the rewrites changed, without
// profiling the candidate. The candidate is checked as a ratio to its
// model, measured interleaved, so that load from other processes cancels.
// It prints a markdown table; scripts/perf-cost runs it on the zoo.
//
//	go run ./internal/tools/costcheck [-steps 4] [-no-cost] [-threads N] [-seq 32] [zoo names or .onnx files]
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/measure/ort"
	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules"
)

func main() {
	steps := flag.Int("steps", 4, "random rewrites applied to make each candidate")
	noCost := flag.Bool("no-cost", false, "skip the per-op cost model (slow on large models)")
	threads := flag.Int("threads", 0, "ONNX Runtime intra-op threads (0 = all cores)")
	seed := flag.Uint64("seed", 1, "seed of the random rewrites")
	flag.IntVar(&seqLen, "seq", 32, "size of the input dimensions after the first that a model leaves dynamic (a sequence axis)")
	flag.Parse()
	names := flag.Args()
	if len(names) == 0 {
		names = models.Names()
	}
	if err := run(names, *steps, !*noCost, *threads, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "costcheck:", err)
		os.Exit(1)
	}
}

// seqLen binds the dynamic input dimensions after the first (-seq).
var seqLen int

// load reads a .onnx file bound as the optimising commands bind it, or
// builds a zoo model (cpu preset).
func load(name string) (*graph.Model, error) {
	if strings.HasSuffix(name, ".onnx") {
		m, err := pipeline.ReadModel(name)
		if err != nil {
			return nil, err
		}
		// The binding xrl itself uses: inference, completed by the types
		// ONNX Runtime observes for ops outside the table (LSTM ...).
		return pipeline.LoadBound(name, dynamicDims(m.Graph, seqLen))
	}
	return models.Build(name, models.PresetCPU, models.Overrides{})
}

// dynamicDims binds, on each input with a dynamic dimension after the
// first, the first dimension (when dynamic) to 1 and the others to n.
func dynamicDims(g *graph.Graph, n int) map[string][]int {
	bind := map[string][]int{}
	for _, in := range g.Inputs {
		if in.Const != nil || !in.ShapeKnown {
			continue
		}
		dims := make([]int, len(in.Shape))
		dynamic := false
		for i, d := range in.Shape {
			switch {
			case d.Known():
				dims[i] = int(d.Value)
			case i == 0:
				dims[i] = 1
			default:
				dims[i], dynamic = n, true
			}
		}
		if dynamic {
			bind[in.Name] = dims
		}
	}
	return bind
}

func run(names []string, steps int, withCost bool, threads int, seed uint64) error {
	bo := measure.BackendOptions{Threads: threads}
	be, err := ort.New(bo)
	if err != nil {
		return err
	}
	set, err := rules.Load()
	if err != nil {
		return err
	}
	var cm *measure.CostModel
	if withCost {
		if cm, err = measure.NewCostModel(measure.CostOptions{Base: "ort", Backend: bo}); err != nil {
			return err
		}
	}
	mo := measure.DefaultMeasureOptions()
	mo.Runs = 40
	meas := &measure.Measured{Backend: be, Options: mo}
	steady := func(m *graph.Model) (time.Duration, error) {
		st, err := meas.Latency(m)
		if err != nil {
			return 0, err
		}
		return st.Steady, nil
	}
	v, err := ort.Version()
	if err != nil {
		return err
	}
	fmt.Printf("ONNX Runtime %s, intra-op threads %d (0 = all cores), candidates %d random rewrites away (seed %d)\n\n", v, threads, steps, seed)
	fmt.Println("| model | nodes | measured ms | cost model ms | cost error | profile ms | profile error | candidate: rewrites, nodes changed | candidate/model measured (99% CI) | predicted from the profile | ratio error |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, name := range names {
		m, err := load(name)
		if err != nil {
			return err
		}
		folded, _, err := rewrite.Fold(m.Graph, executor.Evaluate)
		if err != nil {
			return fmt.Errorf("%s: folding: %w", name, err)
		}
		start := &graph.Model{Graph: folded, IRVersion: m.IRVersion, Opsets: m.Opsets}
		// A profile model that never re-profiles, to check the delta
		// costing; profiled graphs timed as "measured" times them.
		pm := measure.NewProfileModel(be, measure.ProfileOptions{Reprofile: 1e9, Timer: meas})
		prof, _, err := pm.Estimate(start)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		got, err := steady(start)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		costCell, costErr := "-", "-"
		if cm != nil {
			st, err := cm.Latency(start)
			if err != nil {
				return fmt.Errorf("%s: cost model: %w", name, err)
			}
			costCell, costErr = ms(st.Median), pct(st.Median, got)
		}
		cand, applied, err := walk(start, set, steps, seed)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		candCells := "none | - | - | -"
		if applied > 0 {
			est, _, err := pm.Estimate(cand)
			if err != nil {
				return fmt.Errorf("%s candidate: %w", name, err)
			}
			c, err := compare(be, start, cand)
			if err != nil {
				return fmt.Errorf("%s candidate: %w", name, err)
			}
			change, err := pm.Change(cand)
			if err != nil {
				return fmt.Errorf("%s candidate: %w", name, err)
			}
			// In use (default threshold) a change this large is profiled.
			reprof := ""
			if change > defaultReprofile {
				reprof = fmt.Sprintf(" (change %.0f%%: re-profiled in use)", 100*change)
			}
			pred := float64(est) / float64(prof)
			candCells = fmt.Sprintf("%d, %d | %.3f (%.3f-%.3f) | %.3f | %+.1f%%%s", applied, changedNodes(start.Graph, cand.Graph),
				c.Ratio, c.RatioLo, c.RatioHi, pred, 100*(pred/c.Ratio-1), reprof)
		}
		fmt.Printf("| %s | %d | %s | %s | %s | %s | %s | %s |\n", filepath.Base(name), len(folded.Nodes), ms(got), costCell, costErr, ms(prof), pct(prof, got), candCells)
	}
	return nil
}

// defaultReprofile is measure.ProfileOptions' default Reprofile share.
const defaultReprofile = 0.2

// compare measures latency(b)/latency(a) interleaved (robust to load from
// other processes, unlike two separate measurements).
func compare(be measure.Backend, a, b *graph.Model) (measure.Comparison, error) {
	in, err := measure.RandomInputs(a.Graph, 1)
	if err != nil {
		return measure.Comparison{}, err
	}
	return measure.CompareModels(be, a, b, in, measure.MeasureOptions{Warmup: 3, Settle: true, Runs: 96, MinTime: measure.DefaultMinTime, MaxTime: 30 * time.Second})
}

// walk applies up to steps seeded random rewrites.
func walk(start *graph.Model, set *rules.Set, steps int, seed uint64) (*graph.Model, int, error) {
	r := rand.New(rand.NewPCG(seed, 17))
	eng := rewrite.NewEngine(set, rewrite.Options{MaxNodes: 2 * len(start.Graph.Nodes), Eval: executor.Evaluate})
	g := start.Graph
	applied := 0
	for i := 0; i < steps; i++ {
		cands, err := eng.Candidates(g)
		if err != nil {
			return nil, 0, err
		}
		if len(cands) == 0 {
			break
		}
		g = cands[r.IntN(len(cands))].Graph
		applied++
	}
	out := *start
	out.Graph = g
	return &out, applied, nil
}

// changedNodes counts the nodes of b whose operator configuration a lacks
// (as a multiset), plus the nodes of a that b lacks.
func changedNodes(a, b *graph.Graph) int {
	key := func(n *graph.Node) string {
		var s strings.Builder
		s.WriteString(n.Op)
		for _, in := range n.Inputs {
			if in != nil {
				fmt.Fprintf(&s, "|%v", in.Shape)
			}
		}
		return s.String()
	}
	count := map[string]int{}
	for _, n := range a.Nodes {
		count[key(n)]++
	}
	changed := 0
	for _, n := range b.Nodes {
		if count[key(n)] > 0 {
			count[key(n)]--
		} else {
			changed++
		}
	}
	for _, c := range count {
		changed += c
	}
	return changed
}

// ms formats d in milliseconds, with three decimals below 1 ms.
func ms(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.3f", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2f", float64(d)/1e6)
}

func pct(est, got time.Duration) string {
	return fmt.Sprintf("%+.1f%%", 100*(float64(est)/float64(got)-1))
}
