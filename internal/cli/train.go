package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/xrl-dev/xrl/egrl"
	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/ppo"
	"github.com/xrl-dev/xrl/ppo/plots"
)

// Files a training run writes next to ppo's metrics.jsonl, agent.ckpt and
// config.json.
const (
	bestModelFile = "best.onnx"
	costCacheFile = "cost-cache.json"
)

type trainOptions struct {
	execFlags
	IO    IO
	Model string
	// Models are the model files of a multi-model run (the arguments
	// and the files of --corpus), when more than one.
	Models []string
	Corpus string
	PPO    ppo.Config
	// Algo is "ppo" or "egrl"; EGRL holds EGRL's settings.
	Algo      string
	EGRL      egrl.Config
	Out       string
	Resume    bool
	ExpName   string
	Rules     []string
	Tolerance float64
	// set holds the flags given on the command line.
	set map[string]bool
	// stored is the model identity of the run resumed (--resume);
	// storedModels its models when it was a multi-model run.
	stored       modelIdentity
	storedModels []modelEntry
}

// runInfo is what config.json records besides the PPO configuration.
type runInfo struct {
	Model   string   `json:"model"`
	Runtime string   `json:"runtime"`
	Rules   []string `json:"rules,omitempty"`
	ExpName string   `json:"exp_name"`
	modelIdentity
	// Models lists the models of a multi-model run.
	Models []modelEntry `json:"models,omitempty"`
}

// errInterrupted is returned when a signal stopped training.
var errInterrupted = errors.New("training interrupted")

