package egrl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/xrl-dev/xrl/ppo"
)

// Files of a run directory.
const (
	MetricsFile = "metrics.jsonl"
	ConfigFile  = "config.json"
	BestFile    = "best.gat"
	LearnerFile = "learner.gat"
)

// GenerationRecord is the metrics line written after every generation.
// Names follow ppo's records where the quantity is the same
// (global_step, charts/best_speedup, latency/...); EGRL's own quantities
// use the evolve/ and learner/ prefixes.
type GenerationRecord struct {
	Type       string `json:"type"` // "generation"
	Generation int    `json:"generation"`
	// GlobalStep counts environment steps over the run (members and
	// learner), Episodes the episodes.
	GlobalStep int `json:"global_step"`
	Episodes   int `json:"episodes"`
	// Evaluated is the number of members that ran an episode in this
	// generation (the others kept their fitness).
	Evaluated int `json:"evolve/evaluated"`
	// BestFitness and MeanFitness are over the members evaluated so far
	// in this generation's population; fitness is an episode's speedup.
	BestFitness ppo.Float `json:"evolve/best_fitness"`
	MeanFitness ppo.Float `json:"evolve/mean_fitness"`
	// BestMember is the index of the top-ranked member.
	BestMember int `json:"evolve/best_member"`
	// LearnerMember is the index of the member that holds the learner's
	// weights migrated before this generation (-1: none), with its
	// fitness; BestIsLearner reports that the top-ranked member is an
	// unchanged copy of a migrated learner (of this or an earlier
	// generation).
	LearnerMember  int       `json:"evolve/learner_member"`
	LearnerFitness ppo.Float `json:"evolve/learner_fitness"`
	BestIsLearner  bool      `json:"evolve/best_is_learner"`
	// LearnerSpeedup and LearnerReturn are means over the learner's
	// on-policy episodes of this generation; LearnerSteps counts their
	// steps and SharedSteps the members' steps added to its update.
	LearnerSpeedup ppo.Float `json:"learner/mean_speedup"`
	LearnerReturn  ppo.Float `json:"learner/mean_return"`
	LearnerSteps   int       `json:"learner/steps"`
	SharedSteps    int       `json:"learner/shared_steps"`
	// Update is the learner's PPO update of this generation, if any.
	Update *ppo.UpdateRecord `json:"update,omitempty"`
	// InitialLatencyUS is the start graph's latency, BestLatencyUS the
	// lowest measured over the run and BestSpeedup their ratio.
	InitialLatencyUS ppo.Float `json:"latency/initial_us"`
	BestLatencyUS    ppo.Float `json:"latency/best_us"`
	BestSpeedup      ppo.Float `json:"charts/best_speedup"`
	// Stop is "budget" when MaxSteps ran out in this generation.
	Stop string `json:"stop,omitempty"`
}

// metricsWriter writes JSON lines, flushing after each.
type metricsWriter struct {
	f *os.File
	w *bufio.Writer
}

func createMetrics(path string) (*metricsWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return &metricsWriter{f: f, w: bufio.NewWriter(f)}, nil
}

func (m *metricsWriter) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	m.w.Write(b)
	m.w.WriteByte('\n')
	if err := m.w.Flush(); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}

func (m *metricsWriter) close() error {
	if err := m.w.Flush(); err != nil {
		m.f.Close()
		return err
	}
	return m.f.Close()
}

// ReadMetrics reads the generation records of a run's metrics.jsonl.
func ReadMetrics(path string) ([]GenerationRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []GenerationRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		var r GenerationRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}
