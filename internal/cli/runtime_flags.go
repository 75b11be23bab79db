package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/xrl-dev/xrl/measure"
	_ "github.com/xrl-dev/xrl/measure/ort" // registers the "ort" backend
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
}

func (o *runtimeOptions) addFlags(c *cobra.Command, withCost bool) {
	f := c.Flags()
	names := "go, ort"
	if withCost {
		names += ", cost"
	}
	f.StringVar(&o.Runtime, "runtime", "", "backend: "+names+" (default ort when installed, else go)")
	f.IntVar(&o.Threads, "threads", 0, "intra-op threads (0 = all cores)")
	f.StringVar(&o.OptLevel, "ort-opt", "all", "ONNX Runtime graph optimisation level: all, extended, basic, disable")
	f.IntVar(&o.Runs, "runs", 20, "minimum number of timed runs")
	f.IntVar(&o.Warmup, "warmup", 3, "untimed warm-up runs")
	f.DurationVar(&o.MaxTime, "max-time", 30*time.Second, "stop timing after this long even if the spread is still high")
}

func (o *runtimeOptions) validate(withCost bool) error {
	if o.Runs < 1 {
		return usagef("--runs must be at least 1, got %d", o.Runs)
	}
	if o.Warmup < 0 {
		return usagef("--warmup must not be negative, got %d", o.Warmup)
	}
	if o.Threads < 0 {
		return usagef("--threads must not be negative, got %d", o.Threads)
	}
	switch o.Runtime {
	case "", "go", "ort":
	case "cost":
		if !withCost {
			return usagef("--runtime cost only estimates latency; this command needs go or ort")
		}
	default:
		return usagef("--runtime %q: want go, ort or cost", o.Runtime)
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
	return measure.MeasureOptions{Warmup: o.Warmup, Runs: o.Runs, MaxTime: o.MaxTime}
}

// measurement returns the measurement settings of the flags.
func (o *runtimeOptions) measurement() pipeline.Measurement {
	return pipeline.Measurement{Backend: o.backendOptions(), Measure: o.measureOptions()}
}

// backend returns the execution backend selected by the flags.
func (o *runtimeOptions) backend() (measure.Backend, error) {
	return measure.NewBackend(o.name(), o.backendOptions())
}
