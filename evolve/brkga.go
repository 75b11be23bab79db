package evolve

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// Prior gives a probability distribution over an observation's actions:
// one entry per action (len(obs.Mask)), zero or ignored where the mask is
// false. The entries need not sum to one.
type Prior interface {
	ActionProbs(obs *env.Observation) ([]float64, error)
}

// BRKGAConfig configures a BRKGA run. Zero fields take the defaults in
// brackets.
type BRKGAConfig struct {
	// Population is the number of chromosomes per generation [20].
	Population int
	// EliteFrac is the fraction of each generation kept unchanged [0.2].
	EliteFrac float64
	// MutantFrac is the fraction of each generation replaced by fresh
	// random chromosomes [0.2].
	MutantFrac float64
	// Inherit is the probability that a child takes a key from its elite
	// parent rather than from its other parent [0.7].
	Inherit float64
	// Evaluations bounds the number of chromosomes decoded (episodes
	// played), the run's budget [200].
	Evaluations int
	// Length is the number of keys per chromosome [the environment's
	// horizon]. Decoding stops at the episode's end or after Length steps.
	Length int
	// Seed drives the genetic operators.
	Seed uint64
	// EpisodeSeed is passed to every Reset, so that every decode sees the
	// same candidate capping and fitness depends on the keys alone.
	EpisodeSeed uint64
	// TimeLimit stops the run after the generation in progress (0: none).
	TimeLimit time.Duration
	// Progress, if set, is called after each generation.
	Progress func(generation, evaluations int, best time.Duration)
	// Keys, when set, switches to priority decoding (see KeyDist): a
	// chromosome holds one key per action at every decision point, fresh
	// keys come from Keys, and each step takes the valid action with the
	// largest key. It excludes a Prior.
	Keys KeyDist
}

func (c BRKGAConfig) withDefaults(horizon int) (BRKGAConfig, error) {
	c.Population = cmp.Or(c.Population, 20)
	c.EliteFrac = cmp.Or(c.EliteFrac, 0.2)
	c.MutantFrac = cmp.Or(c.MutantFrac, 0.2)
	c.Inherit = cmp.Or(c.Inherit, 0.7)
	c.Evaluations = cmp.Or(c.Evaluations, 200)
	c.Length = cmp.Or(c.Length, horizon)
	switch {
	case c.Population < 2:
		return c, fmt.Errorf("evolve: population %d: want at least 2", c.Population)
	case !(c.EliteFrac > 0 && c.EliteFrac < 1), !(c.MutantFrac >= 0 && c.MutantFrac < 1), c.EliteFrac+c.MutantFrac >= 1:
		return c, fmt.Errorf("evolve: elite fraction %v and mutant fraction %v must be in (0, 1) with a sum below 1", c.EliteFrac, c.MutantFrac)
	case !(c.Inherit >= 0.5 && c.Inherit <= 1):
		return c, fmt.Errorf("evolve: inherit probability %v: want a value in [0.5, 1]", c.Inherit)
	case c.Evaluations < 1, c.Length < 1:
		return c, fmt.Errorf("evolve: evaluations %d and length %d must be positive", c.Evaluations, c.Length)
	}
	return c, nil
}

// BRKGAResult reports a BRKGA run.
type BRKGAResult struct {
	// Best is the lowest-latency graph any decoded episode reached.
	Best *graph.Graph
	// BestLatency and InitialLatency are Best's and the start graph's
	// latencies in the environment's latency model.
	BestLatency, InitialLatency time.Duration
	// Applied lists the rules the best chromosome's episode applied, in
	// order, up to the step that reached Best.
	Applied []string
	// Evaluations is the number of chromosomes decoded; Generations the
	// number of generations completed (the first, random one included).
	Evaluations, Generations int
	// History holds the best latency after each generation.
	History []time.Duration
	// StopReason says why the run ended: "budget" or "time limit".
	StopReason string
	// Elapsed is the run's wall-clock time.
	Elapsed time.Duration
}

