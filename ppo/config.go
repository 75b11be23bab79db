package ppo

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/xrl-dev/xrl/gat"
)

// Config holds every hyper-parameter of a training run. Each field's tags
// carry its JSON name, its command-line flag, its default (DefaultConfig)
// and its one-line help; Flags turns them into flags. Defaults follow
// X-RLflow's paper (Appendix A) and reference code (shared/FACTS.md).
type Config struct {
	// Run length and seeding.
	Episodes int    `json:"episodes" flag:"episodes" default:"1000" help:"training episodes"`
	Seed     uint64 `json:"seed" flag:"seed" default:"43" help:"seed of the network, the action sampling, the minibatch shuffles and the episodes"`
	// RandomModels chooses how a multi-model run draws each episode's
	// model: round robin (false) or at random, seeded by --seed.
	RandomModels bool `json:"random_models,omitempty" flag:"random-models" default:"false" help:"with several models: draw each episode's model at random (seeded by --seed) instead of round robin"`

	// Environment.
	Horizon       int `json:"horizon" flag:"horizon" default:"100" help:"steps after which an episode is truncated"`
	FeedbackEvery int `json:"feedback_every" flag:"feedback-every" default:"5" help:"measure latency every N steps (other steps get reward 0.1)"`
	MaxCandidates int `json:"max_candidates" flag:"max-candidates" default:"200" help:"candidate rewrites shown per step (the rest are dropped at random)"`
	// CandidateGains shows the policy each candidate's latency gain
	// (env.Config.CandidateGains); rollouts of the trained policy must use
	// the same setting.
	CandidateGains bool `json:"candidate_gains,omitempty" flag:"candidate-gains" default:"false" help:"show the policy each candidate's gain under the latency model (in its graph's global attribute) and keep the candidates with the largest gains"`
	// RewardScale multiplies every reward (after StepCost). Eq. 2 is in
	// percent, so one model whose rewrites gain tens of percent makes the
	// value loss, and with it the clipped global gradient, dwarf the
	// policy's; a scale of 0.1 keeps both on one footing.
	RewardScale float64 `json:"reward_scale,omitempty" flag:"reward-scale" default:"1" help:"multiply every reward (after --step-cost) by this (0 means 1); below 1 keeps the value loss from crowding the policy out of the clipped gradient"`
	// NoOpAfter masks No-Op for the first steps (env.Config.NoOpAfter);
	// rollouts of the trained policy must use the same setting.
	NoOpAfter int `json:"noop_after,omitempty" flag:"noop-after" default:"0" help:"mask No-Op for the first N steps of every episode, so that each episode tries at least N rewrites (rollouts use the same setting)"`
	// StepCost is subtracted from every step's reward (No-Op included),
	// in the reward's unit (percent of the start latency): a rewrite must
	// gain more than this to be worth taking, so a trained policy stops
	// (No-Op) once the rewrites left gain less.
	StepCost float64 `json:"step_cost,omitempty" flag:"step-cost" default:"0" help:"subtracted from every step's reward (percent of the start latency): rewrites must gain more than this, so the policy learns to stop"`

	// PPO.
	UpdateEvery   int     `json:"update_every" flag:"update-every" default:"10" help:"episodes collected per PPO update"`
	Epochs        int     `json:"update_epochs" flag:"update-epochs" default:"4" help:"passes over the collected steps per update"`
	MinibatchSize int     `json:"minibatch_size" flag:"minibatch-size" default:"16" help:"steps per gradient step"`
	LearningRate  float64 `json:"learning_rate" flag:"learning-rate" default:"5e-4" help:"Adam step size"`
	AnnealLR      bool    `json:"anneal_lr" flag:"anneal-lr" default:"false" help:"decay the learning rate linearly to 0 over the updates"`
	AdamEps       float64 `json:"adam_eps" flag:"adam-eps" default:"1e-5" help:"Adam's denominator epsilon"`
	Gamma         float64 `json:"gamma" flag:"gamma" default:"0.99" help:"discount factor"`
	GAELambda     float64 `json:"gae_lambda" flag:"gae-lambda" default:"0.95" help:"lambda of generalised advantage estimation"`
	NormAdv       bool    `json:"norm_adv" flag:"norm-adv" default:"true" help:"normalise advantages within each minibatch"`
	ClipCoef      float64 `json:"clip_coef" flag:"clip-coef" default:"0.2" help:"PPO clipping range of the probability ratio (and of the value change)"`
	ClipValueLoss bool    `json:"clip_vloss" flag:"clip-vloss" default:"true" help:"clip the value loss like the policy objective"`
	EntCoef       float64 `json:"ent_coef" flag:"ent-coef" default:"0.01" help:"entropy bonus coefficient"`
	VFCoef        float64 `json:"vf_coef" flag:"vf-coef" default:"0.5" help:"value loss coefficient"`
	MaxGradNorm   float64 `json:"max_grad_norm" flag:"max-grad-norm" default:"0.5" help:"global gradient-norm clip"`
	TargetKL      float64 `json:"target_kl" flag:"target-kl" default:"0" help:"stop an update's epochs once approx_kl exceeds this (0 = never)"`

	// Policy network.
	GATLayers  int   `json:"gat_layers" flag:"gat-layers" default:"5" help:"graph-attention layers of the encoder"`
	Hidden     int   `json:"hidden" flag:"hidden" default:"64" help:"width of node and graph embeddings"`
	Heads      int   `json:"heads" flag:"heads" default:"4" help:"attention heads per GAT layer (must divide --hidden)"`
	HeadHidden []int `json:"head_hidden" flag:"head-hidden" default:"256,64" help:"hidden widths of the policy and value MLPs"`
}

