package ppo

import (
	"fmt"
	"strings"
	"time"

	"github.com/xrl-dev/xrl/env"
)

// Task is one model of a multi-model run: its name (the metrics' "model")
// and its environment.
type Task struct {
	Name string
	Env  env.Config
}

// ModelStats is one model's progress in a multi-model run.
type ModelStats struct {
	Name string `json:"name"`
	// Episodes counts the episodes that drew this model.
	Episodes int `json:"episodes"`
	// InitialLatency is the model's start latency (0 before its first
	// episode); BestLatency the lowest measured, in episode BestEpisode
	// (0: the start graph).
	InitialLatency time.Duration `json:"initial_latency"`
	BestLatency    time.Duration `json:"best_latency"`
	BestEpisode    int           `json:"best_episode"`
}

// Speedup returns InitialLatency / BestLatency (NaN before the first
// episode).
func (m ModelStats) Speedup() float64 { return ratio(m.InitialLatency, m.BestLatency) }

// checkTasks rejects an empty task list and, with several tasks, empty or
// repeated names.
func checkTasks(tasks []Task) error {
	if len(tasks) == 0 {
		return fmt.Errorf("ppo: no model to train on")
	}
	if len(tasks) == 1 {
		return nil
	}
	seen := map[string]bool{}
	for i, tk := range tasks {
		if tk.Name == "" {
			return fmt.Errorf("ppo: task %d of %d has no name", i+1, len(tasks))
		}
		if seen[tk.Name] {
			return fmt.Errorf("ppo: two models are named %q", tk.Name)
		}
		seen[tk.Name] = true
	}
	return nil
}

// taskNames lists the names of tasks.
func taskNames(tasks []Task) []string {
	out := make([]string, len(tasks))
	for i, tk := range tasks {
		out[i] = tk.Name
	}
	return out
}

// sameTasks refuses to resume a run on models other than those it was
// trained on (stored: the checkpoint's per-model progress, empty for a
// single-model run).
func sameTasks(dir string, stored []ModelStats, tasks []Task) error {
	if len(stored) == 0 {
		if len(tasks) > 1 {
			return fmt.Errorf("%s: the run was trained on one model; it cannot continue on %d models (%s)",
				dir, len(tasks), strings.Join(taskNames(tasks), ", "))
		}
		return nil
	}
	names := make([]string, len(stored))
	for i, m := range stored {
		names[i] = m.Name
	}
	got := taskNames(tasks)
	if len(tasks) == 1 || strings.Join(names, "\x00") != strings.Join(got, "\x00") {
		return fmt.Errorf("%s: the run was trained on the models %s; it cannot continue on %s",
			dir, strings.Join(names, ", "), strings.Join(got, ", "))
	}
	return nil
}

// taskOf returns the task of episode ep (1-based): round robin, or drawn
// from a generator seeded by the run seed and ep with RandomModels, so a
// resumed run draws the same models.
func (t *Trainer) taskOf(ep int) int {
	n := len(t.envs)
	if n == 1 {
		return 0
	}
	if t.cfg.RandomModels {
		return int(episodeSeed(t.cfg.Seed^0x5851f42d4c957f2d, ep) % uint64(n))
	}
	return (ep - 1) % n
}

// multiRecord updates the progress of the episode's model and returns the
// episode's record. The reward (Eq. 2) is already relative to the start
// latency of the episode's model, so returns of large and small models
// are on the same scale.
func (t *Trainer) multiRecord(ep, task int, res env.Episode) EpisodeRecord {
	m := &t.st.Models[task]
	if m.Episodes == 0 {
		m.InitialLatency, m.BestLatency = res.InitialLatency, res.InitialLatency
	}
	m.Episodes++
	if res.BestLatency < m.BestLatency {
		m.BestLatency, m.BestEpisode = res.BestLatency, ep
	}
	return EpisodeRecord{
		Type: "episode", Episode: ep, Seed: episodeSeed(t.cfg.Seed, ep), Model: m.Name,
		Return: Float(res.Return), Length: res.Steps,
		InitialLatencyUS: us(res.InitialLatency), FinalLatencyUS: us(res.FinalLatency), BestLatencyUS: us(res.BestLatency),
		Speedup: Float(res.Speedup()), BestSpeedup: Float(m.Speedup()),
		RulesApplied: len(res.Applied), Rules: countRules(res.Applied), StopReason: res.StopReason,
	}
}

// countRules counts rule names.
func countRules(applied []string) map[string]int {
	out := map[string]int{}
	for _, r := range applied {
		out[r]++
	}
	return out
}