// Speedup returns InitialLatency / BestLatency.
func (r BRKGAResult) Speedup() float64 {
	return measure.Speedup(r.InitialLatency, r.BestLatency)
}

// individual is a chromosome with its decoded fitness. keys[t] holds the
// keys of decision point t: one key with inverse-CDF decoding, one per
// action with priority decoding (filled as decoding reaches it).
type individual struct {
	keys    [][]float64
	fitness time.Duration
	best    *graph.Graph
	applied []string
}

// BRKGA optimises e's starting graph with a biased random-key genetic
// algorithm. prior may be nil (uniform decoding). e is reset for every
// decode and left after the last one.
func BRKGA(e *env.Env, prior Prior, cfg BRKGAConfig) (BRKGAResult, error) {
	cfg, err := cfg.withDefaults(e.Config().Horizon)
	if err != nil {
		return BRKGAResult{}, err
	}
	if prior != nil && cfg.Keys != nil {
		return BRKGAResult{}, errors.New("evolve: a Prior and a KeyDist exclude each other")
	}
	t0 := time.Now()
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	res := BRKGAResult{StopReason: "budget"}
	nElite := max(1, int(math.Round(cfg.EliteFrac*float64(cfg.Population))))
	nMutant := int(math.Round(cfg.MutantFrac * float64(cfg.Population)))
	fresh := func() [][]float64 {
		k := make([][]float64, cfg.Length)
		if cfg.Keys == nil {
			for i := range k {
				k[i] = []float64{rng.Float64()}
			}
		}
		return k
	}
	dec := decoder{prior: prior, keys: cfg.Keys, rng: rng}
	var pop []*individual
	evaluate := func(keys [][]float64) error {
		ind, init, err := dec.decode(e, keys, cfg.EpisodeSeed)
		if err != nil {
			return err
		}
		res.Evaluations++
		res.InitialLatency = init
		if res.Best == nil || ind.fitness < res.BestLatency {
			res.Best, res.BestLatency, res.Applied = ind.best, ind.fitness, ind.applied
		}
		pop = append(pop, ind)
		return nil
	}
	budgetLeft := func() bool { return res.Evaluations < cfg.Evaluations }
	for len(pop) < cfg.Population && budgetLeft() {
		if err := evaluate(fresh()); err != nil {
			return res, err
		}
	}
	for {
		sortPop(pop)
		res.Generations++
		res.History = append(res.History, res.BestLatency)
		if cfg.Progress != nil {
			cfg.Progress(res.Generations, res.Evaluations, res.BestLatency)
		}
		if !budgetLeft() {
			break
		}
		if cfg.TimeLimit > 0 && time.Since(t0) >= cfg.TimeLimit {
			res.StopReason = "time limit"
			break
		}
		elite, rest := pop[:nElite], pop[nElite:]
		pop = append([]*individual(nil), elite...)
		for i := 0; i < nMutant && budgetLeft(); i++ {
			if err := evaluate(fresh()); err != nil {
				return res, err
			}
		}
		for len(pop) < cfg.Population && budgetLeft() {
			a := elite[rng.IntN(len(elite))]
			b := a
			if len(rest) > 0 {
				b = rest[rng.IntN(len(rest))]
			}
			if err := evaluate(crossover(a.keys, b.keys, cfg.Inherit, rng)); err != nil {
				return res, err
			}
		}
	}
	res.Elapsed = time.Since(t0)
	return res, nil
}

// sortPop orders a population by fitness, best first (stable, so ties
// keep their order and runs are reproducible).
func sortPop(pop []*individual) {
	sort.SliceStable(pop, func(i, j int) bool { return pop[i].fitness < pop[j].fitness })
}

// crossover returns a child of elite a and other parent b: every key
// comes from a with probability inherit, else from b; a key only one
// parent has comes from that parent.
func crossover(a, b [][]float64, inherit float64, rng *rand.Rand) [][]float64 {
	child := make([][]float64, len(a))
	for t := range child {
		ra, rb := a[t], b[t]
		row := make([]float64, max(len(ra), len(rb)))
		for i := range row {
			switch {
			case i >= len(rb):
				row[i] = ra[i]
			case i >= len(ra):
				row[i] = rb[i]
			case rng.Float64() < inherit:
				row[i] = ra[i]
			default:
				row[i] = rb[i]
			}
		}
		child[t] = row
	}
	return child
}

