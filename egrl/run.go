package egrl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/atomicfile"
	"github.com/xrl-dev/xrl/ppo"
)

// Options are the parts of a run that are not hyper-parameters.
type Options struct {
	// OnGeneration, if set, sees every record after it is written.
	OnGeneration func(GenerationRecord)
	// RunInfo is stored in config.json next to the configurations.
	RunInfo map[string]any
}

// member is one policy of the population.
type member struct {
	net       *gat.Net
	fitness   float64
	evaluated bool
	// learnerGen is the generation whose migration put this member's
	// weights in the population unchanged (0: not a migrated learner).
	learnerGen int
}

// Run is one EGRL run on one environment. Create it with New, then call
// Run; Close releases the metrics file.
type Run struct {
	cfg  Config
	pcfg ppo.Config
	dir  string
	opts Options
	env  *env.Env

	rng     *rand.Rand // genetic operators
	pop     []*member
	learner *ppo.Learner
	agent   *ppo.TrainingAgent

	gen, steps, episodes int
	learnerMember        int
	initial, bestLat     time.Duration
	best                 *graph.Graph
	metrics              *metricsWriter
	done                 bool
}

// New starts a run in dir (created if needed). The environment is ec
// with Horizon, FeedbackEvery and MaxCandidates taken from pcfg
// (ppo.Config.EnvSettings: ec must leave them 0 or agree), which also
// gives the learner's PPO settings, the network shape and the seed.
func New(dir string, cfg Config, pcfg ppo.Config, ec env.Config, opts Options) (*Run, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := pcfg.Validate(); err != nil {
		return nil, err
	}
	ec, err := pcfg.EnvSettings(ec)
	if err != nil {
		return nil, err
	}
	e, err := env.New(ec)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &Run{cfg: cfg, pcfg: pcfg, dir: dir, opts: opts, env: e, learnerMember: -1}
	r.rng = rand.New(rand.NewPCG(pcfg.Seed, 0x94d049bb133111eb))
	lnet, err := gat.New(pcfg.NetConfig())
	if err != nil {
		return nil, err
	}
	if r.learner, err = ppo.NewLearner(lnet, pcfg, pcfg.Seed); err != nil {
		return nil, err
	}
	r.agent = ppo.NewTrainingAgent(lnet, rand.NewPCG(pcfg.Seed, 0x9e3779b97f4a7c15))
	for i := 0; i < cfg.Population; i++ {
		nc := pcfg.NetConfig()
		nc.Seed = mix(pcfg.Seed, uint64(i)+1)
		net, err := gat.New(nc)
		if err != nil {
			return nil, err
		}
		r.pop = append(r.pop, &member{net: net})
	}
	if err := r.writeConfig(); err != nil {
		return nil, err
	}
	if r.metrics, err = createMetrics(filepath.Join(dir, MetricsFile)); err != nil {
		return nil, err
	}
	return r, nil
}

// writeConfig writes config.json: both configurations and the caller's
// run information.
func (r *Run) writeConfig() error {
	doc := map[string]any{"egrl": r.cfg, "ppo": r.pcfg}
	if len(r.opts.RunInfo) > 0 {
		doc["run"] = r.opts.RunInfo
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(r.dir, ConfigFile), append(b, '\n'))
}

// mix derives a seed from seed and k: the first output of a PCG
// generator seeded with both.
func mix(seed, k uint64) uint64 { return rand.NewPCG(seed, k).Uint64() }

// Close flushes and closes the metrics file.
func (r *Run) Close() (err error) {
	if m := r.metrics; m != nil {
		r.metrics = nil
		err = m.close()
	}
	return err
}

// Env returns the run's environment.
func (r *Run) Env() *env.Env { return r.env }

// Steps returns the environment steps used so far.
func (r *Run) Steps() int { return r.steps }

// Learner returns the PPO learner.
func (r *Run) Learner() *ppo.Learner { return r.learner }

// Population returns the members' networks, in the order of the last
// generation's evaluation (the next generation's after Run returns
// early, before its evaluation).
func (r *Run) Population() []*gat.Net {
	out := make([]*gat.Net, len(r.pop))
	for i, m := range r.pop {
		out[i] = m.net
	}
	return out
}

