package egrl

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/gat"
)

func TestEvolutionImprovesOnRandomPopulation(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		cfg := DefaultConfig()
		cfg.Population, cfg.Generations, cfg.LearnerEpisodes, cfg.MigrateEvery = 6, 8, 0, 0
		recs, _ := runAll(t, cfg, smallPPO(seed))
		if len(recs) != cfg.Generations {
			t.Fatalf("seed %d: %d records, want %d", seed, len(recs), cfg.Generations)
		}
		first, last := recs[0], recs[len(recs)-1]
		if first.Evaluated != cfg.Population {
			t.Errorf("seed %d: generation 1 evaluated %d members, want all %d", seed, first.Evaluated, cfg.Population)
		}
		if !(last.MeanFitness > first.MeanFitness+0.1) {
			t.Errorf("seed %d: mean fitness %.3f after %d generations, random population %.3f: no improvement",
				seed, last.MeanFitness, len(recs), first.MeanFitness)
		}
		for i := 1; i < len(recs); i++ {
			if recs[i].BestFitness < recs[i-1].BestFitness {
				t.Errorf("seed %d: best fitness fell from %.3f to %.3f in generation %d although elites are kept",
					seed, recs[i-1].BestFitness, recs[i].BestFitness, i+1)
			}
		}
	}
}

func TestMigrationInsertsLearner(t *testing.T) {
	for _, tc := range []struct {
		name         string
		migrateEvery int
		want         []int // learner_member of generations 1..4
	}{
		{"never", 0, []int{-1, -1, -1, -1}},
		{"every generation", 1, []int{-1, 5, 5, 5}},
		{"every second", 2, []int{-1, -1, 5, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Population, cfg.Generations, cfg.LearnerEpisodes, cfg.MigrateEvery = 6, 4, 1, tc.migrateEvery
			r, err := New(t.TempDir(), cfg, smallPPO(5), chainEnv(t), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got []int
			for g := 1; g <= cfg.Generations; g++ {
				if err := r.generation(context.Background()); err != nil {
					t.Fatal(err)
				}
				// After generation g (not the last), the population is the
				// next one: a migration put the learner's weights in the
				// last slot, as a copy.
				if g < cfg.Generations {
					migrated := tc.migrateEvery > 0 && g%tc.migrateEvery == 0
					last := r.Population()[cfg.Population-1]
					if eq := sameWeights(last, r.Learner().Net()); eq != migrated {
						t.Errorf("after generation %d: last member equals the learner: %v, want %v", g, eq, migrated)
					}
					if migrated && last == r.Learner().Net() {
						t.Errorf("after generation %d: the member is the learner itself, not a copy", g)
					}
				}
			}
			recs, err := ReadMetrics(filepath.Join(r.dir, MetricsFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range recs {
				got = append(got, rec.LearnerMember)
				if rec.LearnerMember >= 0 && math.IsNaN(float64(rec.LearnerFitness)) {
					t.Errorf("generation %d: the migrated learner has no fitness", rec.Generation)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("learner_member per generation %v, want %v", got, tc.want)
			}
		})
	}
}

func sameWeights(a, b *gat.Net) bool {
	pa, pb := a.Params(), b.Params()
	for i := range pa {
		if !slices.Equal(pa[i].Value, pb[i].Value) {
			return false
		}
	}
	return true
}

func TestSeedsReproducible(t *testing.T) {
	run := func(seed uint64) []byte {
		cfg := DefaultConfig()
		cfg.Population, cfg.Generations, cfg.LearnerEpisodes = 4, 3, 2
		dir := t.TempDir()
		r, err := New(dir, cfg, smallPPO(seed), chainEnv(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		r.Close()
		b, err := os.ReadFile(filepath.Join(dir, MetricsFile))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := run(7), run(7), run(8)
	if !bytes.Equal(a, b) {
		t.Errorf("same seed, different metrics:\n%s\n%s", a, b)
	}
	if bytes.Equal(a, c) {
		t.Errorf("seeds 7 and 8 gave identical metrics")
	}
}

func TestStepBudget(t *testing.T) {
	for _, tc := range []struct {
		name       string
		population int
	}{{"egrl", 4}, {"learner alone", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Population, cfg.Generations, cfg.MaxSteps, cfg.LearnerEpisodes = tc.population, 1000, 100, 2
			p := smallPPO(3)
			recs, r := runAll(t, cfg, p)
			last := recs[len(recs)-1]
			if last.Stop != "budget" || r.Steps() < cfg.MaxSteps || r.Steps() >= cfg.MaxSteps+p.Horizon {
				t.Errorf("stopped at %d steps (%q), want the first episode end at or past %d", r.Steps(), last.Stop, cfg.MaxSteps)
			}
			if last.GlobalStep != r.Steps() {
				t.Errorf("record says %d steps, run %d", last.GlobalStep, r.Steps())
			}
			for _, rec := range recs[:len(recs)-1] {
				if rec.Update == nil {
					t.Errorf("generation %d has no learner update", rec.Generation)
				}
			}
			if _, err := gat.LoadFile(filepath.Join(r.dir, BestFile)); err != nil {
				t.Errorf("best policy: %v", err)
			}
			g, initial, best := r.Best()
			if g == nil || best <= 0 || best > initial || float64(last.BestSpeedup) != float64(initial)/float64(best) {
				t.Errorf("best graph %v, latency %v -> %v, record %v", g != nil, initial, best, last.BestSpeedup)
			}
		})
	}
}

func TestElitesKept(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Population, cfg.LearnerEpisodes, cfg.MigrateEvery, cfg.EliteFrac = 6, 0, 0, 0.34
	r, err := New(t.TempDir(), cfg, smallPPO(2), chainEnv(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	old := slices.Clone(r.pop)
	for i, f := range []float64{0.5, 3, 1, 2, 1.5, 0.7} {
		old[i].fitness, old[i].evaluated = f, true
	}
	r.gen = 1
	r.evolve()
	if r.pop[0] != old[1] || r.pop[1] != old[3] {
		t.Errorf("elites are not the two fittest members (fitness 3 and 2) in rank order")
	}
	for i, m := range r.pop[2:] {
		if slices.Contains(old, m) {
			t.Errorf("child %d is a member of the old population, not a new network", i+2)
		}
	}
}

func TestNewRejectsConflictingEnvConfig(t *testing.T) {
	// Fields left 0 take the PPO values (every other test); a field set
	// to another value is named, not overwritten.
	ec := chainEnv(t)
	ec.MaxCandidates = 3
	_, err := New(t.TempDir(), DefaultConfig(), smallPPO(1), ec, Options{})
	if err == nil || !strings.Contains(err.Error(), "env.Config.MaxCandidates") {
		t.Fatalf("error %v, want one naming env.Config.MaxCandidates", err)
	}
}
