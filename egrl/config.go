package egrl

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Config holds EGRL's own settings. The learner, the network shape, the
// seed and the environment's horizon, feedback interval and candidate cap
// come from a ppo.Config given alongside. Defaults follow EGRL's Table 2
// where it has one (population 20 there; 10 here for the 2-core budget).
type Config struct {
	// Population is the number of evolved policies (0: the learner alone).
	Population int `json:"population"`
	// Generations bounds the run; MaxSteps, when positive, bounds the
	// environment steps (checked after every episode).
	Generations int `json:"generations"`
	MaxSteps    int `json:"max_steps"`
	// EliteFrac is the share of the population kept unchanged (at least
	// one member when the population is not empty).
	EliteFrac float64 `json:"elite_frac"`
	// CrossoverProb is the probability that a child is a crossover of an
	// elite and a tournament winner rather than a copy of the winner.
	CrossoverProb float64 `json:"crossover_prob"`
	// MutationProb is the probability that a child is mutated; a mutation
	// perturbs a MutationFrac share of the weights of every tensor with
	// Gaussian noise of MutationStd times the tensor's root mean square.
	MutationProb float64 `json:"mutation_prob"`
	MutationFrac float64 `json:"mutation_frac"`
	MutationStd  float64 `json:"mutation_std"`
	// MigrateEvery is the number of generations between migrations of the
	// learner into the population (0: never).
	MigrateEvery int `json:"migrate_every"`
	// LearnerEpisodes is the number of on-policy episodes the learner runs
	// per generation before its update.
	LearnerEpisodes int `json:"learner_episodes"`
	// Shared adds the members' transitions to the learner's update.
	Shared bool `json:"shared"`
}

// DefaultConfig returns the default settings.
func DefaultConfig() Config {
	return Config{
		Population: 10, Generations: 50, EliteFrac: 0.2, CrossoverProb: 0.5,
		MutationProb: 0.9, MutationFrac: 0.1, MutationStd: 0.1,
		MigrateEvery: 1, LearnerEpisodes: 4, Shared: true,
	}
}

// Flags registers the settings on f as flags whose help starts "EGRL:",
// with c's values as defaults.
func (c *Config) Flags(f *pflag.FlagSet) {
	f.IntVar(&c.Population, "population", c.Population, "EGRL: evolved policies (0 = the PPO learner alone)")
	f.IntVar(&c.Generations, "generations", c.Generations, "EGRL: generations to run")
	f.IntVar(&c.MaxSteps, "max-steps", c.MaxSteps, "EGRL: stop once this many environment steps are used (0 = no limit)")
	f.Float64Var(&c.EliteFrac, "elite-frac", c.EliteFrac, "EGRL: share of the population kept unchanged")
	f.Float64Var(&c.CrossoverProb, "crossover-prob", c.CrossoverProb, "EGRL: probability that a child is a crossover of two parents")
	f.Float64Var(&c.MutationProb, "mutation-prob", c.MutationProb, "EGRL: probability that a child is mutated")
	f.Float64Var(&c.MutationFrac, "mutation-frac", c.MutationFrac, "EGRL: share of the weights a mutation perturbs")
	f.Float64Var(&c.MutationStd, "mutation-std", c.MutationStd, "EGRL: mutation noise, relative to each tensor's root mean square")
	f.IntVar(&c.MigrateEvery, "migrate-every", c.MigrateEvery, "EGRL: generations between migrations of the learner into the population (0 = never)")
	f.IntVar(&c.LearnerEpisodes, "learner-episodes", c.LearnerEpisodes, "EGRL: on-policy episodes of the PPO learner per generation")
	f.BoolVar(&c.Shared, "shared-experience", c.Shared, "EGRL: the learner also trains on the population's transitions")
}

// FlagNames lists the flags Flags registers.
func FlagNames() []string {
	return []string{"population", "generations", "max-steps", "elite-frac", "crossover-prob", "mutation-prob",
		"mutation-frac", "mutation-std", "migrate-every", "learner-episodes", "shared-experience"}
}

// Validate reports the first setting out of range, naming its flag.
func (c Config) Validate() error {
	ints := []struct {
		flag string
		v    int
		min  int
	}{
		{"population", c.Population, 0}, {"generations", c.Generations, 1}, {"max-steps", c.MaxSteps, 0},
		{"migrate-every", c.MigrateEvery, 0}, {"learner-episodes", c.LearnerEpisodes, 0},
	}
	for _, p := range ints {
		if p.v < p.min {
			return fmt.Errorf("--%s must be at least %d, got %d", p.flag, p.min, p.v)
		}
	}
	probs := []struct {
		flag string
		v    float64
	}{
		{"elite-frac", c.EliteFrac}, {"crossover-prob", c.CrossoverProb},
		{"mutation-prob", c.MutationProb}, {"mutation-frac", c.MutationFrac},
	}
	for _, p := range probs {
		if !(p.v >= 0 && p.v <= 1) {
			return fmt.Errorf("--%s must be in [0, 1], got %g", p.flag, p.v)
		}
	}
	if !(c.MutationStd >= 0) {
		return fmt.Errorf("--mutation-std must not be negative, got %g", c.MutationStd)
	}
	if c.Population == 0 && c.LearnerEpisodes == 0 {
		return fmt.Errorf("--population 0 and --learner-episodes 0: nothing would run")
	}
	return nil
}

// elites returns the number of elites of a population of n.
func (c Config) elites(n int) int {
	if n == 0 {
		return 0
	}
	return min(n, max(1, int(c.EliteFrac*float64(n)+0.5)))
}