// DefaultConfig returns the configuration with every field at its
// default.
func DefaultConfig() Config {
	var c Config
	v := reflect.ValueOf(&c).Elem()
	for i, f := range configFields() {
		if err := setFromString(v.Field(i), f.def); err != nil {
			panic(fmt.Sprintf("ppo: default of Config.%s: %v", f.name, err)) // a bug in the tags
		}
	}
	return c
}

// field describes one Config field from its tags.
type field struct {
	name, json, flag, def, help string
}

// configFields returns the tag data of every Config field, in order.
func configFields() []field {
	t := reflect.TypeOf(Config{})
	out := make([]field, t.NumField())
	for i := range out {
		f := t.Field(i)
		out[i] = field{name: f.Name, json: f.Tag.Get("json"), flag: f.Tag.Get("flag"),
			def: f.Tag.Get("default"), help: f.Tag.Get("help")}
	}
	return out
}

// setFromString parses s into v (a field of a supported kind).
func setFromString(v reflect.Value, s string) error {
	switch v.Kind() {
	case reflect.Int:
		n, err := strconv.Atoi(s)
		v.SetInt(int64(n))
		return err
	case reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, 64)
		v.SetUint(n)
		return err
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		v.SetFloat(x)
		return err
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		v.SetBool(b)
		return err
	case reflect.Slice:
		var xs []int
		for _, p := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil {
				return err
			}
			xs = append(xs, n)
		}
		v.Set(reflect.ValueOf(xs))
		return nil
	}
	return fmt.Errorf("unsupported kind %s", v.Kind())
}

// Flags registers one flag per field on fs, bound to c's fields, with c's
// current values as defaults (start from DefaultConfig).
func (c *Config) Flags(fs *pflag.FlagSet) {
	v := reflect.ValueOf(c).Elem()
	for i, f := range configFields() {
		p := v.Field(i).Addr().Interface()
		switch p := p.(type) {
		case *int:
			fs.IntVar(p, f.flag, *p, f.help)
		case *uint64:
			fs.Uint64Var(p, f.flag, *p, f.help)
		case *float64:
			fs.Float64Var(p, f.flag, *p, f.help)
		case *bool:
			fs.BoolVar(p, f.flag, *p, f.help)
		case *[]int:
			fs.IntSliceVar(p, f.flag, *p, f.help)
		default:
			panic(fmt.Sprintf("ppo: Config.%s has no flag kind", f.name)) // a bug in Config
		}
	}
}

// FlagNames returns the names of the flags Flags registers, in field
// order.
func FlagNames() []string {
	var out []string
	for _, f := range configFields() {
		out = append(out, f.flag)
	}
	return out
}

// Validate reports the first out-of-range field, naming its flag.
func (c *Config) Validate() error {
	positive := []struct {
		flag string
		v    int
	}{
		{"episodes", c.Episodes}, {"horizon", c.Horizon}, {"feedback-every", c.FeedbackEvery},
		{"max-candidates", c.MaxCandidates}, {"update-every", c.UpdateEvery}, {"update-epochs", c.Epochs},
		{"minibatch-size", c.MinibatchSize}, {"gat-layers", c.GATLayers}, {"hidden", c.Hidden}, {"heads", c.Heads},
	}
	for _, p := range positive {
		if p.v < 1 {
			return fmt.Errorf("--%s must be at least 1, got %d", p.flag, p.v)
		}
	}
	if c.NoOpAfter < 0 {
		return fmt.Errorf("--noop-after must not be negative, got %d", c.NoOpAfter)
	}
	unit := []struct {
		flag string
		v    float64
	}{{"gamma", c.Gamma}, {"gae-lambda", c.GAELambda}}
	for _, u := range unit {
		if !(u.v >= 0 && u.v <= 1) {
			return fmt.Errorf("--%s must be in [0, 1], got %v", u.flag, u.v)
		}
	}
	nonneg := []struct {
		flag string
		v    float64
	}{
		{"clip-coef", c.ClipCoef}, {"ent-coef", c.EntCoef}, {"step-cost", c.StepCost},
		{"reward-scale", c.RewardScale}, {"vf-coef", c.VFCoef}, {"target-kl", c.TargetKL},
	}
	for _, n := range nonneg {
		if !(n.v >= 0) || math.IsInf(n.v, 0) {
			return fmt.Errorf("--%s must be a non-negative number, got %v", n.flag, n.v)
		}
	}
	strict := []struct {
		flag string
		v    float64
	}{{"learning-rate", c.LearningRate}, {"adam-eps", c.AdamEps}, {"max-grad-norm", c.MaxGradNorm}}
	for _, s := range strict {
		if !(s.v > 0) || math.IsInf(s.v, 0) {
			return fmt.Errorf("--%s must be a positive number, got %v", s.flag, s.v)
		}
	}
	if c.Hidden%c.Heads != 0 {
		return fmt.Errorf("--heads (%d) must divide --hidden (%d)", c.Heads, c.Hidden)
	}
	if len(c.HeadHidden) == 0 {
		return errors.New("--head-hidden needs at least one width")
	}
	if _, err := gat.New(c.NetConfig()); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	return nil
}

// NetConfig returns the policy network's configuration.
func (c *Config) NetConfig() gat.Config {
	nc := gat.DefaultConfig()
	nc.Layers, nc.Hidden, nc.Heads = c.GATLayers, c.Hidden, c.Heads
	nc.HeadHidden = append([]int(nil), c.HeadHidden...)
	nc.Seed = c.Seed
	return nc
}

// NumUpdates returns the number of PPO updates of a full run: one per
// UpdateEvery episodes, the last one possibly over fewer episodes.
func (c *Config) NumUpdates() int { return (c.Episodes + c.UpdateEvery - 1) / c.UpdateEvery }
