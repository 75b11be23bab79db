// Package builtin holds the agent shipped inside the xrl binary: a policy
// network trained by scripts/train-builtin across the model zoo and the
// real-export corpus, with the record of how it was trained.
package builtin

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/xrl-dev/xrl/gat"
)

// Name is the value of `xrl optimize --agent` that selects this agent.
const Name = "builtin"

// File names of the embedded agent, written by mkbuiltin.
const (
	NetFile        = "agent.gat"
	ProvenanceFile = "provenance.json"
)

//go:embed agent.gat
var netBytes []byte

//go:embed provenance.json
var provenanceBytes []byte

// Model is one model the agent was trained on.
type Model struct {
	Name      string `json:"name"`
	GraphHash string `json:"graph_hash"`
}

// Provenance records how the embedded agent was made.
type Provenance struct {
	// Script is the command that trained it; Seed its --seed.
	Script string `json:"script"`
	Seed   uint64 `json:"seed"`
	// Runtime is the latency model of the rewards.
	Runtime string `json:"runtime"`
	// Models are the training models.
	Models []Model `json:"models"`
	// Episodes, Updates and Steps are the training budget actually run;
	// Seconds the training's wall time.
	Episodes int     `json:"episodes"`
	Updates  int     `json:"updates"`
	Steps    int     `json:"steps"`
	Seconds  float64 `json:"seconds"`
	// Horizon and MaxCandidates are the environment settings rollouts
	// must use.
	Horizon       int `json:"horizon"`
	MaxCandidates int `json:"max_candidates"`
	// CandidateGains is the policy's env.Config.CandidateGains.
	CandidateGains bool `json:"candidate_gains,omitempty"`
	// NoOpAfter is the policy's env.Config.NoOpAfter.
	NoOpAfter int `json:"noop_after,omitempty"`
	// Commit is the source revision of the training run; Date when it
	// ended (UTC).
	Commit string `json:"commit"`
	Date   string `json:"date"`
}

// Validate reports a provenance that cannot drive rollouts.
func (p *Provenance) Validate() error {
	if p.Horizon < 1 || p.MaxCandidates < 1 {
		return fmt.Errorf("horizon %d and max_candidates %d must be positive", p.Horizon, p.MaxCandidates)
	}
	if len(p.Models) == 0 {
		return fmt.Errorf("no training models recorded")
	}
	return nil
}

// Load returns the embedded policy and its provenance.
func Load() (*gat.Net, *Provenance, error) {
	return decode(netBytes, provenanceBytes)
}

// decode parses a policy checkpoint and its provenance.
func decode(netData, provData []byte) (*gat.Net, *Provenance, error) {
	var p Provenance
	dec := json.NewDecoder(bytes.NewReader(provData))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, nil, fmt.Errorf("built-in agent: %s: %w", ProvenanceFile, err)
	}
	if err := p.Validate(); err != nil {
		return nil, nil, fmt.Errorf("built-in agent: %s: %w", ProvenanceFile, err)
	}
	net, err := gat.Load(bytes.NewReader(netData))
	if err != nil {
		return nil, nil, fmt.Errorf("built-in agent: %s: %w", NetFile, err)
	}
	return net, &p, nil
}