// NewCmdTrain returns `xrl train MODEL.onnx`.
func NewCmdTrain(s IO, runF func(*trainOptions) error) *cobra.Command {
	opts := &trainOptions{IO: s, PPO: ppo.DefaultConfig(), EGRL: egrl.DefaultConfig()}
	c := leaf(&cobra.Command{
		Use:   "train MODEL.onnx... | --corpus DIR",
		Short: "Train a rewriting agent on one model or several with PPO",
		Long: `train runs X-RLflow's reinforcement learning on one model: a graph-attention policy
picks one verified rewrite per step and is trained with PPO (clipped objective, GAE,
defaults from the paper: 1000 episodes, an update every 10, lr 5e-4).

The per-step reward measures latency with --runtime: "cost" (the default: per-op times
measured once on the default backend and summed; fast) or end-to-end measurement on
"ort" or "go" (what the paper does; slow). At the end the fastest graph found is folded,
verified against the original and written as best.onnx, and its latency is measured
end to end on the default backend.

The run directory (--out, default runs/MODEL__EXP__SEED__UNIXTIME) receives
metrics.jsonl (CleanRL's metric names), agent.ckpt (rewritten atomically after every
update), config.json, best.onnx and return.png, speedup.png and rules.png. A run that
was stopped (Ctrl-C, a crash, a reboot) continues with --out DIR --resume and appends
to the same metric stream; --episodes may then extend it.

The paper's 1000 episodes take hours on a large model; the progress line on stderr
shows the time left. Try --episodes 50 first.

Several model files, or --corpus DIR (every .onnx file in DIR), train one agent
across models: episode i draws a model round robin (or at random with
--random-models), the reward of X-RLflow's Eq. 2 is relative to that model's start
latency so large models do not dominate, metrics.jsonl names each episode's model
and speedup.png draws one line per model. No best.onnx is written; the report lists
each model's best speedup. --resume refuses another set of models.`,
		Args: cobra.ArbitraryArgs,
	}, opts, func(c *cobra.Command, args []string) error {
		models, err := modelArgs(args, opts.Corpus)
		if err != nil {
			return err
		}
		opts.Model = models[0]
		if len(models) > 1 {
			opts.Models = models
		}
		opts.set = map[string]bool{}
		c.Flags().Visit(func(f *pflag.Flag) { opts.set[f.Name] = true })
		if err := opts.PPO.Validate(); err != nil {
			return usagef("%v", err)
		}
		if err := opts.validateAlgo(); err != nil {
			return err
		}
		if opts.Resume && opts.Out == "" {
			return usagef("--resume needs --out: the run directory to continue")
		}
		if opts.Resume {
			for _, name := range ppo.FlagNames() {
				if opts.set[name] && name != "episodes" {
					return usagef("--%s cannot change on --resume: the run continues with the configuration in its checkpoint (only --episodes may extend it)", name)
				}
			}
		}
		if opts.ExpName == "" || strings.ContainsAny(opts.ExpName, `/\`) {
			return usagef("--exp-name %q: want a non-empty name without slashes", opts.ExpName)
		}
		if opts.Tolerance <= 0 {
			return usagef("--tolerance must be positive, got %g", opts.Tolerance)
		}
		return opts.Runtime.validate(true)
	}, runF, trainRun)
	f := opts.bindExec(c, true)
	f.Lookup("runtime").Usage = "latency model of the rewards: cost, ort or go (default cost; the final report measures on ort when installed, else go)"
	f.StringVar(&opts.Out, "out", "", "run directory (default runs/MODEL__EXP__SEED__UNIXTIME)")
	f.StringVar(&opts.Corpus, "corpus", "", "train across every .onnx model in this directory (with the model arguments, if any)")
	f.BoolVar(&opts.Resume, "resume", false, "continue the run in --out from its last checkpoint")
	f.StringVar(&opts.ExpName, "exp-name", "ppo", "experiment name used in the default run directory")
	f.StringSliceVar(&opts.Rules, "rules", nil, "only use these rules (default: all)")
	f.Float64Var(&opts.Tolerance, "tolerance", 1e-4, "largest relative error accepted when verifying best.onnx")
	opts.PPO.Flags(f)
	f.StringVar(&opts.Algo, "algo", "ppo", "training algorithm: ppo, or egrl (an evolving population of policies with a PPO learner; one model, no --resume)")
	opts.EGRL.Flags(f)
	return c
}

// rewardRuntime returns the latency model used for rewards.
func (o *trainOptions) rewardRuntime() string {
	if o.Runtime.Runtime == "" {
		return "cost"
	}
	return o.Runtime.Runtime
}

// runDir returns the run directory, naming a new one CleanRL-style.
func (o *trainOptions) runDir(now time.Time) string {
	if o.Out != "" {
		return o.Out
	}
	model := strings.TrimSuffix(filepath.Base(o.Model), filepath.Ext(o.Model))
	if len(o.Models) > 1 {
		model = "multi"
		if o.Corpus != "" {
			model = filepath.Base(filepath.Clean(o.Corpus))
		}
	}
	return filepath.Join("runs", fmt.Sprintf("%s__%s__%d__%d", model, o.ExpName, o.PPO.Seed, now.Unix()))
}

// resumeInfo reconciles the flags with a stored run's config.json.
func (o *trainOptions) resumeInfo(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, ppo.ConfigFile))
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	var stored struct {
		Run runInfo `json:"run"`
	}
	if err := json.Unmarshal(b, &stored); err != nil {
		return fmt.Errorf("--resume: %s: %w", filepath.Join(dir, ppo.ConfigFile), err)
	}
	if o.set["runtime"] && o.rewardRuntime() != stored.Run.Runtime {
		return usagef("--runtime %s: the run was trained with %s rewards", o.rewardRuntime(), stored.Run.Runtime)
	}
	if o.set["rules"] && !slices.Equal(o.Rules, stored.Run.Rules) {
		return usagef("--rules cannot change on --resume (the run uses %v)", stored.Run.Rules)
	}
	o.Runtime.Runtime, o.Rules = stored.Run.Runtime, stored.Run.Rules
	o.stored = stored.Run.modelIdentity
	o.storedModels = stored.Run.Models
	return nil
}

func trainRun(o *trainOptions) (err error) {
	if o.Algo == "egrl" {
		return trainEGRLRun(o)
	}
	start := time.Now()
	dir := o.runDir(start)
	if o.Resume {
		if err := o.resumeInfo(dir); err != nil {
			return err
		}
	}
	if len(o.Models) > 1 {
		return trainMultiRun(o, dir, start)
	}
	sp, err := prepareStart(o.Model, &o.Shapes, o.Rules)
	if err != nil {
		return err
	}
	startModel := sp.Model
	id := identify(sp.Orig.Graph)
	if len(o.storedModels) > 0 {
		return fmt.Errorf("--resume: the run in %s was trained on %d models; it cannot continue on %s alone", dir, len(o.storedModels), o.Model)
	}
	if err := o.stored.sameModel(id, o.Model, dir); err != nil {
		return err
	}
	ts, err := o.openSession(dir, start, []ppo.Task{{Env: env.Config{Model: startModel, Rewriter: sp.Engine}}},
		map[string]any{"model": o.Model, "graph_hash": id.GraphHash, "input_shapes": id.InputShapes})
	if err != nil {
		return err
	}
	defer func() { ts.close(err) }()
	w, tr, lm := o.IO.Out, ts.tr, ts.lm
	cfg := tr.Config()
	fmt.Fprintf(w, "%s %s (%d nodes): %d episodes, %s latency rewards every %d steps, run directory %s\n",
		ts.verb, o.Model, len(startModel.Graph.Nodes), cfg.Episodes, lm.Name(), cfg.FeedbackEvery, dir)
	if err := o.run(tr, ts.prog, dir, o.Model); err != nil {
		return err
	}
	trainTime := time.Since(start)
	return o.finish(w, dir, sp, tr, lm.Name(), trainTime)
}

// trainerOptions returns the progress display and the trainer options
// that drive it (*tr is the trainer once created; *episodes counts this
// session's episodes).
func (o *trainOptions) trainerOptions(start time.Time, tr **ppo.Trainer, episodes *int, info map[string]any) (*progress, ppo.Options) {
	w := o.IO.Out
	prog := newProgress(o.IO.Err, "train")
	topts := ppo.Options{RunInfo: info}
	topts.OnEpisode = func(r ppo.EpisodeRecord) {
		*episodes++
		total := (*tr).Config().Episodes
		per := time.Since(start) / time.Duration(*episodes)
		eta := per * time.Duration(total-r.Episode)
		model := ""
		if r.Model != "" {
			model = " " + r.Model
		}
		prog.update("episode %d/%d %s%s return %.2f, best %.3fx, %v/episode, ETA %v",
			r.Episode, total, bar(r.Episode, total, 20), model, float64(r.Return), float64(r.BestSpeedup),
			per.Round(time.Millisecond), eta.Round(time.Second))
	}
	topts.OnUpdate = func(u ppo.UpdateRecord) {
		prog.done()
		fmt.Fprintf(w, "update %d: episode %d, step %d, policy loss %.4f, value loss %.3f, entropy %.3f, approx_kl %.4f, clipfrac %.3f, SPS %.1f\n",
			u.Update, u.Episode, u.GlobalStep, float64(u.PolicyLoss), float64(u.ValueLoss), float64(u.Entropy),
			float64(u.ApproxKL), float64(u.ClipFrac), float64(u.SPS))
		prog.last = time.Time{} // redraw at the next episode
	}
	return prog, topts
}

// run trains until the end or a signal, then closes tr; args is how the
// models were named on the command line (for the resume hint).
func (o *trainOptions) run(tr *ppo.Trainer, prog *progress, dir, args string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C ends the process at once
	}()
	runErr := tr.Run(ctx)
	prog.done()
	if errors.Is(runErr, context.Canceled) {
		st := tr.State()
		fmt.Fprintf(o.IO.Err, "stopped after episode %d; the checkpoint holds update %d. Continue with:\n  xrl train %s --out %s --resume\n",
			st.Episode, st.Update, args, dir)
		return errInterrupted
	}
	if runErr != nil {
		return runErr
	}
	return tr.Close()
}

// openTrainer starts the trainer of tasks in dir, or resumes it with
// --resume; verb describes which for the report.
func (o *trainOptions) openTrainer(dir string, tasks []ppo.Task, topts ppo.Options) (*ppo.Trainer, string, error) {
	if !o.Resume {
		tr, err := ppo.NewTasks(dir, o.PPO, tasks, topts)
		return tr, "training", err
	}
	tr, err := ppo.ResumeTasks(dir, episodesFlag(o), tasks, topts)
	if err != nil {
		return nil, "", err
	}
	return tr, fmt.Sprintf("resuming at episode %d of", tr.State().Episode), nil
}

// trainSession is an open training run: the rewards' latency model and the
// trainer of its tasks.
type trainSession struct {
	lm   measure.LatencyModel
	tr   *ppo.Trainer
	prog *progress
	// verb is "training" or "resuming at episode N of".
	verb string
	// episodes counts the episodes run in this session.
	episodes int
	cleanup  func(err error, episodes int)
}

// openSession creates the run directory (or reopens it with --resume), the
// rewards' latency model and the trainer of tasks; info adds to the run's
// recorded settings. The caller must call close with the run's error.
func (o *trainOptions) openSession(dir string, start time.Time, tasks []ppo.Task, info map[string]any) (*trainSession, error) {
	lm, cleanup, err := o.openRun(dir)
	if err != nil {
		return nil, err
	}
	ts := &trainSession{lm: lm, cleanup: cleanup}
	for i := range tasks {
		tasks[i].Env.Latency = lm
	}
	info["runtime"], info["rules"], info["exp_name"] = lm.Name(), o.Rules, o.ExpName
	prog, topts := o.trainerOptions(start, &ts.tr, &ts.episodes, info)
	ts.prog = prog
	ts.tr, ts.verb, err = o.openTrainer(dir, tasks, topts)
	if err != nil {
		cleanup(err, 0)
		return nil, err
	}
	return ts, nil
}

// close closes the trainer and, when err ends a session that ran no
// episode, removes a run directory the session created.
func (ts *trainSession) close(err error) {
	ts.tr.Close()
	ts.cleanup(err, ts.episodes)
}

// openRun creates the run directory and the rewards' latency model. The
// returned cleanup removes what was created when the run failed before
// its first episode (episodes counts this session's).
func (o *trainOptions) openRun(dir string) (measure.LatencyModel, func(err error, episodes int), error) {
	created, err := makeRunDir(dir)
	if err != nil {
		return nil, nil, err
	}
	cleanup := func(err error, episodes int) {
		if err != nil && !errors.Is(err, errInterrupted) && episodes == 0 {
			removeRunDir(created)
		}
	}
	lm, err := o.latencyModel(dir)
	if err != nil {
		cleanup(err, 0)
		return nil, nil, err
	}
	return lm, cleanup, nil
}

// episodesFlag returns --episodes when given (0 otherwise).
func episodesFlag(o *trainOptions) int {
	if o.set["episodes"] {
		return o.PPO.Episodes
	}
	return 0
}

// latencyModel returns the reward's latency model; the cost model keeps
// its per-op times in the run directory, so a resumed run sees the same
// costs.
func (o *trainOptions) latencyModel(dir string) (measure.LatencyModel, error) {
	name := o.rewardRuntime()
	if name == "cost" {
		return measure.NewCostModel(measure.CostOptions{Backend: o.Runtime.backendOptions(), CacheFile: filepath.Join(dir, costCacheFile)})
	}
	return measure.NewLatencyModel(name, o.Runtime.backendOptions(), o.Runtime.measureOptions())
}

// finish exports, verifies and reports the best graph and draws the
// charts.
func (o *trainOptions) finish(w io.Writer, dir string, sp *pipeline.Start, tr *ppo.Trainer, latName string, trainTime time.Duration) error {
	bestG, initial, best := tr.Best()
	bestPath := filepath.Join(dir, bestModelFile)
	out, err := sp.Export(w, bestG, bestPath, o.Tolerance, tr.Config().Seed)
	if err != nil {
		return err
	}
	st := tr.State()
	fmt.Fprintf(w, "trained %d episodes (%d updates, %d steps) in %v\n", st.Episode, st.Update, st.GlobalStep, trainTime.Round(time.Second))
	from := "the start graph"
	if st.BestEpisode > 0 {
		from = fmt.Sprintf("episode %d", st.BestEpisode)
	}
	fmt.Fprintf(w, "%s latency of the best graph (%s): %v -> %v (%.3fx)\n", latName, from,
		initial.Round(time.Microsecond), best.Round(time.Microsecond), float64(initial)/float64(best))
	if err := pipeline.ReportMeasured(w, sp.Orig, out, o.Runtime.measurement(), tr.Config().Seed); err != nil {
		return err
	}
	fmt.Fprintf(w, "nodes: %d -> %d\n", len(sp.Orig.Graph.Nodes), len(out.Graph.Nodes))
	files, err := plots.WriteAll(dir)
	if err != nil {
		return err
	}
	files = append([]string{filepath.Join(dir, ppo.MetricsFile), filepath.Join(dir, ppo.CheckpointFile),
		filepath.Join(dir, ppo.ConfigFile), bestPath}, files...)
	fmt.Fprintf(w, "wrote %s\n", strings.Join(files, ", "))
	return nil
}

// bar draws a text progress bar of width cells.
func bar(done, total, width int) string {
	if total <= 0 {
		return ""
	}
	n := min(width, done*width/total)
	return "[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "]"
}
