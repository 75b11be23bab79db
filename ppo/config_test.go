package ppo

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestDefaultsFollowThePaper(t *testing.T) {
	c := DefaultConfig()
	want := Config{
		Episodes: 1000, Seed: 43, Horizon: 100, FeedbackEvery: 5, MaxCandidates: 200, RewardScale: 1,
		UpdateEvery: 10, Epochs: 4, MinibatchSize: 16, LearningRate: 5e-4, AdamEps: 1e-5,
		Gamma: 0.99, GAELambda: 0.95, NormAdv: true, ClipCoef: 0.2, ClipValueLoss: true,
		EntCoef: 0.01, VFCoef: 0.5, MaxGradNorm: 0.5,
		GATLayers: 5, Hidden: 64, Heads: 4, HeadHidden: []int{256, 64},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("DefaultConfig() =\n%+v\nwant\n%+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
	if c.NumUpdates() != 100 {
		t.Errorf("NumUpdates = %d", c.NumUpdates())
	}
}

func TestEveryFieldIsDocumentedAndAFlag(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range configFields() {
		if f.flag == "" || f.help == "" || f.def == "" || f.json == "" {
			t.Errorf("Config.%s lacks a flag, help, default or json tag: %+v", f.name, f)
		}
		if seen[f.flag] {
			t.Errorf("flag --%s defined twice", f.flag)
		}
		seen[f.flag] = true
	}
	c := DefaultConfig()
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	c.Flags(fs)
	for _, name := range FlagNames() {
		fl := fs.Lookup(name)
		if fl == nil {
			t.Fatalf("flag --%s not registered", name)
		}
		if fl.Usage == "" {
			t.Errorf("flag --%s has no help", name)
		}
	}
	if got := fs.Lookup("learning-rate").DefValue; got != "0.0005" {
		t.Errorf("--learning-rate default shows %q", got)
	}
}

func TestFlagsParseIntoConfig(t *testing.T) {
	cases := []struct {
		args  []string
		check func(c Config) bool
	}{
		{[]string{"--learning-rate", "1e-3"}, func(c Config) bool { return c.LearningRate == 1e-3 }},
		{[]string{"--episodes=7", "--seed", "9"}, func(c Config) bool { return c.Episodes == 7 && c.Seed == 9 }},
		{[]string{"--clip-vloss=false", "--anneal-lr"}, func(c Config) bool { return !c.ClipValueLoss && c.AnnealLR }},
		{[]string{"--head-hidden", "32,16,8"}, func(c Config) bool { return reflect.DeepEqual(c.HeadHidden, []int{32, 16, 8}) }},
		{[]string{"--feedback-every", "1", "--update-every", "3"}, func(c Config) bool { return c.FeedbackEvery == 1 && c.UpdateEvery == 3 }},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		c.Flags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if !tc.check(c) {
			t.Errorf("%v gave %+v", tc.args, c)
		}
	}
}

func TestValidateNamesTheFlag(t *testing.T) {
	cases := []struct {
		mutate func(c *Config)
		flag   string
	}{
		{func(c *Config) { c.Episodes = 0 }, "--episodes"},
		{func(c *Config) { c.MinibatchSize = -1 }, "--minibatch-size"},
		{func(c *Config) { c.Gamma = 1.5 }, "--gamma"},
		{func(c *Config) { c.LearningRate = 0 }, "--learning-rate"},
		{func(c *Config) { c.ClipCoef = -0.1 }, "--clip-coef"},
		{func(c *Config) { c.StepCost = -1 }, "--step-cost"},
		{func(c *Config) { c.NoOpAfter = -1 }, "--noop-after"},
		{func(c *Config) { c.Heads = 5 }, "--heads"},
		{func(c *Config) { c.HeadHidden = nil }, "--head-hidden"},
		{func(c *Config) { c.HeadHidden = []int{0} }, "head hidden width"},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mutate(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("want an error naming %s, got %v", tc.flag, err)
		}
	}
}
