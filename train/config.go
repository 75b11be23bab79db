package train

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/xrl-dev/xrl/egrl"
	"github.com/xrl-dev/xrl/pipeline"
	"github.com/xrl-dev/xrl/ppo"
)

// The training algorithms of Config.Algo.
const (
	AlgoPPO  = "ppo"
	AlgoEGRL = "egrl"
)

// Files a training run writes next to ppo's metrics.jsonl, agent.ckpt and
// config.json (or egrl's files).
const (
	BestModelFile = "best.onnx"
	CostCacheFile = "cost-cache.json"
)

// Config describes a training run: its models, the algorithm and its
// settings, the run directory, how latency is measured and where the run
// reports as it goes.
type Config struct {
	// Models are the model files: one, or several for one PPO agent
	// trained across models (an episode draws one; rewards are relative
	// to each model's start latency).
	Models []string
	// Corpus is the directory the models were found in, if any; it names
	// the default run directory of a multi-model run.
	Corpus string
	// Shapes binds input shapes (input name -> dims). In a multi-model run
	// a binding applies to every model whose input of that name is
	// dynamic, and must apply to one at least.
	Shapes map[string][]int
	// Rules restricts the rule set (nil: every rule; on Resume, nil means
	// the run's own and anything else must equal it).
	Rules []string
	// Algo is AlgoPPO (or "") or AlgoEGRL. PPO holds PPO's settings,
	// which with EGRL also give the learner, the network and the seed;
	// EGRL holds EGRL's own.
	Algo string
	PPO  ppo.Config
	EGRL egrl.Config
	// Dir is the run directory; "" names a new one (see RunDir).
	Dir string
	// ExpName is the experiment's name in a default run directory.
	ExpName string
	// Resume continues the PPO run in Dir from its checkpoint, with the
	// configuration stored there; Episodes, when positive, is then the
	// run's new number of episodes.
	Resume   bool
	Episodes int
	// Runtime is the latency model of the rewards: cost, ort, go,
	// profile or roofline. "" is cost for a new run and, on Resume, the
	// run's own; anything else must then equal it.
	Runtime string
	// Measurement configures the rewards' latency model and the end-to-end
	// measurement of the exported graph.
	Measurement pipeline.Measurement
	// Tolerance is the relative tolerance the exported graph is verified
	// with.
	Tolerance float64
	// Log, if set, receives the lines that describe the run while it
	// goes: its start, PPO's updates, EGRL's generations and the
	// verification of the exported graph.
	Log io.Writer
	// Progress, if set, is called after every PPO episode.
	Progress func(Progress)
}

// runtime returns the name of the rewards' latency model.
func (c *Config) runtime() string {
	if c.Runtime == "" {
		return "cost"
	}
	return c.Runtime
}

// multi reports whether the run trains across several models.
func (c *Config) multi() bool { return len(c.Models) > 1 }

// RunDir returns cfg.Dir, or names a new run directory CleanRL-style:
// runs/MODEL__EXP__SEED__UNIXTIME, where MODEL is the model's file name
// without its extension, or for several models the corpus directory's
// name (else "multi"). cfg must name a model.
func RunDir(cfg Config, now time.Time) string {
	if cfg.Dir != "" {
		return cfg.Dir
	}
	model := modelName(cfg.Models[0])
	if cfg.multi() {
		model = "multi"
		if cfg.Corpus != "" {
			model = filepath.Base(filepath.Clean(cfg.Corpus))
		}
	}
	return filepath.Join("runs", fmt.Sprintf("%s__%s__%d__%d", model, cfg.ExpName, cfg.PPO.Seed, now.Unix()))
}

// modelName is a model's name in a run: its file name without the
// extension.
func modelName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}
