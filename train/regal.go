package train

import (
	"fmt"
	"io"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/evolve"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/regal"
)

// RegalConfig configures the training and the comparison of REGAL's
// network (package regal), which steers BRKGA's keys, on a set of models.
type RegalConfig struct {
	Models []string
	Shapes map[string][]int
	// Runtime names the latency model that scores BRKGA's episodes, with
	// Measurement's settings.
	Runtime     string
	Measurement pipeline.Measurement
	// Budget is the number of decoded chromosomes of a BRKGA run,
	// Population BRKGA's population, Horizon the length of an episode and
	// MaxCandidates the candidates shown per step.
	Budget, Population, Horizon, MaxCandidates int
	// Seeds is the number of BRKGA seeds per model, Seed the seed of the
	// network's initialisation and sampling.
	Seeds int
	Seed  uint64
	// Iterations is the number of BRKGA runs with the network when
	// training, cycling over the models.
	Iterations int
}

// graphs builds one environment per model.
func (c *RegalConfig) graphs() ([]regal.Graph, error) {
	lm, err := RewardLatency(c.Runtime, c.Measurement, "")
	if err != nil {
		return nil, err
	}
	var out []regal.Graph
	for _, path := range c.Models {
		sp, err := pipeline.Prepare(path, c.Shapes, nil)
		if err != nil {
			return nil, err
		}
		e, err := env.New(env.Config{Model: sp.Model, Rewriter: sp.Engine, Latency: lm, Horizon: c.Horizon, MaxCandidates: c.MaxCandidates})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, regal.Graph{Name: path, Env: e})
	}
	return out, nil
}

func (c *RegalConfig) brkga() evolve.BRKGAConfig {
	return evolve.BRKGAConfig{Evaluations: c.Budget, Population: c.Population, Length: c.Horizon}
}

// TrainRegal trains a new network on cfg's models, calling progress (when
// not nil) after every iteration, and writes it to path. It returns the
// time training and writing took.
func TrainRegal(cfg RegalConfig, path string, progress func(regal.IterStats)) (time.Duration, error) {
	graphs, err := cfg.graphs()
	if err != nil {
		return 0, err
	}
	net, err := regal.New(regal.Config{Seed: cfg.Seed})
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	_, err = regal.Train(net, graphs, regal.TrainConfig{Iterations: cfg.Iterations, BRKGA: cfg.brkga(), Seeds: cfg.Seeds, Seed: cfg.Seed,
		Progress: progress})
	if err != nil {
		return 0, err
	}
	if err := net.SaveFile(path); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// RegalComparison is the outcome of CompareRegal: BRKGA with the
// network's keys against BRKGA with uniform keys, a row per model and
// seed.
type RegalComparison struct {
	Config RegalConfig
	Rows   []regal.Comparison
}

// CompareRegal runs BRKGA with net's keys and with uniform keys on cfg's
// models at equal budgets.
func CompareRegal(cfg RegalConfig, net *regal.Net) (*RegalComparison, error) {
	graphs, err := cfg.graphs()
	if err != nil {
		return nil, err
	}
	rows, err := regal.Compare(net, graphs, cfg.brkga(), cfg.Seeds)
	if err != nil {
		return nil, err
	}
	return &RegalComparison{Config: cfg, Rows: rows}, nil
}

// Write prints the comparison as a Markdown table, one row per model with
// the mean speedups over the seeds.
func (c *RegalComparison) Write(w io.Writer) {
	cfg := c.Config
	fmt.Fprintf(w, "BRKGA budget %d decoded chromosomes, population %d, horizon %d, %d seeds, latency model %s\n\n",
		cfg.Budget, cfg.Population, cfg.Horizon, cfg.Seeds, cfg.Runtime)
	fmt.Fprintln(w, "| model | speedup uniform keys | speedup network keys | network better / equal / worse |")
	fmt.Fprintln(w, "|---|---|---|---|")
	rows := c.Rows
	for i := 0; i < len(rows); {
		j, su, sn, b, e, wo := i, 0.0, 0.0, 0, 0, 0
		for ; j < len(rows) && rows[j].Graph == rows[i].Graph; j++ {
			r := rows[j]
			su += float64(r.Initial) / float64(r.Uniform)
			sn += float64(r.Initial) / float64(r.Network)
			switch {
			case r.Network < r.Uniform:
				b++
			case r.Network == r.Uniform:
				e++
			default:
				wo++
			}
		}
		n := float64(j - i)
		fmt.Fprintf(w, "| %s | %.4f | %.4f | %d / %d / %d |\n", rows[i].Graph, su/n, sn/n, b, e, wo)
		i = j
	}
}
