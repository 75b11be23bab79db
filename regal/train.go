package regal

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/evolve"
	"github.com/xrl-dev/xrl/gat/nn"
)

// Graph is one training or evaluation graph: an environment over it and a
// name for reports.
type Graph struct {
	Name string
	Env  *env.Env
}

// TrainConfig configures Train. Zero fields take the defaults in
// brackets.
type TrainConfig struct {
	// Iterations is the number of BRKGA runs with the network [60],
	// cycling over the graphs.
	Iterations int
	// BRKGA configures every run (its Seed, EpisodeSeed and Keys are set
	// by Train): the budget (Evaluations) is the same for the network's
	// runs and the uniform runs they are compared with.
	BRKGA evolve.BRKGAConfig
	// Seeds is the number of distinct BRKGA seeds cycled per graph [4];
	// the uniform runs are cached per graph and seed.
	Seeds int
	// LR is Adam's step size [1e-3]; MaxGradNorm the gradient clip [10].
	LR, MaxGradNorm float64
	// BaselineDecay is the weight of the old value in the per-graph
	// running baseline [0.8].
	BaselineDecay float64
	// Seed drives the sampling of quantised parameters and keys.
	Seed uint64
	// Progress, if set, is called after every iteration.
	Progress func(IterStats)
}

func (c TrainConfig) withDefaults() (TrainConfig, error) {
	if c.Iterations == 0 {
		c.Iterations = 60
	}
	if c.Seeds == 0 {
		c.Seeds = 4
	}
	if c.LR == 0 {
		c.LR = 1e-3
	}
	if c.MaxGradNorm == 0 {
		c.MaxGradNorm = 10
	}
	if c.BaselineDecay == 0 {
		c.BaselineDecay = 0.8
	}
	if c.Iterations < 1 || c.Seeds < 1 || !(c.LR > 0) || !(c.MaxGradNorm > 0) || !(c.BaselineDecay > 0 && c.BaselineDecay < 1) {
		return c, fmt.Errorf("regal: iterations %d, seeds %d, lr %v, grad clip %v and baseline decay %v must be positive (decay below 1)",
			c.Iterations, c.Seeds, c.LR, c.MaxGradNorm, c.BaselineDecay)
	}
	return c, nil
}

// IterStats reports one training iteration.
type IterStats struct {
	Iteration int
	Graph     string
	Seed      uint64
	// Network and Uniform are the best latencies of BRKGA with the
	// network's keys and with uniform keys (same budget and seed).
	Network, Uniform time.Duration
	// Reward is -Network/Uniform; Baseline the graph's running baseline
	// before this iteration.
	Reward, Baseline float64
	// Choices is the number of quantised decisions the gradient covers.
	Choices int
}

// uniformRuns caches the best latency of uniform BRKGA per graph and seed.
type uniformRuns map[[2]uint64]time.Duration

func (u uniformRuns) best(g Graph, gi int, cfg evolve.BRKGAConfig) (time.Duration, error) {
	key := [2]uint64{uint64(gi), cfg.Seed}
	if d, ok := u[key]; ok {
		return d, nil
	}
	cfg.Keys = evolve.UniformKeys{}
	r, err := evolve.BRKGA(g.Env, nil, cfg)
	if err != nil {
		return 0, fmt.Errorf("regal: uniform BRKGA on %s: %w", g.Name, err)
	}
	u[key] = r.BestLatency
	return r.BestLatency, nil
}

