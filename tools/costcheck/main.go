// Command costcheck compares latency estimates with measured ONNX Runtime
// latency on models: the per-op cost model ("cost") and the in-session
// profile model ("profile") on each model itself, and the profile model on
// a rewritten candidate of each model (a few random rewrites away), costed
// from the model's profile plus what the rewrites changed, without
// profiling the candidate. The candidate is checked as a ratio to its
// model, measured interleaved, so that load from other processes cancels.
// It prints a markdown table; scripts/perf-cost runs it on the zoo.
//
// A profiled graph's latency is a timing of it, so the profile model's
// error on a model is how far two timings of one graph taken seconds apart
// differ; on a shared virtual machine the machine's speed drifts over
// seconds. The model is therefore checked in -rounds rounds, each profiling
// it in a fresh profile model and timing it, in alternating order, and the
// error is that of the median estimate against the median timing; the
// range of the rounds' own errors is printed beside it.
//
//	go run ./tools/costcheck [-steps 4] [-rounds 3] [-no-cost] [-threads N] [-seq 32] [zoo names or .onnx files]
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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
	rounds := flag.Int("rounds", 3, "rounds of profiling and timing each model (median error reported)")
	flag.IntVar(&seqLen, "seq", 32, "size of the input dimensions after the first that a model leaves dynamic (a sequence axis)")
	flag.Parse()
	names := flag.Args()
	if len(names) == 0 {
		names = models.Names()
	}
	if *rounds < 1 || *steps < 0 {
		fmt.Fprintf(os.Stderr, "costcheck: -rounds must be at least 1 and -steps at least 0 (got %d, %d)\n", *rounds, *steps)
		os.Exit(2)
	}
	if err := run(names, *steps, *rounds, !*noCost, *threads, *seed); err != nil {
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

func run(names []string, steps, rounds int, withCost bool, threads int, seed uint64) error {
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
	// Timed as the profile model's timer times a profiled graph.
	meas := &measure.Measured{Backend: be, Options: mo, Sessions: measure.ProfileTimerSessions}
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
	fmt.Printf("ONNX Runtime %s, intra-op threads %d (0 = all cores), %d rounds per model, candidates %d random rewrites away (seed %d)\n\n", v, threads, rounds, steps, seed)
	fmt.Println("| model | nodes | measured ms | cost model ms | cost error | profile ms | profile error | rounds' errors | candidate: rewrites, nodes changed | candidate/model measured (99% CI) | predicted from the profile | ratio error |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
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
		pm, profs, gots, err := profileRounds(be, meas, start, rounds, steady)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		prof, got := median(profs), median(gots)
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
			pred := float64(est) / float64(profs[len(profs)-1])
			candCells = fmt.Sprintf("%d, %d | %.3f (%.3f-%.3f) | %.3f | %+.1f%%%s", applied, changedNodes(start.Graph, cand.Graph),
				c.Ratio, c.RatioLo, c.RatioHi, pred, 100*(pred/c.Ratio-1), reprof)
		}
		fmt.Printf("| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", filepath.Base(name), len(folded.Nodes), ms(got), costCell, costErr, ms(prof), pct(prof, got), roundErrors(profs, gots), candCells)
	}
	return nil
}

// profileRounds profiles start in a fresh profile model and times it, in
// each of rounds rounds, alternating which comes first so that a drift of
// the machine's speed during the check falls on both. It returns the last
// round's profile model, which never re-profiles (the candidate check
// tests the delta costing), with each round's estimate and timing.
func profileRounds(be measure.Profiler, timer measure.LatencyModel, start *graph.Model, rounds int, steady func(*graph.Model) (time.Duration, error)) (*measure.ProfileModel, []time.Duration, []time.Duration, error) {
	var pm *measure.ProfileModel
	var profs, gots []time.Duration
	for r := 0; r < rounds; r++ {
		pm = measure.NewProfileModel(be, measure.ProfileOptions{Reprofile: 1e9, Timer: timer})
		profile := func() error {
			est, _, err := pm.Estimate(start)
			profs = append(profs, est)
			return err
		}
		timing := func() error {
			d, err := steady(start)
			gots = append(gots, d)
			return err
		}
		first, second := profile, timing
		if r%2 == 1 {
			first, second = timing, profile
		}
		if err := first(); err != nil {
			return nil, nil, nil, err
		}
		if err := second(); err != nil {
			return nil, nil, nil, err
		}
	}
	return pm, profs, gots, nil
}

// median returns the median of ds (the mean of the middle two for an even
// count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// roundErrors formats the range of the rounds' own errors (estimate
// against the timing of the same round).
func roundErrors(profs, gots []time.Duration) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range profs {
		e := 100 * (float64(profs[i])/float64(gots[i]) - 1)
		lo, hi = math.Min(lo, e), math.Max(hi, e)
	}
	return fmt.Sprintf("%+.1f%% to %+.1f%%", lo, hi)
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
