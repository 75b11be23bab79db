package ppo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat"
	"github.com/xrl-dev/xrl/gat/nn"
	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/atomicfile"
	"github.com/xrl-dev/xrl/onnx"
)

// Files of a run directory.
const (
	MetricsFile    = "metrics.jsonl"
	CheckpointFile = "agent.ckpt"
	ConfigFile     = "config.json"
)

// Options are the parts of a trainer that are not hyper-parameters.
type Options struct {
	// Clock returns the time for charts/SPS (default time.Now). It is
	// called once when Run starts and once after every update.
	Clock func() time.Time
	// OnEpisode and OnUpdate, if set, see every record after it is
	// written (for progress displays).
	OnEpisode func(EpisodeRecord)
	OnUpdate  func(UpdateRecord)
	// RunInfo is stored in config.json next to the Config (model path,
	// latency model ...).
	RunInfo map[string]any
}

// State is the trainer's progress, saved in every checkpoint.
type State struct {
	// Episode counts finished episodes, Update finished updates,
	// GlobalStep environment steps.
	Episode, Update, GlobalStep int
	// InitialLatency is the start graph's latency; BestLatency the lowest
	// measured over the run, in episode BestEpisode (0: the start graph).
	InitialLatency, BestLatency time.Duration
	BestEpisode                 int
	// MetricsOffset is the length of metrics.jsonl when the checkpoint
	// was written.
	MetricsOffset int64
	// ActRNG and ShuffleRNG are the states of the generators that sample
	// actions and shuffle minibatches; AdamSteps is Adam's step count.
	ActRNG, ShuffleRNG []byte
	AdamSteps          int
	// Models holds per-model progress of a multi-model run (NewTasks
	// with more than one task), in task order; empty for one model, whose
	// progress is InitialLatency, BestLatency and BestEpisode.
	Models []ModelStats `json:",omitempty"`
}

// Trainer trains a policy with PPO on one environment, or on several
// (NewTasks: one per model, an episode draws one). Create it with New,
// NewTasks, Resume or ResumeTasks, then call Run.
type Trainer struct {
	cfg  Config
	dir  string
	opts Options

	env     *env.Env // the environment of the current (or last) episode
	envs    []*env.Env
	names   []string
	net     *gat.Net
	opt     *nn.Adam[float32]
	actSrc  *rand.PCG
	shufSrc *rand.PCG
	shuf    *rand.Rand
	agent   *TrainingAgent
	st      State

	best      *graph.Graph // nil: no improvement over the start graph yet
	bestBytes []byte       // ONNX encoding of best, for checkpoints
	metrics   *metricsFile
	batch     gat.Batch
}

// New starts a run in dir (created if needed; it must not hold a
// checkpoint already). The environment is ec with Horizon, FeedbackEvery
// and MaxCandidates taken from cfg.
func New(dir string, cfg Config, ec env.Config, opts Options) (*Trainer, error) {
	return NewTasks(dir, cfg, []Task{{Env: ec}}, opts)
}

