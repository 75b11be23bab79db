package train

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/ppo"
)

// Report is what a training run did: how long it trained, the latency of
// the best graph found against the start graph's, the exported graph and
// the files written.
type Report struct {
	// Algo is AlgoPPO or AlgoEGRL, Dir the run directory and Latency the
	// name of the rewards' latency model.
	Algo, Dir, Latency string
	// Episodes and Updates count a PPO run's episodes and updates over
	// all its sessions; Steps counts environment steps.
	Episodes, Updates, Steps int
	// Took is this session's wall time until training ended, preparation
	// included.
	Took time.Duration
	// Initial and Best are the rewards' latency of the start graph and of
	// the best graph found, in episode BestEpisode (0: the start graph;
	// PPO only). Both are zero in a multi-model run, and Best is zero
	// when an EGRL run measured nothing.
	Initial, Best time.Duration
	BestEpisode   int
	// Models holds each model's progress in a multi-model run, sorted by
	// name; such a run exports no graph.
	Models []ppo.ModelStats
	// Measured compares the original and the exported model end to end
	// on the default backend, in the words of pipeline.ReportMeasured.
	Measured string
	// NodesBefore and NodesAfter count the nodes of the original and of
	// the exported model.
	NodesBefore, NodesAfter int
	// Files are the files the run wrote, charts included.
	Files []string
}

// Write prints the report as `xrl train` shows it.
func (r *Report) Write(w io.Writer) error {
	if r.Algo == AlgoEGRL {
		fmt.Fprintf(w, "trained %d environment steps in %v\n", r.Steps, r.Took.Round(time.Second))
		if r.Best > 0 {
			fmt.Fprintf(w, "%s latency of the best graph: %v -> %v (%.3fx)\n", r.Latency,
				r.Initial.Round(time.Microsecond), r.Best.Round(time.Microsecond), float64(r.Initial)/float64(r.Best))
		}
	} else {
		fmt.Fprintf(w, "trained %d episodes (%d updates, %d steps) in %v\n", r.Episodes, r.Updates, r.Steps, r.Took.Round(time.Second))
	}
	switch {
	case len(r.Models) > 0:
		if err := r.writeModels(w); err != nil {
			return err
		}
	case r.Algo != AlgoEGRL:
		from := "the start graph"
		if r.BestEpisode > 0 {
			from = fmt.Sprintf("episode %d", r.BestEpisode)
		}
		fmt.Fprintf(w, "%s latency of the best graph (%s): %v -> %v (%.3fx)\n", r.Latency, from,
			r.Initial.Round(time.Microsecond), r.Best.Round(time.Microsecond), float64(r.Initial)/float64(r.Best))
	}
	if r.Measured != "" {
		fmt.Fprintln(w, r.Measured)
		fmt.Fprintf(w, "nodes: %d -> %d\n", r.NodesBefore, r.NodesAfter)
	}
	_, err := fmt.Fprintf(w, "wrote %s\n", strings.Join(r.Files, ", "))
	return err
}

// writeModels prints the best speedup of each model of a multi-model run.
func (r *Report) writeModels(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "MODEL\tEPISODES\t%s START\tBEST\tSPEEDUP\tBEST EPISODE\n", strings.ToUpper(r.Latency))
	for _, m := range r.Models {
		fmt.Fprintf(tw, "%s\t%d\t%v\t%v\t%.3fx\t%d\n", m.Name, m.Episodes, m.InitialLatency.Round(time.Microsecond),
			m.BestLatency.Round(time.Microsecond), m.Speedup(), m.BestEpisode)
	}
	return tw.Flush()
}

// sortedModels returns the per-model progress of a run sorted by name.
func sortedModels(st ppo.State) []ppo.ModelStats {
	models := append([]ppo.ModelStats(nil), st.Models...)
	sort.SliceStable(models, func(i, j int) bool { return models[i].Name < models[j].Name })
	return models
}

// export folds best, verifies it against the original (one line a
// backend to cfg.Log), writes it as the run's best.onnx and measures it
// against the original end to end, completing rep.
func export(cfg *Config, sp *pipeline.Start, best *graph.Graph, seed uint64, rep *Report) error {
	out, err := sp.Export(cfg.Log, best, filepath.Join(cfg.Dir, BestModelFile), cfg.Tolerance, seed)
	if err != nil {
		return err
	}
	var b strings.Builder
	if err := pipeline.ReportMeasured(&b, sp.Orig, out, cfg.Measurement, seed); err != nil {
		return err
	}
	rep.Measured = strings.TrimSuffix(b.String(), "\n")
	rep.NodesBefore, rep.NodesAfter = len(sp.Orig.Graph.Nodes), len(out.Graph.Nodes)
	return nil
}

// inDir returns the paths of files in dir.
func inDir(dir string, files ...string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Join(dir, f)
	}
	return out
}
