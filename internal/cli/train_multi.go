package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/ppo"
	"github.com/xrl-dev/xrl/ppo/plots"
)

// modelEntry is one model of a multi-model run as config.json records it.
type modelEntry struct {
	Name string `json:"name"`
	Path string `json:"path"`
	modelIdentity
}

// modelArgs returns the model files of `xrl train`: the arguments, then
// the .onnx files of corpus (sorted).
func modelArgs(args []string, corpus string) ([]string, error) {
	models := append([]string(nil), args...)
	if corpus != "" {
		entries, err := os.ReadDir(corpus)
		if err != nil {
			return nil, usagef("--corpus: %v", err)
		}
		n := 0
		for _, e := range entries {
			if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".onnx") {
				models = append(models, filepath.Join(corpus, e.Name()))
				n++
			}
		}
		if n == 0 {
			return nil, usagef("--corpus %s: no .onnx files", corpus)
		}
	}
	if len(models) == 0 {
		return nil, usagef("give a model file, several, or --corpus DIR")
	}
	return models, nil
}

// modelName is a model's name in a multi-model run: its file name without
// the extension.
func modelName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// bindFor returns the --shape bindings (all) of the inputs the model at
// path has with a dynamic shape, marking their names in used: in a
// multi-model run a --shape binds that input in every model where it is
// not static already.
func bindFor(path string, all map[string][]int, used map[string]bool) (map[string][]int, error) {
	if len(all) == 0 {
		return nil, nil
	}
	m, err := pipeline.ReadModel(path)
	if err != nil {
		return nil, err
	}
	out := map[string][]int{}
	for _, in := range m.Graph.Inputs {
		if dims, ok := all[in.Name]; ok && in.Const == nil && !in.Shape.Static() {
			out[in.Name], used[in.Name] = dims, true
		}
	}
	return out, nil
}

// sameModels refuses to resume a multi-model run on other models.
func sameModels(stored, got []modelEntry, dir string) error {
	if len(stored) == 0 {
		return nil
	}
	names := func(es []modelEntry) string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.Name
		}
		return strings.Join(out, ", ")
	}
	if names(stored) != names(got) {
		return fmt.Errorf("--resume: the run in %s was trained on the models %s; it cannot continue on %s", dir, names(stored), names(got))
	}
	for i := range stored {
		if err := stored[i].sameModel(got[i].modelIdentity, got[i].Path, dir); err != nil {
			return err
		}
	}
	return nil
}

// trainMultiRun trains one agent across o.Models.
func trainMultiRun(o *trainOptions, dir string, start time.Time) (err error) {
	all, err := o.Shapes.bindings()
	if err != nil {
		return err
	}
	used := map[string]bool{}
	seen := map[string]string{}
	var entries []modelEntry
	var tasks []ppo.Task
	nodes := 0
	for _, path := range o.Models {
		name := modelName(path)
		if prev, dup := seen[name]; dup {
			return usagef("%s and %s have the same name %q: a multi-model run names models by file name", prev, path, name)
		}
		seen[name] = path
		bind, err := bindFor(path, all, used)
		if err != nil {
			return err
		}
		sp, err := pipeline.Prepare(path, bind, o.Rules)
		if err != nil {
			return flagError(err)
		}
		entries = append(entries, modelEntry{Name: name, Path: path, modelIdentity: identify(sp.Orig.Graph)})
		tasks = append(tasks, ppo.Task{Name: name, Env: env.Config{Model: sp.Model, Rewriter: sp.Engine}})
		nodes += len(sp.Model.Graph.Nodes)
	}
	for name := range all {
		if !used[name] {
			return usagef("--shape %s: no model has a dynamic input named %q", name, name)
		}
	}
	if o.Resume && len(o.storedModels) == 0 {
		return fmt.Errorf("--resume: the run in %s was trained on one model (%s); it cannot continue on %d models", dir, o.stored.GraphHash[:min(12, len(o.stored.GraphHash))], len(entries))
	}
	if err := sameModels(o.storedModels, entries, dir); err != nil {
		return err
	}
	// One latency model for all: its cache is shared.
	ts, err := o.openSession(dir, start, tasks, map[string]any{"models": entries})
	if err != nil {
		return err
	}
	defer func() { ts.close(err) }()
	w, tr, lm := o.IO.Out, ts.tr, ts.lm
	cfg := tr.Config()
	order := "round robin"
	if cfg.RandomModels {
		order = "drawn at random"
	}
	fmt.Fprintf(w, "%s %d models (%d nodes in all, %s): %d episodes, %s latency rewards every %d steps, run directory %s\n",
		ts.verb, len(tasks), nodes, order, cfg.Episodes, lm.Name(), cfg.FeedbackEvery, dir)
	if err := o.run(tr, ts.prog, dir, o.argsHint()); err != nil {
		return err
	}
	return finishMulti(w, dir, tr, lm.Name(), time.Since(start))
}

// argsHint is how the models were given, for the resume hint.
func (o *trainOptions) argsHint() string {
	if o.Corpus != "" {
		return "--corpus " + o.Corpus
	}
	return strings.Join(o.Models, " ")
}

// finishMulti reports each model's best speedup and draws the charts.
func finishMulti(w io.Writer, dir string, tr *ppo.Trainer, latName string, trainTime time.Duration) error {
	st := tr.State()
	fmt.Fprintf(w, "trained %d episodes (%d updates, %d steps) in %v\n", st.Episode, st.Update, st.GlobalStep, trainTime.Round(time.Second))
	models := append([]ppo.ModelStats(nil), st.Models...)
	sort.SliceStable(models, func(i, j int) bool { return models[i].Name < models[j].Name })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "MODEL\tEPISODES\t%s START\tBEST\tSPEEDUP\tBEST EPISODE\n", strings.ToUpper(latName))
	for _, m := range models {
		fmt.Fprintf(tw, "%s\t%d\t%v\t%v\t%.3fx\t%d\n", m.Name, m.Episodes, m.InitialLatency.Round(time.Microsecond),
			m.BestLatency.Round(time.Microsecond), m.Speedup(), m.BestEpisode)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	files, err := plots.WriteAll(dir)
	if err != nil {
		return err
	}
	files = append([]string{filepath.Join(dir, ppo.MetricsFile), filepath.Join(dir, ppo.CheckpointFile),
		filepath.Join(dir, ppo.ConfigFile)}, files...)
	fmt.Fprintf(w, "wrote %s\n", strings.Join(files, ", "))
	return nil
}
