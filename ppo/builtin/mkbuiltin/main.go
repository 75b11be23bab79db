// Command mkbuiltin writes the built-in agent's files (agent.gat and
// provenance.json) from a finished `xrl train` run directory. It is run by
// scripts/train-builtin.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/xrl-dev/xrl/internal/atomicfile"
	"github.com/xrl-dev/xrl/ppo"
	"github.com/xrl-dev/xrl/ppo/builtin"
)

func main() {
	run := flag.String("run", "", "the training run directory (agent.ckpt, config.json)")
	out := flag.String("out", "ppo/builtin", "directory to write agent.gat and provenance.json into")
	script := flag.String("script", "", "the command that trained the run (recorded)")
	seconds := flag.Float64("seconds", 0, "the training's wall time in seconds (recorded)")
	flag.Parse()
	if *run == "" || *script == "" {
		fmt.Fprintln(os.Stderr, "mkbuiltin: -run and -script are required")
		os.Exit(2)
	}
	if err := write(*run, *out, *script, *seconds); err != nil {
		fmt.Fprintln(os.Stderr, "mkbuiltin:", err)
		os.Exit(1)
	}
}

// runConfig is the part of config.json mkbuiltin reads.
type runConfig struct {
	Run struct {
		Runtime string `json:"runtime"`
		Models  []struct {
			Name      string `json:"name"`
			GraphHash string `json:"graph_hash"`
		} `json:"models"`
	} `json:"run"`
}

func write(run, out, script string, seconds float64) error {
	ck, err := ppo.ReadCheckpoint(filepath.Join(run, ppo.CheckpointFile))
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(run, ppo.ConfigFile))
	if err != nil {
		return err
	}
	var rc runConfig
	if err := json.Unmarshal(b, &rc); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(run, ppo.ConfigFile), err)
	}
	p := builtin.Provenance{Script: script, Seed: ck.Config.Seed, Runtime: rc.Run.Runtime,
		Episodes: ck.State.Episode, Updates: ck.State.Update, Steps: ck.State.GlobalStep, Seconds: seconds,
		Horizon: ck.Config.Horizon, MaxCandidates: ck.Config.MaxCandidates, CandidateGains: ck.Config.CandidateGains,
		NoOpAfter: ck.Config.NoOpAfter,
		Commit:    commit(), Date: time.Now().UTC().Format(time.RFC3339)}
	for _, m := range rc.Run.Models {
		p.Models = append(p.Models, builtin.Model{Name: m.Name, GraphHash: m.GraphHash})
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w (a multi-model run is expected)", run, err)
	}
	var nb bytes.Buffer
	if err := ck.Net.Save(&nb); err != nil {
		return err
	}
	js, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(out, builtin.NetFile), nb.Bytes()); err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(out, builtin.ProvenanceFile), append(js, '\n'))
}

// commit returns the current git revision ("unknown" outside a checkout).
func commit() string {
	b, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