// decoder turns chromosomes into episodes.
type decoder struct {
	prior Prior
	keys  KeyDist
	rng   *rand.Rand
}

// action returns the action of decision point t, filling keys[t] from
// the KeyDist where priority decoding needs keys it does not have.
func (d decoder) action(e *env.Env, obs *env.Observation, keys [][]float64, t int) (int, error) {
	if d.keys == nil {
		return keyAction(obs, d.prior, keys[t][0])
	}
	if len(keys[t]) < len(obs.Mask) {
		drawn, err := d.keys.Keys(obs, e.Candidates(), d.rng)
		if err != nil {
			return 0, err
		}
		if len(drawn) != len(obs.Mask) {
			return 0, fmt.Errorf("key distribution gave %d keys for %d actions", len(drawn), len(obs.Mask))
		}
		keys[t] = append(keys[t], drawn[len(keys[t]):]...)
	}
	return priorityAction(obs, keys[t])
}

// decode plays one episode of e with the actions the keys select and
// returns the individual and the start graph's latency. The individual's
// rules are those applied up to its best graph.
func (d decoder) decode(e *env.Env, keys [][]float64, seed uint64) (*individual, time.Duration, error) {
	obs, info, err := e.Reset(seed)
	if err != nil {
		return nil, 0, err
	}
	initial, best, bestLen := info.InitialLatency, info.InitialLatency, 0
	ended := false
	for t := range keys {
		a, err := d.action(e, obs, keys, t)
		if err != nil {
			return nil, 0, fmt.Errorf("evolve: step %d: %w", info.Step+1, err)
		}
		var term, trunc bool
		obs, _, term, trunc, info, err = e.Step(a)
		if err != nil {
			return nil, 0, err
		}
		if info.Measured && info.Latency < best {
			best, bestLen = info.Latency, info.Step
		}
		if term || trunc {
			ended = true
			break
		}
	}
	applied := e.Applied()
	bestG, lat := e.Best()
	if g := e.Graph(); !ended && g != bestG {
		// The keys ran out before the episode's end: measure where the
		// episode stopped as well.
		l, err := e.Latency(g)
		if err != nil {
			return nil, 0, err
		}
		if l < lat {
			bestG, lat, bestLen = g, l, len(applied)
		}
	}
	// A No-Op step applies no rule, so the prefix is over applied rules.
	return &individual{keys: keys, fitness: lat, best: bestG, applied: applied[:min(bestLen, len(applied))]}, initial, nil
}

// errBadPrior reports a prior whose distribution cannot be used.
var errBadPrior = errors.New("prior gave no usable probability to any valid action")

// keyAction maps key k in [0, 1) to a valid action by the inverse
// cumulative distribution of the valid actions: uniform without a prior,
// the prior's otherwise.
func keyAction(obs *env.Observation, prior Prior, k float64) (int, error) {
	var probs []float64
	if prior != nil {
		p, err := prior.ActionProbs(obs)
		if err != nil {
			return 0, err
		}
		if len(p) != len(obs.Mask) {
			return 0, fmt.Errorf("prior gave %d probabilities for %d actions", len(p), len(obs.Mask))
		}
		probs = p
	}
	weight := func(a int) float64 {
		if probs == nil {
			return 1
		}
		if w := probs[a]; w > 0 && !math.IsInf(w, 0) {
			return w
		}
		return 0
	}
	total := 0.0
	for a, ok := range obs.Mask {
		if ok {
			total += weight(a)
		}
	}
	if !(total > 0) {
		return 0, errBadPrior
	}
	target, c, last := k*total, 0.0, -1
	for a, ok := range obs.Mask {
		if !ok || weight(a) == 0 {
			continue
		}
		c += weight(a)
		last = a
		if target < c {
			return a, nil
		}
	}
	return last, nil
}