// NewTasks is New for a run over several models: every episode draws
// one task (see Config.RandomModels). With more than one task, each needs
// a distinct, non-empty Name; metrics name the model of every episode.
func NewTasks(dir string, cfg Config, tasks []Task, opts Options) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkTasks(tasks); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, CheckpointFile)); err == nil {
		return nil, fmt.Errorf("%s already holds a checkpoint: resume it or choose another directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	net, err := gat.New(cfg.NetConfig())
	if err != nil {
		return nil, err
	}
	t := &Trainer{cfg: cfg, dir: dir, opts: opts, net: net}
	t.actSrc = rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)
	t.shufSrc = rand.NewPCG(cfg.Seed, 0xbf58476d1ce4e5b9)
	t.opt = nn.NewAdam[float32](cfg.LearningRate)
	if len(tasks) > 1 {
		for _, tk := range tasks {
			t.st.Models = append(t.st.Models, ModelStats{Name: tk.Name})
		}
	}
	if err := t.init(tasks); err != nil {
		return nil, err
	}
	if err := t.writeConfig(); err != nil {
		return nil, err
	}
	if t.metrics, err = openMetrics(filepath.Join(dir, MetricsFile), 0); err != nil {
		return nil, err
	}
	// A checkpoint of the untrained state lets even a run killed before
	// its first update resume.
	if err := t.checkpoint(); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// Resume continues the run in dir from its checkpoint, with the stored
// Config. episodes > 0 changes the run's length (it may not be below the
// episodes already done). metrics.jsonl is cut back to what the
// checkpoint covers, so episodes run after it are run again, not
// repeated in the stream.
func Resume(dir string, episodes int, ec env.Config, opts Options) (*Trainer, error) {
	return ResumeTasks(dir, episodes, []Task{{Env: ec}}, opts)
}

// ResumeTasks is Resume for a run started with NewTasks: tasks must name
// the same models in the same order, or the run is refused.
func ResumeTasks(dir string, episodes int, tasks []Task, opts Options) (*Trainer, error) {
	if err := checkTasks(tasks); err != nil {
		return nil, err
	}
	ck, err := ReadCheckpoint(filepath.Join(dir, CheckpointFile))
	if err != nil {
		return nil, err
	}
	cfg := ck.Config
	if episodes > 0 {
		if episodes < ck.State.Episode {
			return nil, fmt.Errorf("%s: the run already has %d episodes; cannot shorten it to %d", dir, ck.State.Episode, episodes)
		}
		cfg.Episodes = episodes
	}
	t := &Trainer{cfg: cfg, dir: dir, opts: opts, net: ck.Net, st: ck.State}
	t.actSrc, t.shufSrc = &rand.PCG{}, &rand.PCG{}
	if err := t.actSrc.UnmarshalBinary(ck.State.ActRNG); err != nil {
		return nil, fmt.Errorf("%s: action generator state: %w", dir, err)
	}
	if err := t.shufSrc.UnmarshalBinary(ck.State.ShuffleRNG); err != nil {
		return nil, fmt.Errorf("%s: shuffle generator state: %w", dir, err)
	}
	t.opt = nn.NewAdam[float32](cfg.LearningRate)
	t.opt.Steps = ck.State.AdamSteps
	if ck.adamM != nil {
		t.opt.SetMoments(ck.adamM, ck.adamV)
	}
	if ck.Best != nil {
		t.best, t.bestBytes = ck.Best.Graph, ck.bestBytes
	}
	if err := sameTasks(dir, ck.State.Models, tasks); err != nil {
		return nil, err
	}
	if err := t.init(tasks); err != nil {
		return nil, err
	}
	if episodes > 0 && episodes != ck.Config.Episodes {
		if err := t.writeConfig(); err != nil {
			return nil, err
		}
	}
	if t.metrics, err = openMetrics(filepath.Join(dir, MetricsFile), ck.State.MetricsOffset); err != nil {
		return nil, err
	}
	return t, nil
}

// init builds the environments and the agent.
func (t *Trainer) init(tasks []Task) error {
	for _, tk := range tasks {
		e, err := t.newEnv(tk.Env)
		if err != nil {
			if len(tasks) > 1 {
				return fmt.Errorf("model %s: %w", tk.Name, err)
			}
			return err
		}
		t.envs, t.names = append(t.envs, e), append(t.names, tk.Name)
	}
	t.env = t.envs[0]
	t.opt.Eps = t.cfg.AdamEps
	t.shuf = rand.New(t.shufSrc)
	t.agent = NewTrainingAgent(t.net, t.actSrc)
	return nil
}

// EnvSettings returns ec with the environment settings the PPO
// configuration fixes: Horizon, FeedbackEvery and MaxCandidates. A field
// ec leaves 0 takes the configuration's value; a field set to a different
// value is an error naming it, rather than being overwritten unseen.
func (c Config) EnvSettings(ec env.Config) (env.Config, error) {
	for _, f := range []struct {
		name          string
		given, config int
	}{
		{"Horizon", ec.Horizon, c.Horizon},
		{"FeedbackEvery", ec.FeedbackEvery, c.FeedbackEvery},
		{"MaxCandidates", ec.MaxCandidates, c.MaxCandidates},
	} {
		if f.given != 0 && f.given != f.config {
			return ec, fmt.Errorf("env.Config.%s is %d but the PPO configuration says %d; leave it 0 (the trainer sets it)", f.name, f.given, f.config)
		}
	}
	ec.Horizon, ec.FeedbackEvery, ec.MaxCandidates = c.Horizon, c.FeedbackEvery, c.MaxCandidates
	return ec, nil
}

// newEnv builds one environment with the run's settings.
func (t *Trainer) newEnv(ec env.Config) (*env.Env, error) {
	ec, err := t.cfg.EnvSettings(ec)
	if err != nil {
		return nil, err
	}
	ec.Reward = shapeReward(ec.Reward, t.cfg.StepCost, t.cfg.RewardScale)
	ec.CandidateGains = ec.CandidateGains || t.cfg.CandidateGains
	if ec.NoOpAfter == 0 {
		ec.NoOpAfter = t.cfg.NoOpAfter
	}
	return env.New(ec)
}

func (t *Trainer) writeConfig() error {
	b, err := json.MarshalIndent(struct {
		PPO Config         `json:"ppo"`
		Run map[string]any `json:"run,omitempty"`
	}{t.cfg, t.opts.RunInfo}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(t.dir, ConfigFile), append(b, '\n'))
}

// Config returns the run's configuration.
func (t *Trainer) Config() Config { return t.cfg }

// State returns the run's progress.
func (t *Trainer) State() State { return t.st }

// Net returns the policy network.
func (t *Trainer) Net() *gat.Net { return t.net }

// Env returns the training environment.
func (t *Trainer) Env() *env.Env { return t.env }

// Best returns the fastest graph measured over the run (the start graph
// when nothing beat it) with the start and best latencies. A multi-model
// run keeps no best graph (State.Models has each model's latencies): it
// returns the first model's start graph and zero latencies.
func (t *Trainer) Best() (g *graph.Graph, initial, best time.Duration) {
	g = t.best
	if g == nil {
		g = t.envs[0].Config().Model.Graph
	}
	return g, t.st.InitialLatency, t.st.BestLatency
}

// Close flushes and closes the metrics file.
func (t *Trainer) Close() error {
	if t.metrics == nil {
		return nil
	}
	err := t.metrics.close()
	t.metrics = nil
	return err
}

// episodeSeed derives episode ep's environment seed from the run seed.
func episodeSeed(seed uint64, ep int) uint64 {
	z := seed + uint64(ep)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Run trains until Config.Episodes episodes are done or ctx is cancelled
// (checked between episodes). After a cancellation, Run may be called
// again to continue, or the run resumed later from its last checkpoint. A checkpoint is written after every update; an update
// follows every UpdateEvery episodes and the last episode.
func (t *Trainer) Run(ctx context.Context) error {
	if t.metrics == nil {
		return errors.New("ppo: Run on a closed trainer")
	}
	clock := t.opts.Clock
	if clock == nil {
		clock = time.Now
	}
	windowStart, windowSteps := clock(), 0
	for t.st.Episode < t.cfg.Episodes {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := t.episode()
		if err != nil {
			return err
		}
		windowSteps += rec.Length
		if t.st.Episode%t.cfg.UpdateEvery != 0 && t.st.Episode < t.cfg.Episodes {
			continue
		}
		up, err := t.update(t.agent.Steps)
		if err != nil {
			return err
		}
		t.agent.Steps = nil
		now := clock()
		up.SPS = Float(float64(windowSteps) / now.Sub(windowStart).Seconds())
		windowStart, windowSteps = now, 0
		if err := t.metrics.write(up); err != nil {
			return err
		}
		if t.opts.OnUpdate != nil {
			t.opts.OnUpdate(up)
		}
		if err := t.checkpoint(); err != nil {
			return err
		}
	}
	return nil
}

// episode runs and records one episode.
func (t *Trainer) episode() (EpisodeRecord, error) {
	ep := t.st.Episode + 1
	seed := episodeSeed(t.cfg.Seed, ep)
	task := t.taskOf(ep)
	t.env = t.envs[task]
	first := len(t.agent.Steps)
	res, err := env.Rollout(t.env, t.agent, seed)
	if err != nil {
		if len(t.envs) > 1 {
			return EpisodeRecord{}, fmt.Errorf("episode %d (model %s): %w", ep, t.names[task], err)
		}
		return EpisodeRecord{}, fmt.Errorf("episode %d: %w", ep, err)
	}
	steps := t.agent.Steps[first:]
	if len(t.envs) > 1 {
		return t.finishEpisode(t.multiRecord(ep, task, res), steps)
	}
	if t.st.Episode == 0 {
		t.st.InitialLatency, t.st.BestLatency = res.InitialLatency, res.InitialLatency
	}
	if res.BestLatency < t.st.BestLatency {
		t.st.BestLatency, t.st.BestEpisode = res.BestLatency, ep
		t.best = res.Best
		if t.bestBytes, err = onnx.Encode(t.env.ModelOf(res.Best)); err != nil {
			return EpisodeRecord{}, fmt.Errorf("episode %d: encoding the best graph: %w", ep, err)
		}
	}
	rec := EpisodeRecord{
		Type: "episode", Episode: ep, Seed: seed,
		Return: Float(res.Return), Length: res.Steps,
		InitialLatencyUS: us(res.InitialLatency), FinalLatencyUS: us(res.FinalLatency), BestLatencyUS: us(res.BestLatency),
		Speedup: Float(res.Speedup()), BestSpeedup: Float(ratio(t.st.InitialLatency, t.st.BestLatency)),
		RulesApplied: len(res.Applied), Rules: countRules(res.Applied), StopReason: res.StopReason,
	}
	return t.finishEpisode(rec, steps)
}

// finishEpisode completes rec from the episode's steps, writes it and
// advances the counters.
func (t *Trainer) finishEpisode(rec EpisodeRecord, steps []Sample) (EpisodeRecord, error) {
	t.st.Episode = rec.Episode
	t.st.GlobalStep += len(steps)
	rec.GlobalStep = t.st.GlobalStep
	var cands float64
	for _, s := range steps {
		if s.Info.Measured {
			rec.Measurements++
		}
		cands += float64(len(s.Obs.Candidates))
	}
	if len(steps) > 0 {
		rec.MeanCandidates = Float(cands / float64(len(steps)))
	}
	if err := t.metrics.write(rec); err != nil {
		return rec, err
	}
	if t.opts.OnEpisode != nil {
		t.opts.OnEpisode(rec)
	}
	return rec, nil
}

func us(d time.Duration) Float { return Float(float64(d) / float64(time.Microsecond)) }

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// shapeReward returns (reward - cost) * scale at every step, with
// env.DefaultReward when reward is nil; reward itself for cost 0, scale 1.
// A checkpoint written before RewardScale existed stores 0, read as 1.
func shapeReward(reward env.RewardFunc, cost, scale float64) env.RewardFunc {
	if reward == nil {
		reward = env.DefaultReward
	}
	if scale == 0 {
		scale = 1
	}
	if cost == 0 && scale == 1 {
		return reward
	}
	return func(in env.RewardInput) float64 { return (reward(in) - cost) * scale }
}
