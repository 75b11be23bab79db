package train

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/ppo"
	"github.com/xrl-dev/xrl/ppo/plots"
)

// Run trains as cfg says and returns the report. The run directory is
// created as needed and removed again when the run fails before its first
// episode. When ctx is cancelled training stops with an error matching
// ErrInterrupted; a PPO run then keeps its checkpoint, and the
// *InterruptedError says where to resume. Errors of the configuration
// against a resumed run or the models are *ConfigError values.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	switch {
	case len(cfg.Models) == 0:
		return nil, configErrorf("no model to train on")
	case cfg.Algo != "" && cfg.Algo != AlgoPPO && cfg.Algo != AlgoEGRL:
		return nil, configErrorf("--algo %q: want ppo or egrl", cfg.Algo)
	case cfg.Algo == AlgoEGRL && (cfg.multi() || cfg.Resume):
		return nil, configErrorf("--algo egrl trains on one model and cannot be resumed")
	}
	start := time.Now()
	cfg.Dir = RunDir(cfg, start)
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Algo == AlgoEGRL {
		return runEGRL(ctx, &cfg, start)
	}
	var prev runInfo
	if cfg.Resume {
		var err error
		if prev, err = resumed(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.multi() {
		return runMulti(ctx, &cfg, prev, start)
	}
	return runOne(ctx, &cfg, prev, start)
}

// runOne trains PPO on cfg's one model, then exports the best graph.
func runOne(ctx context.Context, cfg *Config, prev runInfo, start time.Time) (rep *Report, err error) {
	model := cfg.Models[0]
	sp, err := pipeline.Prepare(model, cfg.Shapes, cfg.Rules)
	if err != nil {
		return nil, err
	}
	id := identify(sp.Orig.Graph)
	if len(prev.Models) > 0 {
		return nil, fmt.Errorf("--resume: the run in %s was trained on %d models; it cannot continue on %s alone", cfg.Dir, len(prev.Models), model)
	}
	if err := prev.sameModel(id, model, cfg.Dir); err != nil {
		return nil, err
	}
	s, err := openSession(ctx, cfg, start, []ppo.Task{{Env: env.Config{Model: sp.Model, Rewriter: sp.Engine}}},
		map[string]any{"model": model, "graph_hash": id.GraphHash, "input_shapes": id.InputShapes})
	if err != nil {
		return nil, err
	}
	defer func() { s.close(err) }()
	tc := s.tr.Config()
	fmt.Fprintf(cfg.Log, "%s %s (%d nodes): %d episodes, %s latency rewards every %d steps, run directory %s\n",
		s.verb, model, len(sp.Model.Graph.Nodes), tc.Episodes, s.lm.Name(), tc.FeedbackEvery, cfg.Dir)
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	rep = s.report(time.Since(start))
	best, _, _ := s.tr.Best()
	if err := export(cfg, sp, best, tc.Seed, rep); err != nil {
		return nil, err
	}
	charts, err := plots.WriteAll(cfg.Dir)
	if err != nil {
		return nil, err
	}
	rep.Files = append(inDir(cfg.Dir, ppo.MetricsFile, ppo.CheckpointFile, ppo.ConfigFile, BestModelFile), charts...)
	return rep, nil
}