// Best returns the fastest graph measured over the run (the start graph
// when nothing beat it) with the start and best latencies.
func (r *Run) Best() (g *graph.Graph, initial, best time.Duration) {
	g = r.best
	if g == nil {
		g = r.env.Config().Model.Graph
	}
	return g, r.initial, r.bestLat
}

// BestPolicy returns the top-ranked member (the learner with an empty
// population), the policy EGRL deploys.
func (r *Run) BestPolicy() *gat.Net {
	if len(r.pop) == 0 {
		return r.learner.Net()
	}
	best := r.pop[0]
	for _, m := range r.pop[1:] {
		if m.evaluated && (!best.evaluated || m.fitness > best.fitness) {
			best = m
		}
	}
	return best.net
}

// budgetUsed reports whether MaxSteps is spent.
func (r *Run) budgetUsed() bool { return r.cfg.MaxSteps > 0 && r.steps >= r.cfg.MaxSteps }

// Run evolves until Config.Generations generations are done, MaxSteps
// is used, or ctx is cancelled (checked between episodes). It writes the
// policies after every generation.
func (r *Run) Run(ctx context.Context) error {
	if r.metrics == nil {
		return errors.New("egrl: Run on a closed run")
	}
	for !r.done && r.gen < r.cfg.Generations {
		if err := r.generation(ctx); err != nil {
			return err
		}
		if err := r.savePolicies(); err != nil {
			return err
		}
	}
	return nil
}

// rollout runs one episode and accounts for its steps and best graph.
func (r *Run) rollout(a env.Agent, seed uint64) (env.Episode, error) {
	ep, err := env.Rollout(r.env, a, seed)
	if err != nil {
		return ep, fmt.Errorf("generation %d, episode %d: %w", r.gen, r.episodes+1, err)
	}
	r.episodes++
	r.steps += ep.Steps
	if r.initial == 0 {
		r.initial, r.bestLat = ep.InitialLatency, ep.InitialLatency
	}
	if ep.BestLatency > 0 && ep.BestLatency < r.bestLat {
		r.bestLat, r.best = ep.BestLatency, ep.Best
	}
	return ep, nil
}

// recorder is a member's agent: greedy with its network, keeping every
// transition for the learner.
type recorder struct {
	env.Agent
	trs []env.Transition
}

// Observe implements env.Learner.
func (a *recorder) Observe(t env.Transition) error {
	a.trs = append(a.trs, t)
	return nil
}

// generation runs one generation: evaluation, learner, selection and
// migration.
func (r *Run) generation(ctx context.Context) error {
	r.gen++
	rec := GenerationRecord{Type: "generation", Generation: r.gen, LearnerMember: r.learnerMember,
		LearnerFitness: ppo.Float(math.NaN()), LearnerSpeedup: ppo.Float(math.NaN()), LearnerReturn: ppo.Float(math.NaN())}
	evalSeed := mix(r.pcfg.Seed, 0)
	var shared []env.Transition
	for _, m := range r.pop {
		if m.evaluated {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.budgetUsed() {
			break
		}
		a := &recorder{Agent: gat.NewPolicyAgent(m.net, evalSeed, true)}
		ep, err := r.rollout(a, evalSeed)
		if err != nil {
			return err
		}
		m.fitness, m.evaluated = ep.Speedup(), true
		rec.Evaluated++
		shared = append(shared, a.trs...)
	}
	if r.learnerMember >= 0 && r.pop[r.learnerMember].evaluated {
		rec.LearnerFitness = ppo.Float(r.pop[r.learnerMember].fitness)
	}
	if err := r.learn(ctx, &rec, shared); err != nil {
		return err
	}
	r.summarise(&rec)
	if r.budgetUsed() {
		rec.Stop, r.done = "budget", true
	}
	if err := r.metrics.write(rec); err != nil {
		return err
	}
	if r.opts.OnGeneration != nil {
		r.opts.OnGeneration(rec)
	}
	if !r.done && r.gen < r.cfg.Generations {
		r.evolve()
	}
	return nil
}

// learn runs the learner's episodes and its update.
func (r *Run) learn(ctx context.Context, rec *GenerationRecord, shared []env.Transition) error {
	var sumSpeed, sumRet float64
	n := 0
	for k := 0; k < r.cfg.LearnerEpisodes && !r.budgetUsed(); k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		ep, err := r.rollout(r.agent, mix(r.pcfg.Seed, uint64(r.episodes)+1<<32))
		if err != nil {
			return err
		}
		sumSpeed += ep.Speedup()
		sumRet += ep.Return
		n++
	}
	if n > 0 {
		rec.LearnerSpeedup, rec.LearnerReturn = ppo.Float(sumSpeed/float64(n)), ppo.Float(sumRet/float64(n))
	}
	samples := r.agent.Steps
	r.agent.Steps = nil
	rec.LearnerSteps = len(samples)
	if r.cfg.Shared && len(shared) > 0 {
		more, err := r.learner.Relabel(shared)
		if err != nil {
			return fmt.Errorf("generation %d: %w", r.gen, err)
		}
		samples = append(samples, more...)
		rec.SharedSteps = len(more)
	}
	if r.budgetUsed() || len(samples) == 0 {
		return nil // the run ends here: an update would not be used
	}
	up, err := r.learner.Update(samples)
	if err != nil {
		return fmt.Errorf("generation %d: %w", r.gen, err)
	}
	up.Episode, up.GlobalStep = r.episodes, r.steps
	rec.Update = &up
	return nil
}

