package train

import (
	"context"
	"fmt"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/ppo"
	"github.com/xrl-dev/xrl/ppo/plots"
)

// bindFor returns the bindings of all for the inputs the model at path
// has with a dynamic shape, marking their names in used: in a
// multi-model run a binding applies to that input in every model where it
// is not static already.
func bindFor(path string, all map[string][]int, used map[string]bool) (map[string][]int, error) {
	if len(all) == 0 {
		return nil, nil
	}
	m, err := pipeline.ReadModel(path)
	if err != nil {
		return nil, err
	}
	out := map[string][]int{}
	for _, in := range m.Graph.Inputs {
		if dims, ok := all[in.Name]; ok && in.Const == nil && !in.Shape.Static() {
			out[in.Name], used[in.Name] = dims, true
		}
	}
	return out, nil
}

// prepareTasks prepares every model of cfg as a task of the trainer and
// returns the tasks, the models as config.json records them and their
// nodes in all.
func prepareTasks(cfg *Config) ([]ppo.Task, []modelEntry, int, error) {
	used := map[string]bool{}
	seen := map[string]string{}
	var entries []modelEntry
	var tasks []ppo.Task
	nodes := 0
	for _, path := range cfg.Models {
		name := modelName(path)
		if prev, dup := seen[name]; dup {
			return nil, nil, 0, configErrorf("%s and %s have the same name %q: a multi-model run names models by file name", prev, path, name)
		}
		seen[name] = path
		bind, err := bindFor(path, cfg.Shapes, used)
		if err != nil {
			return nil, nil, 0, err
		}
		sp, err := pipeline.Prepare(path, bind, cfg.Rules)
		if err != nil {
			return nil, nil, 0, err
		}
		entries = append(entries, modelEntry{Name: name, Path: path, modelIdentity: identify(sp.Orig.Graph)})
		tasks = append(tasks, ppo.Task{Name: name, Env: env.Config{Model: sp.Model, Rewriter: sp.Engine}})
		nodes += len(sp.Model.Graph.Nodes)
	}
	for name := range cfg.Shapes {
		if !used[name] {
			return nil, nil, 0, configErrorf("--shape %s: no model has a dynamic input named %q", name, name)
		}
	}
	return tasks, entries, nodes, nil
}

// runMulti trains one PPO agent across cfg's models.
func runMulti(ctx context.Context, cfg *Config, prev runInfo, start time.Time) (rep *Report, err error) {
	tasks, entries, nodes, err := prepareTasks(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Resume && len(prev.Models) == 0 {
		return nil, fmt.Errorf("--resume: the run in %s was trained on one model (%s); it cannot continue on %d models", cfg.Dir, prev.GraphHash[:min(12, len(prev.GraphHash))], len(entries))
	}
	if err := sameModels(prev.Models, entries, cfg.Dir); err != nil {
		return nil, err
	}
	// One latency model for all: its cache is shared.
	s, err := openSession(ctx, cfg, start, tasks, map[string]any{"models": entries})
	if err != nil {
		return nil, err
	}
	defer func() { s.close(err) }()
	tc := s.tr.Config()
	order := "round robin"
	if tc.RandomModels {
		order = "drawn at random"
	}
	fmt.Fprintf(cfg.Log, "%s %d models (%d nodes in all, %s): %d episodes, %s latency rewards every %d steps, run directory %s\n",
		s.verb, len(tasks), nodes, order, tc.Episodes, s.lm.Name(), tc.FeedbackEvery, cfg.Dir)
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	rep = s.report(time.Since(start))
	rep.Initial, rep.Best, rep.BestEpisode = 0, 0, 0
	rep.Models = sortedModels(s.tr.State())
	charts, err := plots.WriteAll(cfg.Dir)
	if err != nil {
		return nil, err
	}
	rep.Files = append(inDir(cfg.Dir, ppo.MetricsFile, ppo.CheckpointFile, ppo.ConfigFile), charts...)
	return rep, nil
}
