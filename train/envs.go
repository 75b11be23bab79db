package train

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/envserver"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/pipeline"
)

// RewardLatency returns the latency model called name for environment
// rewards. The cost model keeps its per-op times in costCache when that is
// set, so that later runs (and other processes) charge every op the same
// time.
func RewardLatency(name string, m pipeline.Measurement, costCache string) (measure.LatencyModel, error) {
	if name == "cost" && costCache != "" {
		return measure.NewCostModel(measure.CostOptions{Backend: m.Backend, CacheFile: costCache})
	}
	return measure.NewLatencyModel(name, m.Backend, m.Measure)
}

// Envs builds environments from model files, as an envserver.Factory
// (the one `xrl env serve` serves). Models are loaded, bound and folded
// once per path and shapes, and latency models built once per runtime;
// environments share both (the rewrite engine and the latency models are
// safe for concurrent use).
type Envs struct {
	measurement pipeline.Measurement
	costCache   string

	mu      sync.Mutex
	starts  map[string]*pipeline.Start
	latency map[string]measure.LatencyModel
}

// NewEnvs returns an empty Envs whose latency models measure as m, the
// cost model keeping its times in costCache when that is set.
func NewEnvs(m pipeline.Measurement, costCache string) *Envs {
	return &Envs{measurement: m, costCache: costCache, starts: map[string]*pipeline.Start{}, latency: map[string]measure.LatencyModel{}}
}

// New returns an environment of p; it implements envserver.Factory.
func (f *Envs) New(_ context.Context, p envserver.CreateParams) (*env.Env, error) {
	name := p.Runtime
	if name == "" {
		name = "cost"
	}
	switch name {
	case "cost", "ort", "go", "roofline":
	default:
		return nil, fmt.Errorf("runtime %q: want cost, ort, go or roofline", name)
	}
	sp, err := f.start(p.ModelPath, p.Shapes)
	if err != nil {
		return nil, err
	}
	lm, err := f.latencyModel(name)
	if err != nil {
		return nil, err
	}
	return env.New(env.Config{Model: sp.Model, Rewriter: sp.Engine, Latency: lm,
		MaxCandidates: p.MaxCandidates, Horizon: p.Horizon, FeedbackEvery: p.FeedbackEvery})
}

// start returns the prepared model of path bound with shapes.
func (f *Envs) start(path string, shapes map[string][]int) (*pipeline.Start, error) {
	specs := make([]string, 0, len(shapes))
	for name, dims := range shapes {
		ds := make([]string, len(dims))
		for i, d := range dims {
			ds[i] = fmt.Sprint(d)
		}
		specs = append(specs, name+"="+strings.Join(ds, "x"))
	}
	slices.Sort(specs)
	key := path + "\x00" + strings.Join(specs, "\x00")
	f.mu.Lock()
	defer f.mu.Unlock()
	if sp, ok := f.starts[key]; ok {
		return sp, nil
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	sp, err := pipeline.Prepare(path, shapes, nil)
	if err != nil {
		return nil, err
	}
	f.starts[key] = sp
	return sp, nil
}

// latencyModel returns the shared latency model of a runtime.
func (f *Envs) latencyModel(name string) (measure.LatencyModel, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if lm, ok := f.latency[name]; ok {
		return lm, nil
	}
	lm, err := RewardLatency(name, f.measurement, f.costCache)
	if err != nil {
		return nil, err
	}
	f.latency[name] = lm
	return lm, nil
}