// summarise fills in the record's fitness and latency fields.
func (r *Run) summarise(rec *GenerationRecord) {
	rec.GlobalStep, rec.Episodes = r.steps, r.episodes
	rec.BestFitness, rec.MeanFitness, rec.BestMember = ppo.Float(math.NaN()), ppo.Float(math.NaN()), -1
	var sum float64
	n := 0
	for i, m := range r.pop {
		if !m.evaluated {
			continue
		}
		sum += m.fitness
		n++
		if rec.BestMember < 0 || m.fitness > float64(rec.BestFitness) {
			rec.BestMember, rec.BestFitness = i, ppo.Float(m.fitness)
		}
	}
	if n > 0 {
		rec.MeanFitness = ppo.Float(sum / float64(n))
		rec.BestIsLearner = r.pop[rec.BestMember].learnerGen > 0
	}
	us := func(d time.Duration) ppo.Float { return ppo.Float(float64(d) / float64(time.Microsecond)) }
	rec.InitialLatencyUS, rec.BestLatencyUS = us(r.initial), us(r.bestLat)
	rec.BestSpeedup = ppo.Float(math.NaN())
	if r.bestLat > 0 {
		rec.BestSpeedup = ppo.Float(float64(r.initial) / float64(r.bestLat))
	}
}

// evolve replaces the population by the next generation: elites kept,
// the other slots filled with children, and the learner migrated into
// the last slot every MigrateEvery generations.
func (r *Run) evolve() {
	n := len(r.pop)
	r.learnerMember = -1
	if n == 0 {
		return
	}
	order := make([]int, n)
	fit := make([]float64, n)
	for i, m := range r.pop {
		order[i], fit[i] = i, m.fitness
	}
	sort.SliceStable(order, func(a, b int) bool { return fit[order[a]] > fit[order[b]] })
	e := r.cfg.elites(n)
	next := make([]*member, 0, n)
	for _, i := range order[:e] {
		next = append(next, r.pop[i])
	}
	for len(next) < n {
		a, b := r.pop[order[r.rng.IntN(e)]], r.pop[tournament(fit, r.rng)]
		child := &member{}
		changed := false
		if r.rng.Float64() < r.cfg.CrossoverProb {
			child.net, changed = crossover(a.net, b.net, r.rng), true
		} else {
			child.net = b.net.Clone()
		}
		if r.rng.Float64() < r.cfg.MutationProb {
			mutate(child.net, r.cfg.MutationFrac, r.cfg.MutationStd, r.rng)
			changed = true
		}
		if !changed { // an exact copy keeps its parent's fitness
			child.fitness, child.evaluated, child.learnerGen = b.fitness, b.evaluated, b.learnerGen
		}
		next = append(next, child)
	}
	if r.cfg.MigrateEvery > 0 && r.gen%r.cfg.MigrateEvery == 0 {
		r.learnerMember = n - 1
		next[n-1] = &member{net: r.learner.Net().Clone(), learnerGen: r.gen}
	}
	r.pop = next
}

// savePolicies writes the top-ranked member and the learner.
func (r *Run) savePolicies() error {
	if err := r.BestPolicy().SaveFile(filepath.Join(r.dir, BestFile)); err != nil {
		return err
	}
	return r.learner.Net().SaveFile(filepath.Join(r.dir, LearnerFile))
}
