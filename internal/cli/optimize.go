package cli

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/xrl-dev/xrl/executor"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/onnx"
	"github.com/xrl-dev/xrl/rewrite"
	"github.com/xrl-dev/xrl/rules"
	"github.com/xrl-dev/xrl/search"
)

type optimizeOptions struct {
	IO        IO
	Model     string
	Output    string
	Shapes    shapeOptions
	Runtime   runtimeOptions
	Search    string
	Alpha     float64
	Budget    int
	TimeLimit time.Duration
	Seed      uint64
	Tolerance float64
	Rules     []string
	Agent     string // trained policy (optimize_agent.go)
	Samples   int
}

// errNotEquivalent is returned when the optimised model fails verification.
var errNotEquivalent = errors.New("the optimised model does not compute the same function as the original; nothing was written")

// NewCmdOptimize returns `xrl optimize MODEL.onnx -o OUT.onnx`.
func NewCmdOptimize(s IO, runF func(*optimizeOptions) error) *cobra.Command {
	opts := &optimizeOptions{IO: s}
	c := &cobra.Command{
		Use:   "optimize MODEL.onnx -o OUT.onnx",
		Short: "Optimise a model with verified rewrites and write the faster model",
		Long: `optimize searches the space of rewrites of a model's graph for a faster graph,
using the latency model chosen with --runtime ("cost": TASO-style sum of per-op times,
fast; "ort"/"go": end-to-end measurement, exact but slower). Searches: taso
(best-first with a priority queue, keeping graphs under --alpha x the best, --budget
pops), greedy (apply the best candidate until none improves) and random (a random walk
of --budget steps).

The result has its constant subgraphs folded, is verified against the original on
random inputs (several seeds; every element within |a-b| <= 1e-5 + rtol*|b| and each
output's relative L2 error within rtol, rtol = --tolerance, default 1e-4, float32-
appropriate; on the Go executor when it implements every op, and on ONNX Runtime when
installed), and only then written, atomically. Shapes that xrl cannot infer (ops
outside its table) are taken from one ONNX Runtime run of the model.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Model = args[0]
			if opts.Output == "" {
				return usagef("-o/--output is required")
			}
			if _, ok := search.Algorithms[opts.Search]; !ok {
				return usagef("--search %q: want taso, greedy or random", opts.Search)
			}
			if opts.Alpha < 1 {
				return usagef("--alpha must be at least 1, got %g", opts.Alpha)
			}
			if opts.Budget < 1 {
				return usagef("--budget must be at least 1, got %d", opts.Budget)
			}
			if opts.Tolerance <= 0 {
				return usagef("--tolerance must be positive, got %g", opts.Tolerance)
			}
			if err := opts.Runtime.validate(true); err != nil {
				return err
			}
			if err := opts.validateAgent(c); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Agent != "" {
				return optimizeAgentRun(opts)
			}
			return optimizeRun(opts)
		},
	}
	opts.Shapes.addFlags(c)
	opts.Runtime.addFlags(c, true)
	f := c.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "output ONNX file")
	f.StringVar(&opts.Search, "search", "taso", "search algorithm: taso, greedy or random")
	f.Float64Var(&opts.Alpha, "alpha", 1.05, "taso: keep graphs costing less than alpha x the best")
	f.IntVar(&opts.Budget, "budget", 100, "taso: queue pops; greedy/random: steps")
	f.DurationVar(&opts.TimeLimit, "time-limit", 0, "stop searching after this long (0 = no limit)")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed for the random search and the verification inputs")
	f.Float64Var(&opts.Tolerance, "tolerance", measure.DefaultRTol, "verification's relative tolerance rtol: |a-b| <= 1e-5 + rtol*|b| per element, relative L2 error <= rtol per output")
	f.StringSliceVar(&opts.Rules, "rules", nil, "only use these rules (default: all)")
	f.StringVar(&opts.Agent, "agent", "", "rewrite with a trained policy (runs/NAME/agent.ckpt from 'xrl train') instead of searching")
	f.IntVar(&opts.Samples, "samples", 0, "with --agent: also run K sampled rollouts and keep the best graph of all")
	return c
}

// searchRuntime returns the latency model used during search.
func (o *optimizeOptions) searchRuntime() string {
	if o.Runtime.Runtime == "" {
		return "cost"
	}
	return o.Runtime.Runtime
}

func optimizeRun(o *optimizeOptions) error {
	start := time.Now()
	sp, err := prepareStart(o.Model, &o.Shapes, o.Rules)
	if err != nil {
		return err
	}
	orig, startModel, engine := sp.Orig, sp.Start, sp.Engine
	lm, err := measure.NewLatencyModel(o.searchRuntime(), o.Runtime.backendOptions(), o.Runtime.measureOptions())
	if err != nil {
		return err
	}
	w := o.IO.Out
	fmt.Fprintf(w, "optimising %s (%d nodes) with %s search on the %s latency model\n", o.Model, len(orig.Graph.Nodes), o.Search, lm.Name())
	progress := newProgress(o.IO.Err, "search")
	res, err := search.Algorithms[o.Search](&search.Problem{Model: startModel, Rewriter: engine, Latency: lm}, search.Options{
		Budget: o.Budget, Alpha: o.Alpha, TimeLimit: o.TimeLimit, Seed: o.Seed,
		Progress: func(step int, best time.Duration) {
			progress.update("step %d, best %v", step, best.Round(time.Microsecond))
		},
	})
	progress.done()
	if err != nil {
		return fmt.Errorf("%s: %w", o.Model, err)
	}
	best, _, err := rewrite.Fold(res.Best, executor.Evaluate)
	if err != nil {
		return fmt.Errorf("folding the optimised graph: %w", err)
	}
	out := *orig
	out.Graph = best
	if err := verifyModels(w, orig, &out, o.Tolerance, o.Seed); err != nil {
		return err
	}
	if err := onnx.WriteFile(o.Output, &out); err != nil {
		return fmt.Errorf("writing %s: %w", o.Output, err)
	}
	fmt.Fprintf(w, "search: %s, stop reason %q, %d steps, %d latency queries, %v\n",
		res.Algorithm, res.StopReason, res.Steps, res.Evaluations, res.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "%s latency: %v -> %v (%.3fx)\n", lm.Name(), res.InitialLatency.Round(time.Microsecond), res.BestLatency.Round(time.Microsecond), res.Speedup())
	if lm.Name() == "cost" {
		if err := reportMeasured(w, o, orig, &out); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "nodes: %d -> %d\n\n", len(orig.Graph.Nodes), len(best.Nodes))
	if err := res.WriteRuleTable(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwrote %s in %v\n", o.Output, time.Since(start).Round(time.Millisecond))
	return nil
}

// newEngine loads the rule set, optionally restricted to names, with
// candidates capped at twice the model's size (as TASO).
func newEngine(names []string, nodes int) (*rewrite.Engine, error) {
	set, err := rules.Load()
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if set.Lookup(n) == nil {
			return nil, usagef("--rules: no rule named %q (see 'xrl rules list')", n)
		}
	}
	return rewrite.NewEngine(set, rewrite.Options{Rules: names, MaxNodes: 2 * nodes, Eval: executor.Evaluate}), nil
}

// verifyModels checks out against orig on the Go executor and, when
// installed, ONNX Runtime.
func verifyModels(w io.Writer, orig, out *graph.Model, tol float64, seed uint64) error {
	names := []string{"go"}
	if measure.DefaultBackendName() == "ort" {
		names = append(names, "ort")
	}
	results, err := measure.VerifyRuntimes(names, orig, out, measure.VerifyOptions{Seeds: 3, FirstSeed: seed, Tolerance: tol})
	for _, r := range results {
		fmt.Fprintln(w, r)
		if r.Skipped == nil && !r.Result.OK {
			return errNotEquivalent
		}
	}
	return err
}

// reportMeasured prints the real end-to-end latency before and after, when
// the search used the cost model.
func reportMeasured(w io.Writer, o *optimizeOptions, orig, out *graph.Model) error {
	name := measure.DefaultBackendName()
	be, err := measure.NewBackend(name, o.Runtime.backendOptions())
	if err != nil {
		return err
	}
	sa, err := be.Load(orig)
	if err != nil {
		return err
	}
	defer sa.Close()
	sb, err := be.Load(out)
	if err != nil {
		return err
	}
	defer sb.Close()
	in, err := measure.RandomInputs(orig.Graph, o.Seed)
	if err != nil {
		return err
	}
	c, err := measure.Compare(sa, sb, in, in, o.Runtime.measureOptions())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s latency (measured, interleaved): %v -> %v (speedup %.3fx; after/before ratio %.3f, 99%% CI %.3f-%.3f)\n", name,
		c.A.Median.Round(time.Microsecond), c.B.Median.Round(time.Microsecond), 1/c.Ratio, c.Ratio, c.RatioLo, c.RatioHi)
	return nil
}
