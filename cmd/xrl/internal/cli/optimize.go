package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/search"
	"github.com/xrl-dev/xrl/verify"
)

type optimizeOptions struct {
	execFlags
	IO        IO
	Model     string
	Output    string
	Search    string
	Alpha     float64
	Budget    int
	TimeLimit time.Duration
	Seed      uint64
	Tolerance float64
	Rules     []string
	Objective string
	RulesFile string // extra user rules, verified before use
	Agent     string // trained policy (optimize_agent.go)
	Samples   int
	Patience  int
	JSON      bool   // print the report as JSON, progress on stderr
	Verbose   bool   // also report ONNX Runtime's time per op type
	BRKGANet  string // regal network for --search brkga (optimize_regal.go)
	CostCache string // the cost model's per-op times across runs (--cost-cache)
	// MeasuredPasses are tried on the result and kept when faster
	// (pipeline.Start.MeasuredPasses); "none" skips them.
	MeasuredPasses []string
	// Specialize freezes the written model's interface to --shape.
	Specialize bool
	// Sweep lists the shapes never-slower decides on besides --shape.
	Sweep []string
	// Inputs is the user's own input sets (inputs.Read), verified on
	// besides the random ones.
	Inputs string
}

// NewCmdOptimize returns `xrl optimize MODEL.onnx -o OUT.onnx`.
func NewCmdOptimize(s IO, runF func(*optimizeOptions) error) *cobra.Command {
	opts := &optimizeOptions{IO: s}
	c := leaf(&cobra.Command{
		Use:   "optimize MODEL.onnx -o OUT.onnx",
		Short: "Optimise a model with verified rewrites and write the faster model",
		Long: `optimize rewrites a model's graph into a faster one, guided by the latency
model chosen with --runtime ("cost": TASO-style sum of per-op times, each op timed
alone at one thread, which ranks rewrites steadily; fast;
"profile": ONNX Runtime's own per-node profile of the whole graph; "ort"/"go":
end-to-end measurement, exact but slower).

By default the built-in agent (a policy trained on the model zoo and real exports,
shipped in the binary) rewrites: one greedy rollout of seconds. On the corpus
exports of twelve transformers it was never trained on (docs/results.md), the models
it wrote measured 1.01x-2.06x faster than the originals. --agent takes a policy of your own ('xrl train'). --search runs a search instead: taso (best-first with a
priority queue, keeping graphs under --alpha x the best, --budget pops), greedy (apply
the best candidate until none improves), random (a random walk of --budget steps) or
brkga (a biased random-key genetic algorithm over the environment's episodes,
--budget decoded chromosomes; with --agent the trained policy biases the decoding).
Giving --alpha or --budget, or an --objective other than latency, selects taso.

The result has its constant subgraphs folded, is verified against the original on
random inputs (several seeds; every element within |a-b| <= 1e-5*s + rtol*|b|, s the
output's root mean square (at least 1), and each output's relative L2 error within
rtol, rtol = --tolerance, default 1e-4, float32-appropriate; on the Go executor when
it implements every op, and on ONNX Runtime when installed), and only then written,
atomically: the optimised graph only when it is shown faster than the original in
ONNX Runtime (a sequential test, interleaved, of the ratio of median latencies: the
99% interval of the speedup starts at least 1% above 1, 3% for a model under a
millisecond, what separate sessions time such models apart), otherwise the folded model under the same
rule, otherwise the original file copied byte for byte, as the report says; the speedup
printed is that ratio of medians, with the medians it is made of. Each comparison
stops at the first clear interval; one still undecided after --max-time keeps the
model it had (the original, at the never-slower decision). A
found graph that fails verification (float32 rounding compounded past the tolerance)
is never written: the report shows its error and the run goes on with the folded model.
--inputs verifies on your own input sets too (ONNX test-data layout or .npz; see
'xrl verify --help'), each at its own shapes, and names each set's worst output.
Shapes that xrl cannot infer (ops outside its table) are taken from one ONNX Runtime
run of the model.

Progress lines come first, then the summary: planned memory, nodes, the rules applied,
the time split and the file written. With --json the progress lines go to stderr and
stdout is one JSON object (pipeline.Report): model, output, interface, method (stop
reason, steps, latency model and its figures), verification, measured_passes,
decision (choice, reason, before_ns, after_ns, speedup and its 99% interval),
memory, nodes, rules and times (durations in nanoseconds).

-v profiles the original and the written model with ONNX Runtime's own profiler
and adds to the summary where its time goes, per op type as ONNX Runtime runs them
(after its own fusions): the share of the summed kernel times and the milliseconds
per run, before and after, and the share of GEMM-like ops (MatMul, Gemm,
FusedMatMul, Attention, Conv ...) against everything else; in the JSON report this
is op_profile. It needs ONNX Runtime as the measuring backend.`,
		Args: cobra.ExactArgs(1),
	}, opts, func(c *cobra.Command, args []string) error {
		opts.Model = args[0]
		if opts.Output == "" {
			return usagef("-o/--output is required")
		}
		opts.chooseMethod(c)
		if _, ok := search.Algorithms[opts.Search]; !ok && opts.Search != "" {
			return usagef("--search %q: want taso, greedy, random or brkga", opts.Search)
		}
		if !slices.Contains(measure.Objectives, opts.Objective) {
			return usagef("--objective %q: want %s", opts.Objective, strings.Join(measure.Objectives, ", "))
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
		return opts.validateBRKGANet()
	}, runF, optimizeRun)
	f := opts.bindExec(c, true)
	f.StringVarP(&opts.Output, "output", "o", "", "output ONNX file")
	f.StringVar(&opts.Search, "search", "", "search algorithm: taso, greedy, random or brkga (default: the built-in agent rewrites; taso when --alpha or --budget is given or --objective is not latency)")
	f.Float64Var(&opts.Alpha, "alpha", 1.05, "taso: keep graphs costing less than alpha x the best")
	f.IntVar(&opts.Budget, "budget", 100, "taso: queue pops; greedy/random: steps; brkga: decoded chromosomes")
	f.DurationVar(&opts.TimeLimit, "time-limit", 0, "stop searching after this long (0 = no limit)")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed for the random search and the verification inputs")
	f.Float64Var(&opts.Tolerance, "tolerance", verify.DefaultRTol, "verification's relative tolerance rtol: |a-b| <= 1e-5*s + rtol*|b| per element (s: the output's RMS, at least 1), relative L2 error <= rtol per output")
	f.StringSliceVar(&opts.Rules, "rules", nil, "only use these rules (default: all)")
	f.StringSliceVar(&opts.MeasuredPasses, "measured-passes", pipeline.DefaultMeasuredPasses, "whole-graph passes tried on the result and kept only when faster end to end: measurably, or, when the timing ends undecided, 1% faster at the medians with the 99% interval ruling out a 2% slowdown (layout passes: measurably only) (none: skip)")
	f.StringVar(&opts.Objective, "objective", measure.ObjectiveLatency, "what to minimise: latency, memory (planned peak memory: constants + intermediate buffers) or both (geometric mean)")
	f.StringVar(&opts.RulesFile, "rules-file", "", "also use the rules of this .rules file (each must pass 'xrl rules verify --file' or nothing runs)")
	f.StringVar(&opts.Agent, "agent", "", "rewrite with a trained policy (runs/NAME/agent.ckpt from 'xrl train', or builtin: the agent shipped in the binary, the default when no search is asked for) instead of searching")
	f.IntVar(&opts.Samples, "samples", 0, "with --agent: also run K sampled rollouts and keep the best graph of all")
	f.IntVar(&opts.Patience, "patience", 3, "with --agent: end a rollout after N steps in a row without a new best graph (0 = never)")
	f.StringSliceVar(&opts.Sweep, "sweep", nil, "shapes the written model must not be slower at, besides the tuning --shape: NAME=DIMS[,DIMS...] (e.g. ids=1x32,8x128); default: the tuning shape with its batch times 8 (4 or 2 when the original's run times that would pass 50 ms) and its sequence divided by 4")
	f.BoolVar(&opts.Specialize, "specialize", false, "write a model fixed to the --shape binding (by default the written model keeps every symbolic dimension of the original and --shape is only the tuning shape)")
	f.BoolVar(&opts.JSON, "json", false, "print the report as one JSON object on stdout (progress lines go to stderr)")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "also profile the original and the written model in ONNX Runtime and report the time per op type, before and after (op_profile in --json)")
	f.StringVar(&opts.Inputs, "inputs", "", "also verify the result on your own input sets (a directory of input_N.pb files or test_data_set_N directories, an .npz archive, or a directory of them); without --shape the model is tuned at the first set's shapes")
	f.StringVar(&opts.BRKGANet, "brkga-net", "", "with --search brkga: draw fresh keys from this network's per-candidate Beta distributions ('xrl regal train')")
	f.StringVar(&opts.CostCache, "cost-cache", "", "keep the cost model's per-op times in this JSON file: a later run times only the op configurations the file does not hold (timing them is most of the search's time); keep one file per machine and ONNX Runtime version")
	return c
}

