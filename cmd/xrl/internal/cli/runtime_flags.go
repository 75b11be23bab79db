package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/measure"
	_ "github.com/xrl-dev/xrl/measure/goexec" // registers the "go" backend
	_ "github.com/xrl-dev/xrl/measure/ort"    // registers the "ort" backend
	"github.com/xrl-dev/xrl/pipeline"
)

// runtimeOptions holds the flags shared by commands that execute models.
type runtimeOptions struct {
	Runtime  string
	Threads  int
	OptLevel string
	Runs     int
	Warmup   int
	MaxTime  time.Duration
	// MinTime: see measure.MeasureOptions.MinTime.
	MinTime time.Duration
	// Block and Precision: see measure.MeasureOptions.BlockRuns and Precision.
	Block     int
	Precision float64
}

func (o *runtimeOptions) addFlags(c *cobra.Command, withCost bool) {
	f := c.Flags()
	names := "go, ort"
	if withCost {
		names += ", cost, profile"
	}
	f.StringVar(&o.Runtime, "runtime", "", "backend: "+names+" (default ort when installed, else go)")
	f.IntVar(&o.Threads, "threads", 0, "intra-op threads (0 = all cores)")
	f.StringVar(&o.OptLevel, "ort-opt", "all", "ONNX Runtime graph optimisation level: all, extended, basic, disable")
	f.IntVar(&o.Runs, "runs", 20, "minimum number of timed runs")
	f.IntVar(&o.Warmup, "warmup", 3, "untimed warm-up runs (when not 0, warm-up then continues until the latency settles)")
	f.DurationVar(&o.MaxTime, "max-time", DefaultMaxTime, "stop timing (one comparison, or one model's runs) after this long even if undecided; optimize then keeps the model it had")
	f.DurationVar(&o.MinTime, "min-time", measure.DefaultMinTime, "time for at least this long, so that a fast model is timed over many runs")
	f.IntVar(&o.Block, "block", 8, "runs per block: the steady latency is the median of the blocks' fastest runs, and comparisons look at the data at whole blocks")
	f.Float64Var(&o.Precision, "precision", 0.01, "equivalence margin of comparisons: timing stops once the 99% confidence interval of the latency ratio lies within this fraction of 1")
}

// DefaultMaxTime is --max-time's default. A comparison still undecided
// after it is settled the safe way (optimize writes the model it had, the
// original at the never-slower decision). The PaddleOCR-sized
// MobileNetV3, its rewrites within 1% of the original, took 4-12 s of
// timing to show that; a model 2% faster shows it in a few seconds.
const DefaultMaxTime = 10 * time.Second

func (o *runtimeOptions) validate(withCost bool) error {
	if o.Runs < 1 {
		return usagef("--runs must be at least 1, got %d", o.Runs)
	}
	if o.Warmup < 0 {
		return usagef("--warmup must not be negative, got %d", o.Warmup)
	}
	if o.MinTime < 0 {
		return usagef("--min-time must not be negative, got %v", o.MinTime)
	}
	if o.Block < 1 {
		return usagef("--block must be at least 1, got %d", o.Block)
	}
	if o.Precision <= 0 || o.Precision >= 1 {
		return usagef("--precision must be in (0, 1), got %g", o.Precision)
	}
	if o.Threads < 0 {
		return usagef("--threads must not be negative, got %d", o.Threads)
	}
	switch o.Runtime {
	case "", "go", "ort":
	case "cost", "profile", "roofline":
		if !withCost {
			return usagef("--runtime %s only estimates latency; this command needs go or ort", o.Runtime)
		}
	default:
		return usagef("--runtime %q: want go, ort, cost, profile or roofline", o.Runtime)
	}
	switch o.OptLevel {
	case "all", "extended", "basic", "disable":
	default:
		return usagef("--ort-opt %q: want all, extended, basic or disable", o.OptLevel)
	}
	return nil
}

func (o *runtimeOptions) name() string {
	if o.Runtime == "" {
		return measure.DefaultBackendName()
	}
	return o.Runtime
}

func (o *runtimeOptions) backendOptions() measure.BackendOptions {
	return measure.BackendOptions{Threads: o.Threads, OptLevel: o.OptLevel}
}

func (o *runtimeOptions) measureOptions() measure.MeasureOptions {
	return measure.MeasureOptions{Warmup: o.Warmup, Runs: o.Runs, MaxTime: o.MaxTime, BlockRuns: o.Block, Precision: o.Precision,
		MinTime: o.MinTime, Settle: o.Warmup > 0}
}

// measurement returns the measurement settings of the flags.
func (o *runtimeOptions) measurement() pipeline.Measurement {
	return pipeline.Measurement{Backend: o.backendOptions(), Measure: o.measureOptions()}
}

// backend returns the execution backend selected by the flags.
func (o *runtimeOptions) backend() (measure.Backend, error) {
	return measure.NewBackend(o.name(), o.backendOptions())
}
