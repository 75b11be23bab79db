package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/xrl-dev/xrl/egrl"
	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/pipeline"
)

// validateAlgo checks --algo and the flags that belong to one algorithm.
func (o *trainOptions) validateAlgo() error {
	switch o.Algo {
	case "ppo":
		for _, name := range egrl.FlagNames() {
			if o.set[name] {
				return usagef("--%s is a setting of --algo egrl", name)
			}
		}
		return nil
	case "egrl":
	default:
		return usagef("--algo %q: want ppo or egrl", o.Algo)
	}
	switch {
	case len(o.Models) > 1:
		return usagef("--algo egrl trains on one model, got %d", len(o.Models))
	case o.Resume:
		return usagef("--algo egrl runs cannot be resumed")
	case o.set["episodes"]:
		return usagef("--episodes: --algo egrl runs for --generations generations or --max-steps environment steps")
	}
	if err := o.EGRL.Validate(); err != nil {
		return usagef("%v", err)
	}
	if !o.set["exp-name"] {
		o.ExpName = "egrl"
	}
	return nil
}

// trainEGRLRun is `xrl train --algo egrl`: it evolves the population,
// then exports, verifies and measures the fastest graph found.
func trainEGRLRun(o *trainOptions) (err error) {
	start := time.Now()
	dir := o.runDir(start)
	sp, err := prepareStart(o.Model, &o.Shapes, o.Rules)
	if err != nil {
		return err
	}
	generations := 0
	lm, cleanup, err := o.openRun(dir)
	if err != nil {
		return err
	}
	defer func() { cleanup(err, generations) }()
	w := o.IO.Out
	id := identify(sp.Orig.Graph)
	info := map[string]any{"model": o.Model, "runtime": lm.Name(), "rules": o.Rules, "exp_name": o.ExpName,
		"graph_hash": id.GraphHash, "input_shapes": id.InputShapes}
	opts := egrl.Options{RunInfo: info, OnGeneration: func(r egrl.GenerationRecord) {
		generations++
		fmt.Fprintf(w, "generation %d: step %d, fitness best %.3f mean %.3f (%d evaluated), learner member %d, learner speedup %.3f, best %.3fx\n",
			r.Generation, r.GlobalStep, float64(r.BestFitness), float64(r.MeanFitness), r.Evaluated, r.LearnerMember,
			float64(r.LearnerSpeedup), float64(r.BestSpeedup))
	}}
	run, err := egrl.New(dir, o.EGRL, o.PPO, env.Config{Model: sp.Model, Rewriter: sp.Engine, Latency: lm}, opts)
	if err != nil {
		return err
	}
	defer run.Close()
	fmt.Fprintf(w, "training %s (%d nodes) with EGRL: population %d, %d generations, step budget %d, %s latency rewards, run directory %s\n",
		o.Model, len(sp.Model.Graph.Nodes), o.EGRL.Population, o.EGRL.Generations, o.EGRL.MaxSteps, lm.Name(), dir)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run.Run(ctx); err != nil {
		if errors.Is(err, context.Canceled) {
			return errInterrupted
		}
		return err
	}
	if err := run.Close(); err != nil {
		return err
	}
	return o.finishEGRL(sp, run, lm.Name(), dir, time.Since(start))
}

// finishEGRL exports, verifies and reports the best graph of run.
func (o *trainOptions) finishEGRL(sp *pipeline.Start, run *egrl.Run, latName, dir string, took time.Duration) error {
	w := o.IO.Out
	bestG, initial, best := run.Best()
	bestPath := filepath.Join(dir, bestModelFile)
	out, err := sp.Export(w, bestG, bestPath, o.Tolerance, o.PPO.Seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "trained %d environment steps in %v\n", run.Steps(), took.Round(time.Second))
	if best > 0 {
		fmt.Fprintf(w, "%s latency of the best graph: %v -> %v (%.3fx)\n", latName,
			initial.Round(time.Microsecond), best.Round(time.Microsecond), float64(initial)/float64(best))
	}
	if err := pipeline.ReportMeasured(w, sp.Orig, out, o.Runtime.measurement(), o.PPO.Seed); err != nil {
		return err
	}
	fmt.Fprintf(w, "nodes: %d -> %d\n", len(sp.Orig.Graph.Nodes), len(out.Graph.Nodes))
	files := []string{egrl.MetricsFile, egrl.ConfigFile, egrl.BestFile, egrl.LearnerFile, bestModelFile}
	for i, f := range files {
		files[i] = filepath.Join(dir, f)
	}
	fmt.Fprintf(w, "wrote %s\n", strings.Join(files, ", "))
	return nil
}