// measurement returns the run's measurement settings with the cost
// model's cache file.
func (o *optimizeOptions) measurement() pipeline.Measurement {
	m := o.Runtime.measurement()
	m.CostCache = o.CostCache
	return m
}

// searchRuntime returns the latency model used during search.
func (o *optimizeOptions) searchRuntime() string {
	if o.Runtime.Runtime == "" {
		return "cost"
	}
	return o.Runtime.Runtime
}

// config returns the pipeline configuration the flags describe.
func (o *optimizeOptions) config() (pipeline.Config, error) {
	bind, err := o.Shapes.bindings()
	if err != nil {
		return pipeline.Config{}, err
	}
	passes, err := measuredPasses(o.MeasuredPasses)
	if err != nil {
		return pipeline.Config{}, err
	}
	cfg := pipeline.Config{
		Model: o.Model, Shapes: bind, Rules: o.Rules, Output: o.Output,
		Latency:     o.searchRuntime(),
		Measurement: o.measurement(),
		Search:      o.Search,
		SearchOptions: search.Options{
			Budget: o.Budget, Alpha: o.Alpha, TimeLimit: o.TimeLimit, Seed: o.Seed,
		},
		Agent: o.Agent, Samples: o.Samples, Patience: o.Patience, Tolerance: o.Tolerance, Objective: o.Objective, RulesFile: o.RulesFile,
		MeasuredPasses: passes,
		Specialize:     o.Specialize,
		Sweep:          o.Sweep,
		ProfileOps:     o.Verbose,
	}
	return cfg, flagError(cfg.AddInputs(o.Inputs))
}

