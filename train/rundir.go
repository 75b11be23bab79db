package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/ppo"
)

// makeRunDir creates dir (and missing parents) and returns the topmost
// directory it created ("" when dir existed), for removeRunDir to undo.
func makeRunDir(dir string) (string, error) {
	top := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		top = d
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("run directory %s: %w", dir, err)
	}
	return top, nil
}

// removeRunDir removes what makeRunDir created (top), when anything.
func removeRunDir(top string) {
	if top != "" {
		os.RemoveAll(top)
	}
}

// openRun creates cfg.Dir and the rewards' latency model; the cost model
// keeps its per-op times in the run directory, so that a resumed run sees
// the same costs. The returned cleanup removes what was created when the
// run failed before its first episode (episodes counts this session's).
func openRun(cfg *Config) (measure.LatencyModel, func(err error, episodes int), error) {
	created, err := makeRunDir(cfg.Dir)
	if err != nil {
		return nil, nil, err
	}
	cleanup := func(err error, episodes int) {
		if err != nil && !errors.Is(err, ErrInterrupted) && episodes == 0 {
			removeRunDir(created)
		}
	}
	lm, err := RewardLatency(cfg.runtime(), cfg.Measurement, filepath.Join(cfg.Dir, CostCacheFile))
	if err != nil {
		cleanup(err, 0)
		return nil, nil, err
	}
	return lm, cleanup, nil
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

// resumed reads the configuration of the run in cfg.Dir and completes cfg
// with the run's runtime and rules, refusing others.
func resumed(cfg *Config) (runInfo, error) {
	path := filepath.Join(cfg.Dir, ppo.ConfigFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return runInfo{}, fmt.Errorf("--resume: %w", err)
	}
	var stored struct {
		Run runInfo `json:"run"`
	}
	if err := json.Unmarshal(b, &stored); err != nil {
		return runInfo{}, fmt.Errorf("--resume: %s: %w", path, err)
	}
	run := stored.Run
	if cfg.Runtime != "" && cfg.Runtime != run.Runtime {
		return runInfo{}, configErrorf("--runtime %s: the run was trained with %s rewards", cfg.Runtime, run.Runtime)
	}
	if cfg.Rules != nil && !slices.Equal(cfg.Rules, run.Rules) {
		return runInfo{}, configErrorf("--rules cannot change on --resume (the run uses %v)", run.Rules)
	}
	cfg.Runtime, cfg.Rules = run.Runtime, run.Rules
	return run, nil
}
