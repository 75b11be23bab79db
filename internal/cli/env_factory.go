package cli

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

// rewardLatency returns the latency model of environment rewards: the cost
// model keeps its per-op times in costCache when that is set, so that
// later runs (and other processes) charge every op the same time.
func rewardLatency(name string, ro *runtimeOptions, costCache string) (measure.LatencyModel, error) {
	if name == "cost" && costCache != "" {
		return measure.NewCostModel(measure.CostOptions{Backend: ro.backendOptions(), CacheFile: costCache})
	}
	return measure.NewLatencyModel(name, ro.backendOptions(), ro.measureOptions())
}

// envFactory builds the environments of `xrl env serve`. Models are
// loaded, bound and folded once per (path, shapes) and latency models
// built once per runtime; environments share both (the rewrite engine and
// the latency models are safe for concurrent use).
type envFactory struct {
	rt        runtimeOptions
	costCache string

	mu      sync.Mutex
	starts  map[string]*pipeline.Start
	latency map[string]measure.LatencyModel
}

func newEnvFactory(rt runtimeOptions, costCache string) *envFactory {
	return &envFactory{rt: rt, costCache: costCache, starts: map[string]*pipeline.Start{}, latency: map[string]measure.LatencyModel{}}
}

// build implements envserver.Factory.
func (f *envFactory) build(_ context.Context, p envserver.CreateParams) (*env.Env, error) {
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
func (f *envFactory) start(path string, shapes map[string][]int) (*pipeline.Start, error) {
	so := shapeOptions{}
	for name, dims := range shapes {
		ds := make([]string, len(dims))
		for i, d := range dims {
			ds[i] = fmt.Sprint(d)
		}
		so.Specs = append(so.Specs, name+"="+strings.Join(ds, "x"))
	}
	slices.Sort(so.Specs)
	key := path + "\x00" + strings.Join(so.Specs, "\x00")
	f.mu.Lock()
	defer f.mu.Unlock()
	if sp, ok := f.starts[key]; ok {
		return sp, nil
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	sp, err := prepareStart(path, &so, nil)
	if err != nil {
		return nil, err
	}
	f.starts[key] = sp
	return sp, nil
}

// latencyModel returns the shared latency model of a runtime.
func (f *envFactory) latencyModel(name string) (measure.LatencyModel, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if lm, ok := f.latency[name]; ok {
		return lm, nil
	}
	lm, err := rewardLatency(name, &f.rt, f.costCache)
	if err != nil {
		return nil, err
	}
	f.latency[name] = lm
	return lm, nil
}