// Train trains net with REINFORCE as a contextual bandit over graphs: each
// iteration runs BRKGA on one graph with keys from the network's sampled
// Beta distributions and takes the reward -best/best_uniform.
func Train(net *Net, graphs []Graph, cfg TrainConfig) ([]IterStats, error) {
	if len(graphs) == 0 {
		return nil, errors.New("regal: no training graphs")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	opt := nn.NewAdam[float32](cfg.LR)
	params := net.Params()
	uniform := uniformRuns{}
	baseline, scale := make([]float64, len(graphs)), make([]float64, len(graphs))
	seen := make([]bool, len(graphs))
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xbb67ae8584caa73b))
	var out []IterStats
	for it := 0; it < cfg.Iterations; it++ {
		gi := it % len(graphs)
		g := graphs[gi]
		bcfg := cfg.BRKGA
		bcfg.Seed = uint64(it/len(graphs)%cfg.Seeds) + 1
		bcfg.EpisodeSeed = bcfg.Seed
		ub, err := uniform.best(g, gi, bcfg)
		if err != nil {
			return out, err
		}
		st := IterStats{Iteration: it + 1, Graph: g.Name, Seed: bcfg.Seed, Uniform: ub}
		dist := &Dist{Net: net, Sample: true}
		bcfg.Keys = dist
		bcfg.Seed ^= rng.Uint64() // the network's keys get their own stream
		r, err := evolve.BRKGA(g.Env, nil, bcfg)
		if err != nil {
			return out, fmt.Errorf("regal: BRKGA on %s: %w", g.Name, err)
		}
		reward := -float64(r.BestLatency) / float64(ub)
		if !seen[gi] {
			baseline[gi], seen[gi] = -1, true
		}
		st.Network, st.Reward, st.Baseline = r.BestLatency, reward, baseline[gi]
		cs := dist.take()
		st.Choices = len(cs)
		adv := advantage(reward-baseline[gi], &scale[gi], cfg.BaselineDecay)
		net.mu.Lock()
		nn.ZeroGrad(params)
		net.accumulate(cs, adv)
		nn.ClipGradNorm(params, cfg.MaxGradNorm)
		opt.Step(params)
		net.mu.Unlock()
		baseline[gi] = cfg.BaselineDecay*baseline[gi] + (1-cfg.BaselineDecay)*reward
		out = append(out, st)
		if cfg.Progress != nil {
			cfg.Progress(st)
		}
	}
	return out, nil
}

// advantage divides d, a reward minus its baseline, by the graph's
// running mean of |d| (kept in scale, with the baseline's decay) and
// clips the result to [-3, 3]. Rewards of graphs where BRKGA's outcome
// varies little (a latency model under which the rewrites matter by a
// fraction of a percent) then still give gradients of a useful size.
func advantage(d float64, scale *float64, decay float64) float64 {
	if *scale == 0 {
		*scale = math.Abs(d)
	} else {
		*scale = decay**scale + (1-decay)*math.Abs(d)
	}
	if *scale == 0 {
		return 0
	}
	return max(-3, min(3, d / *scale))
}

// Comparison is one graph and seed of Compare.
type Comparison struct {
	Graph string
	Seed  uint64
	// Initial is the start graph's latency; Network and Uniform the best
	// latencies BRKGA reached with the network's keys (most likely
	// parameters) and with uniform keys, at the same budget.
	Initial, Network, Uniform time.Duration
	Evaluations               int
}

// Compare runs BRKGA with the network's keys and with uniform keys on
// every graph for seeds 1..seeds, at the budget of cfg.
func Compare(net *Net, graphs []Graph, cfg evolve.BRKGAConfig, seeds int) ([]Comparison, error) {
	var out []Comparison
	for _, g := range graphs {
		for s := 1; s <= seeds; s++ {
			c := cfg
			c.Seed, c.EpisodeSeed = uint64(s), uint64(s)
			c.Keys = evolve.UniformKeys{}
			u, err := evolve.BRKGA(g.Env, nil, c)
			if err != nil {
				return out, fmt.Errorf("regal: uniform BRKGA on %s: %w", g.Name, err)
			}
			c.Keys = &Dist{Net: net}
			n, err := evolve.BRKGA(g.Env, nil, c)
			if err != nil {
				return out, fmt.Errorf("regal: BRKGA on %s: %w", g.Name, err)
			}
			out = append(out, Comparison{Graph: g.Name, Seed: uint64(s), Initial: u.InitialLatency,
				Network: n.BestLatency, Uniform: u.BestLatency, Evaluations: n.Evaluations})
		}
	}
	return out, nil
}
