package pipeline

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/ppo/builtin"
)

func TestLoadPolicy(t *testing.T) {
	net, cfg, err := LoadPolicy(builtin.Name)
	if err != nil {
		t.Fatal(err)
	}
	_, prov, err := builtin.Load()
	if err != nil {
		t.Fatal(err)
	}
	if net == nil || cfg.Horizon != prov.Horizon || cfg.MaxCandidates != prov.MaxCandidates {
		t.Errorf("built-in policy: horizon %d, candidates %d; provenance says %d, %d", cfg.Horizon, cfg.MaxCandidates, prov.Horizon, prov.MaxCandidates)
	}
	missing := filepath.Join(t.TempDir(), "builtin")
	_, _, err = LoadPolicy(missing)
	var pe *PolicyError
	if !errors.As(err, &pe) || pe.Path != missing {
		t.Errorf("a missing checkpoint file: %v, want a PolicyError naming it", err)
	}
}