func optimizeRun(o *optimizeOptions) error {
	// A bad output path is reported before any work is done.
	if err := checkOutputPath("-o", o.Output); err != nil {
		return err
	}
	if o.CostCache != "" {
		if o.searchRuntime() != "cost" || o.Objective != measure.ObjectiveLatency {
			return fmt.Errorf("--cost-cache keeps the cost model's op times: it needs --runtime cost (the default) and --objective latency, not --runtime %s --objective %s", o.searchRuntime(), o.Objective)
		}
		if err := checkOutputPath("--cost-cache", o.CostCache); err != nil {
			return err
		}
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	if cfg.SearchOptions.Keys, err = o.brkgaKeys(); err != nil {
		return err
	}
	if cfg.Agent == "" {
		progress := newProgress(o.IO.Err, "search")
		defer progress.done()
		cfg.SearchOptions.Progress = func(step int, best time.Duration) {
			progress.update("step %d, best %v", step, best.Round(time.Microsecond))
		}
	}
	progressOut := o.IO.Out
	if o.JSON {
		progressOut = o.IO.Err
	}
	rep, err := pipeline.Optimize(progressOut, cfg)
	if err != nil {
		return flagError(err)
	}
	return printReport(o.IO.Out, rep, o.JSON)
}

// printReport prints rep's summary to w, as text or as one indented JSON
// object.
func printReport(w io.Writer, rep *pipeline.Report, asJSON bool) error {
	if !asJSON {
		return rep.WriteText(w)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("printing the report: %w", err)
	}
	return nil
}

// measuredPasses checks the --measured-passes names ("none" alone: no
// passes).
func measuredPasses(names []string) ([]string, error) {
	if len(names) == 1 && names[0] == "none" {
		return nil, nil
	}
	if _, err := pipeline.PassesNamed(names); err != nil {
		return nil, usagef("--measured-passes: %v (or none)", err)
	}
	return names, nil
}
