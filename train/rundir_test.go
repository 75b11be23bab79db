package train

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/ppo"
)

func TestRunDir(t *testing.T) {
	cfg := Config{Models: []string{"models/bert.onnx"}, ExpName: "ppo", PPO: ppo.DefaultConfig()}
	now := time.Unix(1_700_000_123, 0)
	if got, want := RunDir(cfg, now), filepath.Join("runs", "bert__ppo__43__1700000123"); got != want {
		t.Errorf("run directory %q, want %q", got, want)
	}
	cfg.Models = append(cfg.Models, "models/vit.onnx")
	if got, want := RunDir(cfg, now), filepath.Join("runs", "multi__ppo__43__1700000123"); got != want {
		t.Errorf("multi-model run directory %q, want %q", got, want)
	}
	cfg.Corpus = "data/zoo/"
	if got, want := RunDir(cfg, now), filepath.Join("runs", "zoo__ppo__43__1700000123"); got != want {
		t.Errorf("corpus run directory %q, want %q", got, want)
	}
	cfg.Dir = "elsewhere"
	if got := RunDir(cfg, now); got != "elsewhere" {
		t.Errorf("Dir ignored: %q", got)
	}
	cases := []struct {
		done, total int
		want        string
	}{{0, 10, "[    ]"}, {5, 10, "[==  ]"}, {10, 10, "[====]"}, {12, 10, "[====]"}}
	for _, c := range cases {
		if got := bar(c.done, c.total, 4); got != c.want {
			t.Errorf("bar(%d, %d) = %q, want %q", c.done, c.total, got, c.want)
		}
	}
}

func TestRunRefusesConfig(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no model", Config{}, "no model"},
		{"unknown algorithm", Config{Models: []string{"m.onnx"}, Algo: "sac"}, `--algo "sac"`},
		{"EGRL on two models", Config{Models: []string{"a.onnx", "b.onnx"}, Algo: AlgoEGRL}, "one model"},
		{"EGRL resumed", Config{Models: []string{"m.onnx"}, Algo: AlgoEGRL, Resume: true}, "cannot be resumed"},
	} {
		_, err := Run(context.Background(), c.cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a configuration error containing %q", c.name, err, c.want)
		}
	}
}
