package train

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/xrl-dev/xrl/egrl"
	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/pipeline"
)

// runEGRL evolves EGRL's population on cfg's model, then exports the
// fastest graph found.
func runEGRL(ctx context.Context, cfg *Config, start time.Time) (rep *Report, err error) {
	model := cfg.Models[0]
	sp, err := pipeline.Prepare(model, cfg.Shapes, cfg.Rules)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	generations := 0
	lm, cleanup, err := openRun(cfg)
	if err != nil {
		return nil, err
	}
	defer func() { cleanup(err, generations) }()
	id := identify(sp.Orig.Graph)
	info := map[string]any{"model": model, "runtime": lm.Name(), "rules": cfg.Rules, "exp_name": cfg.ExpName,
		"graph_hash": id.GraphHash, "input_shapes": id.InputShapes}
	opts := egrl.Options{RunInfo: info, OnGeneration: func(r egrl.GenerationRecord) {
		generations++
		fmt.Fprintf(cfg.Log, "generation %d: step %d, fitness best %.3f mean %.3f (%d evaluated), learner member %d, learner speedup %.3f, best %.3fx\n",
			r.Generation, r.GlobalStep, float64(r.BestFitness), float64(r.MeanFitness), r.Evaluated, r.LearnerMember,
			float64(r.LearnerSpeedup), float64(r.BestSpeedup))
	}}
	run, err := egrl.New(cfg.Dir, cfg.EGRL, cfg.PPO, env.Config{Model: sp.Model, Rewriter: sp.Engine, Latency: lm}, opts)
	if err != nil {
		return nil, err
	}
	defer run.Close()
	fmt.Fprintf(cfg.Log, "training %s (%d nodes) with EGRL: population %d, %d generations, step budget %d, %s latency rewards, run directory %s\n",
		model, len(sp.Model.Graph.Nodes), cfg.EGRL.Population, cfg.EGRL.Generations, cfg.EGRL.MaxSteps, lm.Name(), cfg.Dir)
	if err := run.Run(ctx); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, ErrInterrupted
		}
		return nil, err
	}
	if err := run.Close(); err != nil {
		return nil, err
	}
	best, initial, bestLat := run.Best()
	rep = &Report{Algo: AlgoEGRL, Dir: cfg.Dir, Latency: lm.Name(), Steps: run.Steps(), Took: time.Since(start),
		Initial: initial, Best: bestLat}
	if err := export(cfg, sp, best, cfg.PPO.Seed, rep); err != nil {
		return nil, err
	}
	rep.Files = inDir(cfg.Dir, egrl.MetricsFile, egrl.ConfigFile, egrl.BestFile, egrl.LearnerFile, BestModelFile)
	return rep, nil
}
